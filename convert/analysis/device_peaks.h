// The device's roofs: peak FLOP rate and memory bandwidths. TPU planes carry
// them as plane stats (peak_teraflops_per_second, peak_*_bw_gigabytes_per_second);
// GPU planes carry clock rate, core (SM/CU) count, compute capability, vendor,
// memory size and bandwidth, from which the peak is derived. A table of known
// GPUs supplies what a profile lacks: a GPU matched by vendor, compute
// capability and core count takes its dense BF16 tensor peak from the table
// (the derivation from clock × cores is only the fallback), and its HBM
// bandwidth from the table when the profile has none.
#pragma once

#include <string>
#include <string_view>

#include "convert/xplane/xspace_model.h"

namespace tbprof {

enum class DeviceKind { kUnknown, kGpu, kTpu };

// A figure below 0 is unknown.
struct DevicePeaks {
  DeviceKind kind = DeviceKind::kUnknown;
  std::string device_type;    // e.g. "TPU v6 lite", "Nvidia GPU (Hopper)", "AMD GPU"
  std::string known_device;   // the table row matched, if any
  int device_count = 0;       // device planes
  double peak_tflops = -1;    // per device
  double hbm_gbps = -1;       // GB/s (10^9 bytes) per device
  double sram_rd_gbps = -1, sram_wr_gbps = -1;
  double cmem_rd_gbps = -1, cmem_wr_gbps = -1;
  double vmem_rd_gbps = -1, vmem_wr_gbps = -1;
  bool megacore = false, has_cmem = false, has_merged_vmem = false;
};

struct KnownGpu {
  std::string_view name;
  std::string_view vendor;  // "Nvidia" or "AMD"
  int cc_major, cc_minor;   // AMD: the gfx version's major.minor as ROCm reports it (gfx942 -> 9.4)
  int cores;                // SMs / CUs
  double memory_gib;        // tells H100 from H200
  double bf16_tflops;       // dense, no sparsity
  double hbm_gbps;
};

// The table: V100, A100 (40/80 GB), H100 (SXM, PCIe), H200, B200, MI300X, MI355X.
const std::vector<KnownGpu>& KnownGpus();
// The best row for the capabilities, or null. memory_gib < 0 when unknown.
const KnownGpu* MatchKnownGpu(std::string_view vendor, int cc_major, int cc_minor, int cores, double memory_gib);

DevicePeaks DevicePeaksOf(const XSpaceModel& space);

// What an op did over its run time; zero where unknown.
struct RooflineUse {
  double time_ps = 0;
  double flops = 0;
  double bytes = 0;      // all memory traffic
  double hbm_bytes = 0;  // HBM's share: all bytes when the profile breaks none down
  double cmem_rd = 0, cmem_wr = 0, vmem_rd = 0, vmem_wr = 0;  // a TPU's on-chip traffic
};

struct RooflineBottleneck {
  // "Compute", "HBM", "CMEM Read", "CMEM Write", "VMEM Read", "VMEM Write";
  // "Unknown" when no resource has both a use and a known peak.
  std::string_view resource = "Unknown";
  double operational_intensity = 0;  // FLOPs per byte of that resource (of all bytes for Compute)
  double flops_utilization = 0;      // of the peak FLOP rate
  double memory_utilization = 0;     // the largest over the memories
};

// The resource the op used closest to its peak, xprof's roofline "Bound by".
// On-chip memories count on TPUs only (their traffic is broken down there).
RooflineBottleneck FindRooflineBottleneck(const RooflineUse& use, const DevicePeaks& peaks);

}  // namespace tbprof
