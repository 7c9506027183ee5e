// Device peaks as xprof derives them: xprof's HardwareTypeUtilsTest cases
// ported (the same device capabilities in, the figures its tests expect out),
// then the roofline table's device properties and bound-by on GPUs and TPUs,
// with figures worked out by hand below each case.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "convert/analysis/device/device_peaks.h"
#include "convert/analysis/hlo/roofline.h"
#include "convert/analysis/hlo/xspace_to_hlo_stats.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace json = boost::json;

GpuCapabilities Nvidia(int major, int minor, int sms, double clock_ghz) {
  GpuCapabilities caps;
  caps.vendor = "Nvidia";
  caps.cc_major = major, caps.cc_minor = minor;
  caps.cores = sms;
  caps.clock_khz = clock_ghz * 1e6;
  return caps;
}

GpuCapabilities Amd(std::string device_name, int cus, double clock_ghz) {
  GpuCapabilities caps;
  caps.vendor = "AMD";
  caps.device_name = std::move(device_name);
  caps.cores = cus;
  caps.clock_khz = clock_ghz * 1e6;
  return caps;
}

// xprof: HardwareTypeUtilsTest.B200PeakComputTFlops, FutureBlackwellPeakComputTFlops
// (10.9 falls back to 10.0), H100PeakComputTFlops, A100PeakComputTFlops.
TEST(XprofHardwareTypePort, NvidiaPeakFlopRates) {
  EXPECT_NEAR(GpuPeaks(Nvidia(10, 0, 148, 1.830)).peak_tflops, 2218, 1.0);
  EXPECT_NEAR(GpuPeaks(Nvidia(10, 9, 148, 1.830)).peak_tflops, 2218, 1.0);
  EXPECT_NEAR(GpuPeaks(Nvidia(9, 0, 114, 1.620)).peak_tflops, 756, 1.0);
  EXPECT_NEAR(GpuPeaks(Nvidia(8, 0, 108, 1.410)).peak_tflops, 312, 1.0);
}

// xprof: HardwareTypeUtilsTest.Mi300XPeakComputeTFlops, Mi100PeakComputeTFlops,
// Mi250PeakComputeTFlopsPerGcd, Mi355XPeakComputeTFlops.
TEST(XprofHardwareTypePort, AmdPeakFlopRates) {
  EXPECT_NEAR(GpuPeaks(Amd("gfx942", 304, 2.1)).peak_tflops, 1307.4, 1.0);
  EXPECT_NEAR(GpuPeaks(Amd("gfx908", 120, 1.502)).peak_tflops, 184.6, 1.0);
  EXPECT_NEAR(GpuPeaks(Amd("gfx90a", 104, 1.7)).peak_tflops, 181.0, 1.0);
  EXPECT_NEAR(GpuPeaks(Amd("gfx950", 256, 2.4)).peak_tflops, 2516.6, 1.0);
}

// xprof: HardwareTypeUtilsTest.AmbiguousAmdComputeCapabilityReportsNoPeak and
// SharedMemoryBandwidthUnknownAmdArchReportsNothing: 9.0 is gfx908 or gfx90a.
// xprof reports 0; tbprof leaves the figures unknown.
TEST(XprofHardwareTypePort, AmbiguousAmdArchitectureHasNoPeaks) {
  GpuCapabilities caps = Amd("", 104, 1.7);
  caps.cc_major = 9, caps.cc_minor = 0;
  DevicePeaks peaks = GpuPeaks(caps);
  EXPECT_LT(peaks.peak_tflops, 0);
  EXPECT_LT(peaks.sram_wr_gbps, 0);
}

// xprof: HardwareTypeUtilsTest.Mi300XSharedMemoryBandwidth,
// Mi355XSharedMemoryBandwidthDoubles, SharedMemoryBandwidthFromComputeCapability.
TEST(XprofHardwareTypePort, AmdLdsBandwidth) {
  EXPECT_NEAR(GpuPeaks(Amd("gfx942", 304, 2.1)).sram_wr_gbps, 81715.2, 1.0);
  EXPECT_NEAR(GpuPeaks(Amd("gfx950", 256, 2.4)).sram_wr_gbps, 157286.4, 1.0);
  GpuCapabilities by_cc = Amd("", 304, 2.1);
  by_cc.cc_major = 9, by_cc.cc_minor = 4;
  EXPECT_NEAR(GpuPeaks(by_cc).sram_rd_gbps, 81715.2, 1.0);
}

// xprof: HardwareTypeUtilsTest.GpuModelNameReportsAmdArchFromDeviceName,
// GpuModelNameRejectsMalformedAmdDeviceName (a HIP target id with features is
// not the agent name ROCm's collector writes), GpuModelNameResolvesAmdArchFromComputeCapability.
TEST(XprofHardwareTypePort, AmdModelNames) {
  EXPECT_EQ(GpuModelName("AMD", 0, 0, "gfx950"), "AMD GPU - gfx950");
  EXPECT_EQ(GpuModelName("AMD", 0, 0, "gfx942:sramecc+:xnack-"), "AMD GPU");
  EXPECT_EQ(GpuModelName("AMD", 9, 4, ""), "AMD GPU - gfx942");
}

