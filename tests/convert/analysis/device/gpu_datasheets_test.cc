// The datasheet table: looked up by the names the CUDA driver gives the
// devices (as Kineto's deviceProperties and xprof's gpu_device_name carry
// them), with the dense figures of NVIDIA's datasheets typed in by hand here.
#include <gtest/gtest.h>

#include <string>

#include "convert/analysis/device/device_peaks.h"
#include "convert/analysis/device/gpu_datasheets.h"
#include "convert/kineto/kineto_reader.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"
#include "tests/convert/kineto/kineto_trace_writer.h"

namespace tbprof {
namespace {

TEST(GpuDatasheets, DriverNamesFindTheirPart) {
  const GpuDatasheet* a100 = GpuDatasheetOf("NVIDIA A100-SXM4-80GB");
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(a100->memory_gbps, 2039);
  EXPECT_EQ(a100->fp32_tflops, 19.5);
  EXPECT_EQ(a100->tf32_tflops, 156);  // 312 with sparsity
  EXPECT_EQ(a100->bf16_tflops, 312);  // 624 with sparsity
  // Older drivers leave out "NVIDIA "; case and surrounding blanks do not matter.
  const GpuDatasheet* a100_40 = GpuDatasheetOf(" a100-sxm4-40gb ");
  ASSERT_NE(a100_40, nullptr);
  EXPECT_EQ(a100_40->memory_gbps, 1555);
  ASSERT_NE(GpuDatasheetOf("NVIDIA A100 80GB PCIe"), nullptr);
  EXPECT_EQ(GpuDatasheetOf("NVIDIA A100 80GB PCIe")->memory_gbps, 1935);
  const GpuDatasheet* h100 = GpuDatasheetOf("NVIDIA H100 80GB HBM3");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->bf16_tflops, 989.5);  // 1,979 with sparsity
  EXPECT_EQ(h100->memory_gbps, 3350);
  EXPECT_EQ(GpuDatasheetOf("NVIDIA H100 PCIe")->fp16_tflops, 756.5);
  EXPECT_EQ(GpuDatasheetOf("NVIDIA H200")->memory_gbps, 4800);
  EXPECT_EQ(GpuDatasheetOf("NVIDIA B200")->bf16_tflops, 2250);
  EXPECT_EQ(GpuDatasheetOf("NVIDIA L4")->fp16_tflops, 121);
  EXPECT_EQ(GpuDatasheetOf("NVIDIA A10")->tf32_tflops, 62.5);
  // Volta and Turing: FP16 tensor cores, no TF32 or BF16 ones.
  const GpuDatasheet* v100 = GpuDatasheetOf("Tesla V100-SXM2-16GB");
  ASSERT_NE(v100, nullptr);
  EXPECT_EQ(v100->fp16_tflops, 125);
  EXPECT_LT(v100->bf16_tflops, 0);
  EXPECT_LT(v100->tf32_tflops, 0);
  EXPECT_EQ(GpuDatasheetOf("Tesla T4")->fp16_tflops, 65);
  EXPECT_EQ(GpuDatasheetOf("Tesla V100-PCIE-32GB")->fp32_tflops, 14);
}

TEST(GpuDatasheets, OtherPartsAreUnknownNotGuessed) {
  // Parts whose figures differ from their siblings' (the NVL variants), a
  // custom part no datasheet describes, other vendors, nothing.
  for (const char* name : {"NVIDIA H100 NVL", "NVIDIA H200 NVL", "NVIDIA A100-PG509-200", "NVIDIA A100",
                           "AMD Instinct MI300X", "A10G", "NVIDIA", ""}) {
    EXPECT_EQ(GpuDatasheetOf(name), nullptr) << name;
  }
}

// A PyTorch trace states the name (and no clock or bandwidth): the datasheet
// is found, the profile's own figures stay unknown.
TEST(GpuDatasheets, KinetoDevicePropertiesNameThePart) {
  testing_kineto::TraceWriter t;
  t.Properties(R"({"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85899345920, "computeMajor": 8,
                   "computeMinor": 0, "numSms": 108, "warpSize": 32})");
  t.Host("cpu_op", "aten::mm", 0, 10'000, R"("External id": 1)");
  t.Launch(1'000, 2'000, 4'000, 3'000, "gemm", 1, 1);
  auto model = ParseKinetoTrace(t.Json(), "a100.pt.trace.json");
  ASSERT_TRUE(model.ok()) << model.status().message();
  const DevicePeaks peaks = DevicePeaksOf(**model);
  EXPECT_EQ(peaks.gpu_name, "NVIDIA A100-SXM4-80GB");
  ASSERT_NE(peaks.datasheet, nullptr);
  EXPECT_EQ(peaks.datasheet->memory_gbps, 2039);
  EXPECT_LT(peaks.hbm_gbps, 0);
}

// An xplane's GPU plane names its device in gpu_device_name.
TEST(GpuDatasheets, XPlaneGpuDeviceNameNamesThePart) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 0);
  gpu.Str("gpu_device_name", "NVIDIA H100 80GB HBM3");
  gpu.Str("device_vendor", "Nvidia");
  auto model = ParseXSpace(space.SerializeAsString(), "h100.xplane.pb");
  ASSERT_TRUE(model.ok()) << model.status().message();
  const DevicePeaks peaks = DevicePeaksOf(**model);
  ASSERT_NE(peaks.datasheet, nullptr);
  EXPECT_EQ(peaks.datasheet->bf16_tflops, 989.5);
}

}  // namespace
}  // namespace tbprof
