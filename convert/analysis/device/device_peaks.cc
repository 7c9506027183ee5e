#include "convert/analysis/device/device_peaks.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <vector>

#include "convert/base/math_util.h"
#include "convert/model/schema.h"

namespace tbprof {
namespace {

// Dense FLOPs per clock per SM of each Nvidia architecture: the best of its
// FP32 and FP16 rates on CUDA cores and tensor cores (architecture white
// papers; sparsity not counted). A compute capability between two rows takes
// the older one; one older than all takes the oldest.
struct NvidiaRate {
  int cc;  // major * 10 + minor
  double flops_per_clock;
};
constexpr NvidiaRate kNvidiaRates[] = {
    {20, 64},    // Fermi: FP32
    {30, 384},   // Kepler: FP32
    {50, 256},   // Maxwell: FP32
    {60, 256},   // Pascal GP100: FP16
    {61, 256},   // Pascal GP10x: FP32
    {70, 1024},  // Volta: FP16 tensor
    {75, 1024},  // Turing: FP16 tensor
    {80, 2048},  // Ampere GA100: FP16 tensor
    {86, 1024},  // Ampere GA10x: FP16 tensor
    {89, 1024},  // Ada: FP16 tensor
    {90, 4096},  // Hopper: FP16 tensor
    {100, 8192}, // Blackwell: FP16 tensor
};

double NvidiaFlopsPerClock(int cc_major, int cc_minor) {
  const int cc = cc_major * 10 + cc_minor;
  const NvidiaRate* best = &kNvidiaRates[0];
  for (const NvidiaRate& r : kNvidiaRates) {
    if (r.cc <= cc) best = &r;
  }
  return best->flops_per_clock;
}

// Per CU per clock of the AMD Instinct architectures (CDNA white papers):
// dense FP16 matrix FLOPs (the best FP32/FP16 rate on each) and LDS bytes.
// hbm_scale: what the profile's memory_bandwidth is multiplied by to give the
// device's. ROCm reports the memory clock of HBM3 and HBM3E parts at a
// quarter of the pins' data rate, so the double-data-rate bandwidth the
// collector writes is half the real one: 2.66 TB/s on an MI300X (AMD: 5.3),
// 4.10 TB/s on an MI355X (AMD: 8.0). HBM2/HBM2e parts report it right (an
// MI250X's 3.28 TB/s).
struct AmdRate {
  std::string_view gfx;
  double flops_per_clock;
  double lds_bytes_per_clock;
  double hbm_scale;
};
constexpr AmdRate kAmdRates[] = {
    {"gfx908", 1024, 128, 1},  // CDNA 1, MI100, HBM2
    {"gfx90a", 1024, 128, 1},  // CDNA 2, MI200 (one GCD), HBM2e
    {"gfx942", 2048, 128, 2},  // CDNA 3, MI300/MI325, HBM3/HBM3E
    {"gfx950", 4096, 256, 2},  // CDNA 4, MI350, HBM3E
};

const AmdRate* AmdRateOf(std::string_view gfx) {
  for (const AmdRate& r : kAmdRates) {
    if (r.gfx == gfx) return &r;
  }
  return nullptr;
}

const Stat* PlaneStat(const XSpaceModel& space, const XPlaneModel& p, std::string_view name) {
  StrId id = space.Find(name);
  return id == kNoStr ? nullptr : p.FindPlaneStat(id);
}

double PlaneDouble(const XSpaceModel& space, const XPlaneModel& p, std::string_view name) {
  const Stat* s = PlaneStat(space, p, name);
  return s == nullptr || s->kind == StatKind::kStr || s->kind == StatKind::kBytes ? -1 : s->DoubleValue();
}

std::string PlaneString(const XSpaceModel& space, const XPlaneModel& p, std::string_view name) {
  const Stat* s = PlaneStat(space, p, name);
  return s != nullptr && s->kind == StatKind::kStr ? std::string(space.Str(s->str)) : std::string();
}

// A stated peak of 0 is no peak: the plane's writer did not know it.
double Stated(double v) { return v > 0 ? v : -1; }

}  // namespace

std::string_view AmdGfxVersion(std::string_view device_name, int cc_major, int cc_minor) {
  // ROCm's collector writes the agent name: "gfx" and at least three hex
  // digits (major, minor, stepping). Any other form is not trusted.
  bool well_formed = device_name.size() >= 6 && device_name.substr(0, 3) == "gfx" &&
                     std::all_of(device_name.begin() + 3, device_name.end(),
                                 [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
  if (well_formed) return device_name;
  if (cc_major == 9 && cc_minor == 4) return "gfx942";
  if (cc_major == 9 && cc_minor == 5) return "gfx950";
  return {};
}

std::string GpuModelName(std::string_view vendor, int major, int minor, std::string_view device_name) {
  if (vendor == schema::kVendorNvidia) {
    switch (major) {
      case 2: return "Nvidia GPU (Fermi)";
      case 3: return "Nvidia GPU (Kepler)";
      case 5: return "Nvidia GPU (Maxwell)";
      case 6: return "Nvidia GPU (Pascal)";
      case 7: return minor < 5 ? "Nvidia GPU (Volta)" : "Nvidia GPU (Turing)";
      case 8: return minor < 9 ? "Nvidia GPU (Ampere)" : "Nvidia GPU (Ada Lovelace)";
      case 9: return "Nvidia GPU (Hopper)";
      case 10: return "Nvidia GPU (Blackwell)";
      default: return "Nvidia GPU";
    }
  }
  if (vendor == schema::kVendorAmd) {
    // The architecture the device name or the compute capability identifies
    // (the one the peak FLOP rate is looked up by), else the family.
    std::string_view gfx = AmdGfxVersion(device_name, major, minor);
    if (!gfx.empty()) return "AMD GPU - " + std::string(gfx);
    switch (major) {
      case 9: return "AMD GPU - gfx-9XX series";
      case 10: return "AMD GPU - gfx-10XX series";
      case 11: return "AMD GPU - gfx-11XX series";
      default: return "AMD GPU";
    }
  }
  return "";
}

DevicePeaks GpuPeaks(const GpuCapabilities& caps) {
  DevicePeaks peaks;
  peaks.kind = DeviceKind::kGpu;
  // xprof's GPU roofline: no megacore, no CMEM; shared memory / L1 stands in as "VMEM".
  peaks.has_merged_vmem = true;
  double flops_per_clock = -1, shm_bytes_per_clock = -1, hbm_scale = 1;
  if (caps.vendor == schema::kVendorNvidia) {
    flops_per_clock = NvidiaFlopsPerClock(caps.cc_major, caps.cc_minor);
    // 32 banks of 8 bytes a clock (Fermi: 4 bytes every other clock).
    shm_bytes_per_clock = caps.cc_major <= 2 ? 64 : 256;
  } else if (caps.vendor == schema::kVendorAmd) {
    if (const AmdRate* r = AmdRateOf(AmdGfxVersion(caps.device_name, caps.cc_major, caps.cc_minor))) {
      flops_per_clock = r->flops_per_clock;
      shm_bytes_per_clock = r->lds_bytes_per_clock;
      hbm_scale = r->hbm_scale;
    }
  }
  const bool clocked = caps.clock_khz > 0 && caps.cores > 0;
  const double giga_clocks = clocked ? caps.clock_khz * 1e3 * caps.cores / 1e9 : -1;  // 10^9 core-clocks per second
  peaks.peak_tflops = Stated(caps.peak_tflops);
  if (peaks.peak_tflops < 0 && clocked && flops_per_clock > 0) peaks.peak_tflops = giga_clocks * flops_per_clock / 1e3;
  const double shm_gbps = clocked && shm_bytes_per_clock > 0 ? giga_clocks * shm_bytes_per_clock : -1;
  peaks.sram_rd_gbps = Stated(caps.sram_rd_gbps) > 0 ? caps.sram_rd_gbps : shm_gbps;
  peaks.sram_wr_gbps = Stated(caps.sram_wr_gbps) > 0 ? caps.sram_wr_gbps : shm_gbps;
  if (caps.memory_bandwidth > 0) peaks.hbm_gbps = caps.memory_bandwidth * hbm_scale / 1e9;
  return peaks;
}

DevicePeaks DevicePeaksOf(const XSpaceModel& space) {
  DevicePeaks peaks;
  std::vector<const XPlaneModel*> tpus = space.FindPlanesWithPrefix("/device:TPU:");
  std::vector<const XPlaneModel*> gpus = space.FindPlanesWithPrefix("/device:GPU:");
  if (!tpus.empty()) {
    const XPlaneModel& p = *tpus.front();
    peaks.kind = DeviceKind::kTpu;
    peaks.device_count = static_cast<int>(tpus.size());
    peaks.device_type = PlaneString(space, p, schema::kDeviceTypeString);
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
  GpuCapabilities caps;
  caps.vendor = PlaneString(space, *p, schema::kDeviceVendor);
  caps.device_name = PlaneString(space, *p, schema::kGpuDeviceName);
  caps.cc_major = static_cast<int>(PlaneDouble(space, *p, schema::kComputeCapMajor));
  caps.cc_minor = static_cast<int>(PlaneDouble(space, *p, schema::kComputeCapMinor));
  // Collectors before the vendor stat were CUDA's only (a compute capability is CUDA's notion).
  if (caps.vendor.empty() && caps.cc_major > 0) caps.vendor = schema::kVendorNvidia;
  caps.cores = static_cast<int>(PlaneDouble(space, *p, "core_count"));
  caps.clock_khz = PlaneDouble(space, *p, "clock_rate");
  caps.memory_bandwidth = PlaneDouble(space, *p, "memory_bandwidth");
  caps.peak_tflops = PlaneDouble(space, *p, "peak_teraflops_per_second");
  caps.sram_rd_gbps = PlaneDouble(space, *p, "peak_sram_rd_bw_gigabytes_per_second");
  caps.sram_wr_gbps = PlaneDouble(space, *p, "peak_sram_wr_bw_gigabytes_per_second");
  peaks = GpuPeaks(caps);
  peaks.device_count = static_cast<int>(gpus.size());
  peaks.gpu_name = caps.device_name;
  peaks.datasheet = GpuDatasheetOf(caps.device_name);
  std::string model = GpuModelName(caps.vendor, caps.cc_major, caps.cc_minor, caps.device_name);
  peaks.device_type = model.empty() ? "GPU" : model;
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
  if (peaks.kind == DeviceKind::kGpu) {
    // Only the HBM traffic is known on a GPU; against the shared memory's
    // far higher peak it wins only where the HBM peak is unknown.
    consider(util(use.hbm_bytes, peaks.sram_wr_gbps), "Shm/L1", use.hbm_bytes);
  } else if (peaks.kind == DeviceKind::kTpu) {
    struct OnChip {
      double bytes, peak_gbps;
      std::string_view name;
      bool counts_in_efficiency;
    };
    const bool vmem_counts = peaks.has_merged_vmem && !peaks.has_cmem;
    const OnChip memories[] = {{use.cmem_rd, peaks.cmem_rd_gbps, "CMEM Read", peaks.has_cmem},
                               {use.cmem_wr, peaks.cmem_wr_gbps, "CMEM Write", peaks.has_cmem},
                               {use.vmem_rd, peaks.vmem_rd_gbps, "VMEM Read", vmem_counts},
                               {use.vmem_wr, peaks.vmem_wr_gbps, "VMEM Write", vmem_counts}};
    for (const OnChip& m : memories) {
      if (m.bytes <= 0) continue;
      double u = util(m.bytes, m.peak_gbps);
      if (m.counts_in_efficiency) b.memory_utilization = std::max(b.memory_utilization, u);
      consider(u, m.name, m.bytes);
    }
  }
  // xprof counts an unknown figure as 0 and names another resource, which
  // may be wrong: an unknown figure is a lower bound, so only FLOPs whose
  // lower bound already beats every memory tell the answer.
  if (!use.bytes_known || (!use.flops_known && b.resource != "Compute")) {
    b.resource = "Unknown", b.operational_intensity = 0;
  }
  return b;
}

}  // namespace tbprof
