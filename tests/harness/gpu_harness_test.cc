// The harness's kernel rows read back from a profile, and its no-GPU behaviour.
#include <gtest/gtest.h>

#include <filesystem>

#include "convert/xplane/xspace_reader.h"
#include "harness/cupti/cupti_loader.h"
#include "harness/cupti/cupti_xplane.h"
#include "harness/gpu_harness.h"

namespace tbprof::gpu {
namespace {

TEST(GpuHarness, KernelRowsReadBackFromAWrittenProfile) {
  GpuTrace t;
  t.start_gpu_ns = 1000;
  auto kernel = [&](const char* name, uint32_t corr, uint64_t start, uint64_t end) {
    KernelRecord k;
    k.name = name;
    k.correlation_id = corr;
    k.start_ns = start;
    k.end_ns = end;
    k.stream_id = 13;
    t.kernels.push_back(k);
  };
  kernel("void hmma_gemm_wmma<__half>()", 1, 2000, 5000);
  kernel("void relu_kernel()", 2, 6000, 6500);
  kernel("void warmup_kernel()", 3, 7000, 7100);  // no launch annotation
  auto launch = [&](uint32_t corr, const char* op) {
    ApiCallRecord c;
    c.name = "cuLaunchKernel";
    c.correlation_id = corr;
    c.annotation = op;
    t.api_calls.push_back(c);
  };
  launch(1, "model/dense/MatMul:MatMul");
  launch(2, "model/relu:Relu");
  launch(3, "");
  tensorflow::profiler::XSpace space;
  AddGpuTraceToXSpace(t, space);
  auto model = ParseXSpace(space.SerializeAsString(), "test");
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto rows = KernelRowsFromModel(**model);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "void hmma_gemm_wmma<__half>()");
  EXPECT_EQ(rows[0].op_name, "model/dense/MatMul");
  EXPECT_EQ(rows[0].duration_ps, 3'000'000);
  EXPECT_EQ(rows[0].correlation_id, 1u);
  EXPECT_EQ(rows[0].stream_id, 13);
  EXPECT_TRUE(rows[0].uses_tensor_core);
  EXPECT_TRUE(rows[0].op_eligible);
  EXPECT_EQ(rows[1].op_name, "model/relu");
  EXPECT_FALSE(rows[1].uses_tensor_core);
  EXPECT_FALSE(rows[1].op_eligible);
  EXPECT_EQ(rows[2].op_name, "");
  EXPECT_FALSE(rows[2].op_eligible);
}

TEST(GpuHarness, WithoutAGpuItSaysSoAndExitsThree) {
  if (ProbeGpu().ok()) GTEST_SKIP() << "a GPU is present; the no-GPU path cannot be exercised here";
  GpuHarnessOptions options;
  options.iters = 1;
  testing::internal::CaptureStderr();
  const int rc = RunGpuHarness(options);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, kExitNoGpu);
  EXPECT_TRUE(err.find("no GPU available") != std::string::npos ||
              err.find("built without CUDA") != std::string::npos)
      << err;
  EXPECT_NE(err.find("nothing was run"), std::string::npos) << err;
}

#ifdef TBPROF_HAVE_GPU_HARNESS
TEST(GpuDevice, HarnessCheckPassesOnARealGpu) {
  auto probe = ProbeGpu();
  if (!probe.ok()) GTEST_SKIP() << "no GPU on this machine: " << probe.status().message();
  GpuHarnessOptions options;
  options.logdir = testing::TempDir() + "/tbprof_gpu_test_logdir";
  options.check = true;
  EXPECT_EQ(RunGpuHarness(options), 0);
}

// Untraced, the workloads run and report their CUDA-event rates, and no
// profile is written.
TEST(GpuDevice, HarnessRunsUntracedForAnotherProfiler) {
  auto probe = ProbeGpu();
  if (!probe.ok()) GTEST_SKIP() << "no GPU on this machine: " << probe.status().message();
  const std::string logdir = testing::TempDir() + "/tbprof_gpu_untraced_logdir";
  std::filesystem::remove_all(logdir);
  GpuHarnessOptions options;
  options.untraced = true;
  options.workload = "bf16_tc_gemm";
  options.iters = 2;
  options.logdir = logdir;
  testing::internal::CaptureStdout();
  EXPECT_EQ(RunGpuHarness(options), 0);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("bf16_tc_gemm"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(logdir));
}
#endif

}  // namespace
}  // namespace tbprof::gpu
