#include "convert/analysis/device_peaks.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include "convert/base/math_util.h"

namespace tbprof {

const std::vector<KnownGpu>& KnownGpus() {
  // Vendor data sheets: dense BF16/FP16 tensor throughput and HBM bandwidth.
  static const std::vector<KnownGpu> gpus = {
      {"V100 SXM2", "Nvidia", 7, 0, 80, 32, 125, 900},
      {"A100 40GB", "Nvidia", 8, 0, 108, 40, 312, 1555},
      {"A100 80GB", "Nvidia", 8, 0, 108, 80, 312, 2039},
      {"H100 PCIe", "Nvidia", 9, 0, 114, 80, 756, 2000},
      {"H100 SXM", "Nvidia", 9, 0, 132, 80, 989, 3350},
      {"H200", "Nvidia", 9, 0, 132, 141, 989, 4800},
      {"B200", "Nvidia", 10, 0, 148, 180, 2250, 8000},
      {"MI300X", "AMD", 9, 4, 304, 192, 1307, 5300},
      {"MI355X", "AMD", 9, 5, 256, 288, 2500, 8000},
  };
  return gpus;
}

const KnownGpu* MatchKnownGpu(std::string_view vendor, int cc_major, int cc_minor, int cores, double memory_gib) {
  const KnownGpu* best = nullptr;
  double best_gap = 1e18;
  for (const KnownGpu& g : KnownGpus()) {
    bool vendor_ok = vendor.empty() || vendor.find(g.vendor) != std::string_view::npos ||
                     (g.vendor == "AMD" && vendor.find("amd") != std::string_view::npos) ||
                     (g.vendor == "Nvidia" && vendor.find("NVIDIA") != std::string_view::npos);
    if (!vendor_ok || g.cc_major != cc_major || g.cc_minor != cc_minor || g.cores != cores) continue;
    double gap = memory_gib < 0 ? 0 : std::fabs(g.memory_gib - memory_gib);
    if (gap < best_gap) {
      best = &g;
      best_gap = gap;
    }
  }
  return best;
}

namespace {

double PlaneDouble(const XSpaceModel& space, const XPlaneModel& p, std::string_view name) {
  StrId id = space.Find(name);
  const Stat* s = id == kNoStr ? nullptr : p.FindPlaneStat(id);
  return s == nullptr || s->kind == StatKind::kStr || s->kind == StatKind::kBytes ? -1 : s->DoubleValue();
}

std::string PlaneString(const XSpaceModel& space, const XPlaneModel& p, std::string_view name) {
  StrId id = space.Find(name);
  const Stat* s = id == kNoStr ? nullptr : p.FindPlaneStat(id);
  return s != nullptr && s->kind == StatKind::kStr ? std::string(space.Str(s->str)) : std::string();
}

// Dense 16-bit tensor FLOPs per clock per SM/CU by architecture, for GPUs the table lacks.
double TensorFlopsPerClockPerCore(bool amd, int cc_major, int cc_minor) {
  if (amd) return cc_major == 9 && cc_minor >= 5 ? 4096 : 2048;
  if (cc_major == 7) return 1024;
  if (cc_major == 8) return cc_minor == 0 ? 2048 : 1024;
  if (cc_major == 9) return 4096;
  if (cc_major >= 10) return 8192;
  return -1;
}

std::string NvidiaModelName(int cc_major, int cc_minor) {
  switch (cc_major) {
    case 7: return cc_minor < 5 ? "Nvidia GPU (Volta)" : "Nvidia GPU (Turing)";
    case 8: return cc_minor < 9 ? "Nvidia GPU (Ampere)" : "Nvidia GPU (Ada Lovelace)";
    case 9: return "Nvidia GPU (Hopper)";
    case 10: return "Nvidia GPU (Blackwell)";
    default: return "Nvidia GPU";
  }
}

}  // namespace

DevicePeaks DevicePeaksOf(const XSpaceModel& space) {
  DevicePeaks peaks;
  std::vector<const XPlaneModel*> tpus = space.FindPlanesWithPrefix("/device:TPU:");
  std::vector<const XPlaneModel*> gpus = space.FindPlanesWithPrefix("/device:GPU:");
  if (!tpus.empty()) {
    const XPlaneModel& p = *tpus.front();
    peaks.kind = DeviceKind::kTpu;
    peaks.device_count = static_cast<int>(tpus.size());
    peaks.device_type = PlaneString(space, p, "device_type_string");
    if (peaks.device_type.empty()) peaks.device_type = "TPU";
    peaks.peak_tflops = PlaneDouble(space, p, "peak_teraflops_per_second");
    peaks.hbm_gbps = PlaneDouble(space, p, "peak_hbm_bw_gigabytes_per_second");
    peaks.sram_rd_gbps = PlaneDouble(space, p, "peak_sram_rd_bw_gigabytes_per_second");
    peaks.sram_wr_gbps = PlaneDouble(space, p, "peak_sram_wr_bw_gigabytes_per_second");
    peaks.cmem_rd_gbps = PlaneDouble(space, p, "peak_cmem_rd_bw_gigabytes_per_second");
    peaks.cmem_wr_gbps = PlaneDouble(space, p, "peak_cmem_wr_bw_gigabytes_per_second");
    peaks.vmem_rd_gbps = PlaneDouble(space, p, "peak_vmem_rd_bw_gigabytes_per_second");
    peaks.vmem_wr_gbps = PlaneDouble(space, p, "peak_vmem_wr_bw_gigabytes_per_second");
    peaks.megacore = PlaneDouble(space, p, "has_megacore") > 0;
    peaks.has_merged_vmem = PlaneDouble(space, p, "has_merged_vmem") > 0;
    peaks.has_cmem = peaks.cmem_rd_gbps > 0 || peaks.cmem_wr_gbps > 0;
    return peaks;
  }
  if (gpus.empty()) return peaks;
  // The first GPU plane with capabilities speaks for all (one model per host).
  const XPlaneModel* p = gpus.front();
  for (const XPlaneModel* g : gpus) {
    if (PlaneDouble(space, *g, "core_count") > 0) {
      p = g;
      break;
    }
  }
  peaks.kind = DeviceKind::kGpu;
  peaks.device_count = static_cast<int>(gpus.size());
  std::string vendor = PlaneString(space, *p, "device_vendor");
  bool amd = vendor.find("AMD") != std::string::npos || vendor.find("amd") != std::string::npos;
  int cc_major = static_cast<int>(PlaneDouble(space, *p, "compute_cap_major"));
  int cc_minor = static_cast<int>(PlaneDouble(space, *p, "compute_cap_minor"));
  int cores = static_cast<int>(PlaneDouble(space, *p, "core_count"));
  double clock_khz = PlaneDouble(space, *p, "clock_rate");
  double bw_bytes = PlaneDouble(space, *p, "memory_bandwidth");
  double mem_bytes = PlaneDouble(space, *p, "memory_size");
  peaks.device_type = amd ? "AMD GPU" : NvidiaModelName(cc_major, cc_minor);
  const KnownGpu* known =
      MatchKnownGpu(vendor, cc_major, cc_minor, cores, mem_bytes > 0 ? mem_bytes / (1024.0 * 1024 * 1024) : -1);
  if (bw_bytes > 0) peaks.hbm_gbps = bw_bytes / 1e9;
  if (known != nullptr) {
    peaks.known_device = std::string(known->name);
    peaks.peak_tflops = known->bf16_tflops;
    if (peaks.hbm_gbps < 0) peaks.hbm_gbps = known->hbm_gbps;
  } else if (clock_khz > 0 && cores > 0) {
    double per_clock = TensorFlopsPerClockPerCore(amd, cc_major, cc_minor);
    if (per_clock > 0) peaks.peak_tflops = clock_khz * 1e3 * cores * per_clock / 1e12;
  }
  peaks.has_merged_vmem = true;  // xprof's GPU roofline: shared memory / L1 stands in as "VMEM"
  return peaks;
}

RooflineBottleneck FindRooflineBottleneck(const RooflineUse& use, const DevicePeaks& peaks) {
  RooflineBottleneck b;
  // Rates in GiB/s against peaks given in GB/s, as xprof compares them.
  const double time_ns = use.time_ps / 1e3;
  auto util = [&](double bytes, double peak_gbps) {
    return peak_gbps > 0 ? SafeDivide(GigaToGibi(SafeDivide(bytes, time_ns)), GigaToGibi(peak_gbps)) : 0.0;
  };
  double best = 0;
  auto consider = [&](double u, std::string_view resource, double bytes) {
    if (u <= best) return;  // a tie keeps the resource considered first
    best = u;
    b.resource = resource;
    b.operational_intensity = SafeDivide(use.flops, bytes);
  };
  if (peaks.peak_tflops > 0) b.flops_utilization = SafeDivide(SafeDivide(use.flops, use.time_ps), peaks.peak_tflops);
  consider(b.flops_utilization, "Compute", use.bytes);
  b.memory_utilization = util(use.hbm_bytes, peaks.hbm_gbps);
  consider(b.memory_utilization, "HBM", use.hbm_bytes);
  if (peaks.kind != DeviceKind::kTpu) return b;
  const std::pair<double, double> memories[] = {
      {use.cmem_rd, peaks.cmem_rd_gbps}, {use.cmem_wr, peaks.cmem_wr_gbps},
      {use.vmem_rd, peaks.vmem_rd_gbps}, {use.vmem_wr, peaks.vmem_wr_gbps}};
  static constexpr std::string_view kNames[] = {"CMEM Read", "CMEM Write", "VMEM Read", "VMEM Write"};
  for (size_t i = 0; i < std::size(memories); ++i) {
    if (memories[i].first <= 0) continue;
    double u = util(memories[i].first, memories[i].second);
    b.memory_utilization = std::max(b.memory_utilization, u);
    consider(u, kNames[i], memories[i].first);
  }
  return b;
}

}  // namespace tbprof
