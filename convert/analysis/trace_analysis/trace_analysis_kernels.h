// The GPU work of one rank as Holistic Trace Analysis (HTA) sees it, read
// once from the model and shared by every section of the trace_analysis tool:
// each stream's device ops (kernels, copies, sets) in time order, each with
// its kernel type, and the host runtime calls that launched them (linked by
// correlation id). PyTorch traces and TensorFlow/JAX GPU xplane profiles give
// the same shape, so every section reads both alike.
//
// The kernel type is the one classifier of the room (HTA's, by name):
// COMMUNICATION for NCCL/RCCL/HCCL kernels (and, on an XLA profile, a kernel
// of a collective HLO op), MEMORY for Memcpy/Memset/DMA, the rest COMPUTATION.
// Unlike HTA, a `hip…` runtime-style name is not taken for communication, and
// a host op carrying a `stream` arg (Triton's launcher) is no GPU event.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/model/xspace_model.h"

namespace tbprof::trace_analysis {

// HTA's order: it names an overlap class by the types in this order.
enum class KernelType : uint8_t { kComputation = 0, kCommunication = 1, kMemory = 2 };
inline constexpr int kNumKernelTypes = 3;
std::string_view KernelTypeName(KernelType type);  // "COMPUTATION", "COMMUNICATION", "MEMORY"
KernelType KernelTypeOfName(std::string_view name);
// An XLA HLO op that is a collective ("all-reduce.3", "all-gather-start", …).
bool IsCollectiveHloOp(std::string_view hlo_op);

inline constexpr uint32_t kNoLaunch = UINT32_MAX;

struct GpuKernel {
  int64_t begin_ps = 0, end_ps = 0;
  uint32_t name = 0;           // index into RankKernels::names
  uint32_t launch = kNoLaunch;  // index into RankKernels::launches
};

struct GpuStream {
  int device = 0;      // the GPU plane's ordinal
  int64_t stream = 0;  // the stream (line) id
  std::vector<GpuKernel> kernels;  // by begin
};

struct KernelName {
  std::string_view text;  // into the model's strings
  KernelType type = KernelType::kComputation;
};

// What a host runtime call with a correlation id is, for the sections.
enum class LaunchKind : uint8_t {
  kOther,     // any other call with a correlation id (a sync, an event record)
  kKernel,    // cudaLaunchKernel[ExC] (HTA's launch stats)
  kCopy,      // cudaMemcpyAsync / cudaMemsetAsync (HTA's launch stats too)
  kDriver,    // cuLaunchKernel[Ex] (HTA's queue length only), cuMemcpy…Async / cuMemset…Async
  kHip,       // hipLaunchKernel, hipExtModuleLaunchKernel, hipMemcpy…, … (HTA's queue length only)
};
LaunchKind LaunchKindOfName(std::string_view name);
// A call that enqueues work on a stream (every kind but kOther).
inline bool EnqueuesWork(LaunchKind k) { return k != LaunchKind::kOther; }

// A host call linked to a device op by correlation id.
struct Launch {
  int64_t begin_ps = 0, end_ps = 0;
  int64_t correlation = 0;
  LaunchKind kind = LaunchKind::kOther;
  uint32_t stream = 0, kernel = 0;  // the device op: RankKernels::streams[stream].kernels[kernel]
};

struct RankKernels {
  int64_t rank = 0;
  std::string host;
  std::vector<GpuStream> streams;  // by device, then stream id
  std::vector<KernelName> names;
  std::vector<Launch> launches;    // by begin; only those whose device op is known
  size_t num_kernels = 0;
};

// Reads one rank's GPU work from its model. `host` names it in the output.
RankKernels ExtractRankKernels(const XSpaceModel& space, int64_t rank, std::string host);

// The span of every event of the model's host and GPU planes (HTA's trace
// duration), in ps; 0 without events. A pass over every event: sections ask
// for it only when they need it.
int64_t TraceSpanPs(const XSpaceModel& space);

// The rank a model's trace states ("rank <N>", as the Kineto importer names
// a distributed rank's host); none when it states none.
std::optional<int64_t> StatedRankOfModel(const XSpaceModel& space);
// The stated rank, else `fallback`.
int64_t RankOfModel(const XSpaceModel& space, int64_t fallback);

// "PyTorch", "TensorFlow" or "JAX": the words the page uses.
std::string_view FrameworkOfModel(const XSpaceModel& space);

struct Interval {
  int64_t begin_ps = 0, end_ps = 0;
};

// The union of every stream's kernels of each type, as disjoint intervals by
// begin (HTA's merge_kernel_intervals per type), and of all kernels.
struct MergedKernels {
  std::array<std::vector<Interval>, kNumKernelTypes> by_type;
  std::vector<Interval> all;
};
MergedKernels MergeKernelIntervals(const RankKernels& rank);

}  // namespace tbprof::trace_analysis
