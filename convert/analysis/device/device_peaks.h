// The device's roofs: peak FLOP rate and memory bandwidths, as xprof's PerfEnv
// holds them. TPU planes carry them as plane stats (peak_teraflops_per_second,
// peak_*_bw_gigabytes_per_second). GPU planes carry clock rate, core (SM/CU)
// count, compute capability, vendor, device name and memory bandwidth: the
// peak FLOP rate is cores × clock × the architecture's best dense FLOPs per
// clock per core (FP32/FP16, vector or matrix units), the shared memory (LDS
// on AMD) bandwidth cores × clock × bytes per clock per core, HBM the
// profile's own figure (doubled on AMD's HBM3 parts, whose collector states
// half). A GPU plane that states a peak itself (peak_teraflops_per_second,
// peak_sram_*) keeps it. The GPU's model name (xprof's hardware type) is
// told from the same capabilities.
#pragma once

#include <string>
#include <string_view>

#include "convert/analysis/device/gpu_datasheets.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

enum class DeviceKind { kUnknown, kGpu, kTpu };

// A figure below 0 is unknown.
struct DevicePeaks {
  DeviceKind kind = DeviceKind::kUnknown;
  std::string device_type;    // e.g. "TPU v6 lite", "Nvidia GPU (Hopper)", "AMD GPU - gfx942"
  int device_count = 0;       // device planes
  double peak_tflops = -1;    // per device
  double hbm_gbps = -1;       // GB/s (10^9 bytes) per device
  double sram_rd_gbps = -1, sram_wr_gbps = -1;  // a GPU's shared memory / L1 (LDS); a TPU's SRAM
  double cmem_rd_gbps = -1, cmem_wr_gbps = -1;
  double vmem_rd_gbps = -1, vmem_wr_gbps = -1;
  bool megacore = false, has_cmem = false, has_merged_vmem = false;
  // A GPU's name as its plane states it (gpu_device_name) and that part's
  // datasheet (nullptr: not a part gpu_datasheets.h knows). The figures above
  // stay the profile's own; a reader that needs a rate per precision, or a
  // roof the profile does not state, takes the datasheet's.
  std::string gpu_name;
  const GpuDatasheet* datasheet = nullptr;
};

// What a GPU plane says about its device; a number below 0 is absent.
struct GpuCapabilities {
  std::string vendor;       // "Nvidia" or "AMD"
  std::string device_name;  // gpu_device_name, e.g. "gfx942" from ROCm
  int cc_major = 0, cc_minor = 0;
  int cores = -1;                // SMs / CUs
  double clock_khz = -1;
  double memory_bandwidth = -1;  // bytes per second
  double peak_tflops = -1, sram_rd_gbps = -1, sram_wr_gbps = -1;  // stated by the plane
};

// The AMD architecture a device name ("gfx942") or, without a well-formed one,
// the compute capability names (9.4 is gfx942, 9.5 gfx950; 9.0 could be gfx908
// or gfx90a). Empty when unknown.
std::string_view AmdGfxVersion(std::string_view device_name, int cc_major, int cc_minor);

// A GPU's model as xprof names it from its plane's device capabilities:
// "Nvidia GPU (Hopper)" by compute capability, "AMD GPU - gfx942" by the
// reported architecture (or the compute capability that names exactly one),
// else the AMD family ("AMD GPU - gfx-9XX series"); "" for an unknown vendor.
std::string GpuModelName(std::string_view vendor, int compute_cap_major, int compute_cap_minor,
                         std::string_view device_name);

DevicePeaks GpuPeaks(const GpuCapabilities& caps);
DevicePeaks DevicePeaksOf(const XSpaceModel& space);

// What an op did over its run time. A figure flagged unknown is a lower bound
// (the sum of the parts that are known, 0 when none is).
struct RooflineUse {
  double time_ps = 0;
  double flops = 0;
  double bytes = 0;      // all memory traffic
  double hbm_bytes = 0;  // HBM's share: all bytes when the profile breaks none down
  double cmem_rd = 0, cmem_wr = 0, vmem_rd = 0, vmem_wr = 0;  // a TPU's on-chip traffic
  bool flops_known = true, bytes_known = true;
};

struct RooflineBottleneck {
  // "Compute", "HBM", "CMEM Read", "CMEM Write", "VMEM Read", "VMEM Write",
  // "Shm/L1"; "Unknown" when no resource has both a use and a known peak, or
  // when an unknown figure could change the answer: with unknown bytes, or
  // with unknown FLOPs unless their lower bound already wins. The
  // utilisations are of the figures given either way.
  std::string_view resource = "Unknown";
  double operational_intensity = 0;  // FLOPs per byte of that resource (of all bytes for Compute)
  double flops_utilization = 0;      // of the peak FLOP rate
  // The largest over the memories the roofline counts: HBM, a TPU's CMEM when
  // it has CMEM, its VMEM when the VMEM is merged (and there is no CMEM).
  double memory_utilization = 0;
};

// The resource the op used closest to its peak, xprof's roofline "Bound by".
// On TPUs each on-chip memory with traffic and a peak competes; on GPUs the
// shared memory / L1 competes with the HBM traffic (the only traffic known).
RooflineBottleneck FindRooflineBottleneck(const RooflineUse& use, const DevicePeaks& peaks);

}  // namespace tbprof