// Shared memory of an Nvidia SM: 32 banks x 8 bytes a clock. H100 SXM at
// 1.98 GHz with 132 SMs: 256 x 132 x 1.98 = 66908.16 GB/s; the peak FLOP rate
// 4096 x 132 x 1.98 = 1070.53056 TFLOP/s. A plane that states its peaks keeps them.
TEST(DevicePeaks, NvidiaSharedMemoryAndStatedPeaks) {
  GpuCapabilities caps = Nvidia(9, 0, 132, 1.98);
  DevicePeaks derived = GpuPeaks(caps);
  EXPECT_NEAR(derived.peak_tflops, 1070.53056, 1e-6);
  EXPECT_NEAR(derived.sram_rd_gbps, 66908.16, 1e-6);
  EXPECT_NEAR(derived.sram_wr_gbps, 66908.16, 1e-6);
  EXPECT_LT(derived.hbm_gbps, 0);  // no memory_bandwidth in the profile: unknown
  caps.peak_tflops = 989, caps.sram_wr_gbps = 30000, caps.memory_bandwidth = 3.35e12;
  DevicePeaks stated = GpuPeaks(caps);
  EXPECT_DOUBLE_EQ(stated.peak_tflops, 989);
  EXPECT_DOUBLE_EQ(stated.sram_wr_gbps, 30000);
  EXPECT_NEAR(stated.sram_rd_gbps, 66908.16, 1e-6);
  EXPECT_DOUBLE_EQ(stated.hbm_gbps, 3350);
  // A vendor neither Nvidia nor AMD has no known rates.
  caps = Nvidia(9, 0, 132, 1.98);
  caps.vendor = "Intel";
  EXPECT_LT(GpuPeaks(caps).peak_tflops, 0);
}

// The roofline's GPU device properties: the shared memory peak as VMEM write,
// with its ridge point. H100 at 1.98 GHz: 66908.16 GB/s = 66908.16e9 / 2^30
// GiB/s; ridge 1070.53056e12 / 66908.16e9 = 4096 / 256 = 16 FLOP/byte.
TEST(DevicePeaks, RooflineGpuPropertiesHaveTheSharedMemoryRoof) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 1);
  gpu.Str("device_vendor", "Nvidia").Int("compute_cap_major", 9).Int("compute_cap_minor", 0);
  gpu.Int("core_count", 132).Int("clock_rate", 1980000).Int("memory_bandwidth", 3350000000000LL);
  auto model = ParseXSpace(space.SerializeAsString(), "test");
  ASSERT_TRUE(model.ok()) << model.status().message();
  HloOpDb db = ConvertXSpaceToHloOpDb(**model);
  json::value tables = json::parse(ConvertHloOpDbToRooflineJson(db));
  const json::object& p = tables.as_array()[0].at("p").as_object();
  auto number = [&](const char* key) { return std::stod(std::string(p.at(key).as_string())); };
  EXPECT_EQ(p.at("device_type").as_string(), "Nvidia GPU (Hopper)");
  EXPECT_NEAR(number("peak_vmem_write_bw"), 66908.16e9 / (1024.0 * 1024 * 1024), 1e-6);
  EXPECT_NEAR(number("vmem_write_ridge_point"), 16, 1e-9);
  EXPECT_NEAR(number("hbm_ridge_point"), 1070.53056e12 / 3350e9, 1e-9);
  // No table of known GPUs any more: the diagnostics table is empty.
  EXPECT_TRUE(tables.as_array()[1].at("rows").as_array().empty());
}

// 1 ms of an op with `flops` and `bytes`, all of them HBM traffic.
RooflineUse OneMillisecond(double flops, double bytes) {
  RooflineUse use;
  use.time_ps = 1e9, use.flops = flops, use.bytes = use.hbm_bytes = bytes;
  return use;
}

DevicePeaks Gpu(double tflops, double hbm_gbps) {
  DevicePeaks gpu;
  gpu.kind = DeviceKind::kGpu;
  gpu.peak_tflops = tflops, gpu.hbm_gbps = hbm_gbps;
  return gpu;
}

