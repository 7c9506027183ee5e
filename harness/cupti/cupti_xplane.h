// Writes a recorded GpuTrace into an XSpace the way TensorFlow's CUPTI
// collector does: one `/device:GPU:<n>` plane per
// device with one line per stream, kernel and memcpy details as text stats,
// device capabilities as plane stats, and the host side (launch calls and op
// annotations) on the host plane, one line per thread.
#pragma once

#include <string>
#include <string_view>

#include "harness/cupti/cupti_trace.h"
#include "proto/xplane.pb.h"

namespace tbprof::gpu {

struct GpuXSpaceOptions {
  std::string host_plane_name = "/host:CPU";
  bool write_host_plane = true;
};

// `regs:… static_shared:… dynamic_shared:… grid:x,y,z block:x,y,z occ_pct:…`
std::string KernelDetailsText(const KernelRecord& k);
// `kind_src:… kind_dst:… size:… dest:… async:…`
std::string MemcpyDetailsText(const MemcpyRecord& m);
// `kind:… num_bytes:… async:…`
std::string MemsetDetailsText(const MemsetRecord& m);
std::string_view MemoryKindName(MemoryKind kind);
std::string_view MemcpyEventName(CopyDirection d);

// Bits of the event kinds seen on one stream; the line name lists them.
enum StreamContent : unsigned {
  kStreamCompute = 1u << 0,
  kStreamMemcpyH2D = 1u << 1,
  kStreamMemcpyD2H = 1u << 2,
  kStreamMemcpyD2D = 1u << 3,
  kStreamMemcpyP2P = 1u << 4,
  kStreamMemcpyOther = 1u << 5,
  kStreamMemset = 1u << 6,
};
// "Stream #<id>(Compute,MemcpyH2D)"; "Stream #<id>" when nothing is known.
std::string StreamLineName(uint32_t stream_id, unsigned content);

// Host-plane line that holds the synchronization waits (no thread id is
// recorded for them); outside TF's derived-line id range.
inline constexpr int64_t kSyncLineId = 0x7fff0001;

void AddGpuTraceToXSpace(const GpuTrace& trace, tensorflow::profiler::XSpace& space,
                         const GpuXSpaceOptions& options = {});

}  // namespace tbprof::gpu