// xprof's bound-by on a GPU also weighs the HBM traffic against the shared
// memory peak ("Shm/L1"); with the HBM peak known it never wins (the shared
// memory is faster), without it it does. 1 ms, 4e8 bytes = 400 GB/s of a
// 1000 GB/s shared memory: 0.4, above the 0.1 of 10 TFLOP/s against 100.
TEST(RooflineBottleneck, GpuSharedMemoryCompetesWithTheHbmTraffic) {
  DevicePeaks gpu = Gpu(100, -1);
  gpu.sram_wr_gbps = 1000;
  const RooflineUse use = OneMillisecond(1e10, 4e8);
  RooflineBottleneck b = FindRooflineBottleneck(use, gpu);
  EXPECT_EQ(b.resource, "Shm/L1");
  EXPECT_DOUBLE_EQ(b.operational_intensity, 25);  // 1e10 / 4e8
  EXPECT_DOUBLE_EQ(b.memory_utilization, 0);      // the roofline efficiency counts HBM only
  gpu.hbm_gbps = 500;                             // 0.8 of HBM beats 0.4 of the shared memory
  EXPECT_EQ(FindRooflineBottleneck(use, gpu).resource, "HBM");
}

// xprof counts a TPU's CMEM in the roofline efficiency only when the chip has
// CMEM, its VMEM only when merged and without CMEM; the bound-by weighs every
// on-chip memory with traffic and a peak. 1 ms: 3.6e9 VMEM bytes written of a
// 4000 GB/s peak is 0.9; HBM 4e8 of 1000 GB/s is 0.4.
TEST(RooflineBottleneck, TpuOnChipMemoriesInTheEfficiency) {
  DevicePeaks tpu;
  tpu.kind = DeviceKind::kTpu;
  tpu.peak_tflops = 100, tpu.hbm_gbps = 1000, tpu.cmem_rd_gbps = 2000, tpu.vmem_wr_gbps = 4000;
  tpu.has_cmem = true, tpu.has_merged_vmem = true;
  RooflineUse use = OneMillisecond(1e10, 4e8);
  use.vmem_wr = 3.6e9;
  RooflineBottleneck b = FindRooflineBottleneck(use, tpu);
  EXPECT_EQ(b.resource, "VMEM Write");
  EXPECT_DOUBLE_EQ(b.memory_utilization, 0.4);  // a chip with CMEM: VMEM not counted
  tpu.has_cmem = false;
  EXPECT_DOUBLE_EQ(FindRooflineBottleneck(use, tpu).memory_utilization, 0.9);
}

// An unknown figure is a lower bound (the known parts' sum): it decides the
// bound only where it already wins. 1 ms on a 100 TFLOP/s, 1000 GB/s GPU:
// at least 2e10 FLOPs (0.2) against 4e8 HBM bytes (0.4) could be either;
// at least 6e10 (0.6) is compute whatever the rest; unknown bytes never tell.
TEST(RooflineBottleneck, UnknownFiguresDecideOnlyWhereTheirLowerBoundWins) {
  const DevicePeaks gpu = Gpu(100, 1000);
  RooflineUse use = OneMillisecond(2e10, 4e8);
  EXPECT_EQ(FindRooflineBottleneck(use, gpu).resource, "HBM");
  use.flops_known = false;
  RooflineBottleneck b = FindRooflineBottleneck(use, gpu);
  EXPECT_EQ(b.resource, "Unknown");
  EXPECT_DOUBLE_EQ(b.memory_utilization, 0.4);  // the known figure's utilisation stays
  use.flops = 6e10;
  EXPECT_EQ(FindRooflineBottleneck(use, gpu).resource, "Compute");
  use.flops_known = true, use.bytes_known = false;
  EXPECT_EQ(FindRooflineBottleneck(use, gpu).resource, "Unknown");
}

// The HBM peak of AMD's HBM3 parts is twice the bandwidth their profiles
// state (ROCm's memory clock is a quarter of the pins' data rate there):
// against AMD's data sheets, 5.3 TB/s for the MI300X and 8.0 TB/s for the
// MI355X, both real profiles.
TEST(DevicePeaks, AmdHbm3PeaksAsTheDataSheetsGiveThem) {
  const std::vector<std::pair<std::string, double>> sheets = {{"jax_rocm_mi300_gemm", 5300},
                                                              {"jax_rocm_mi355_fused_attn", 8000}};
  int checked = 0;
  for (const std::string& path : test_files::RealXPlaneFiles()) {
    for (const auto& [dir, gbps] : sheets) {
      if (path.find("/" + dir + "/") == std::string::npos) continue;
      auto model = LoadXSpaceFile(path);
      ASSERT_TRUE(model.ok()) << model.status().message();
      const DevicePeaks peaks = DevicePeaksOf(**model);
      EXPECT_NEAR(peaks.hbm_gbps, gbps, 0.025 * gbps) << path;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2) << "profiles under " << test_files::RealXPlaneDir();
  // An MI250X-class part (gfx90a, HBM2e) states its bandwidth right.
  GpuCapabilities mi250;
  mi250.vendor = "AMD", mi250.device_name = "gfx90a", mi250.memory_bandwidth = 1.6384e12;
  EXPECT_DOUBLE_EQ(GpuPeaks(mi250).hbm_gbps, 1638.4);
}

}  // namespace
}  // namespace tbprof
