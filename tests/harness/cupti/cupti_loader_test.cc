// Run-time loading errors of the CUDA driver / CUPTI, and GPU-only checks
// that skip on machines without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "harness/cupti/cupti_collector.h"
#include "harness/cupti/cupti_loader.h"

namespace tbprof::gpu {
namespace {

TEST(GpuLoader, MissingLibraryNamesEveryCandidateAndPurpose) {
  auto lib = DynamicLibrary::Open({"/nonexistent/libcupti.so.13", "libtbprof_no_such_lib.so"}, "CUPTI (test)");
  ASSERT_FALSE(lib.ok());
  const std::string& m = lib.status().message();
  EXPECT_EQ(lib.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(m.find("CUPTI (test) not found"), std::string::npos) << m;
  EXPECT_NE(m.find("/nonexistent/libcupti.so.13"), std::string::npos) << m;
  EXPECT_NE(m.find("libtbprof_no_such_lib.so"), std::string::npos) << m;
}

TEST(GpuLoader, ProbeWithoutDriverSaysNoGpuDriver) {
  auto probe = ProbeGpu({"/nonexistent/libcuda.so.1"});
  ASSERT_FALSE(probe.ok());
  EXPECT_NE(probe.status().message().find("no GPU driver"), std::string::npos) << probe.status().message();
}

TEST(GpuLoader, ALibraryThatIsNotTheDriverIsRejected) {
  // libc loads but has no cuInit: the probe must say so, not crash.
  auto probe = ProbeGpu({"libc.so.6"});
  ASSERT_FALSE(probe.ok());
  EXPECT_NE(probe.status().message().find("not a CUDA driver"), std::string::npos) << probe.status().message();
}

TEST(GpuLoader, TheToolkitsDriverStubIsNotAGpu) {
  const std::string stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!std::filesystem::exists(stub)) GTEST_SKIP() << "no CUDA toolkit stub at " << stub;
  auto probe = ProbeGpu({stub});
  ASSERT_FALSE(probe.ok());
  const std::string& m = probe.status().message();
  EXPECT_NE(m.find("cuInit failed: CUDA_ERROR_STUB_LIBRARY (34)"), std::string::npos) << m;
  EXPECT_NE(m.find("no usable GPU"), std::string::npos) << m;
}

TEST(GpuLoader, EnvironmentOverridesCandidates) {
  setenv("TBPROF_CUPTI_LIBRARY", "/opt/x/libcupti.so", 1);
  auto c = CuptiLibraryCandidates();
  unsetenv("TBPROF_CUPTI_LIBRARY");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0], "/opt/x/libcupti.so");
  EXPECT_GT(CuptiLibraryCandidates().size(), 1u);
}

TEST(GpuLoader, CollectorWithMissingCuptiExplainsItself) {
  setenv("TBPROF_CUPTI_LIBRARY", "/nonexistent/libcupti.so", 1);
  auto c = CuptiCollector::Start();
  unsetenv("TBPROF_CUPTI_LIBRARY");
  ASSERT_FALSE(c.ok());
  const std::string& m = c.status().message();
  // Whichever comes first on this machine: no build support, no GPU, or no CUPTI.
  const bool explained = m.find("without the CUDA toolkit") != std::string::npos ||
                         m.find("no GPU") != std::string::npos || m.find("no usable GPU") != std::string::npos ||
                         m.find("CUPTI (libcupti.so") != std::string::npos;
  EXPECT_TRUE(explained) << m;
}

#ifdef TBPROF_HAVE_GPU_HARNESS
TEST(GpuLoader, RealCuptiResolvesEveryEntryPointWithoutAGpu) {
  auto info = DescribeCuptiLibrary();
  if (!info.ok()) GTEST_SKIP() << "no CUPTI library here: " << info.status().message();
  EXPECT_NE(info->find("libcupti"), std::string::npos) << *info;
  EXPECT_NE(info->find("CUPTI API version 13"), std::string::npos) << *info;
}
#endif

TEST(GpuDevice, CollectorTracesOnARealGpu) {
  auto probe = ProbeGpu();
  if (!probe.ok()) GTEST_SKIP() << "no GPU on this machine: " << probe.status().message();
  auto c = CuptiCollector::Start();
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto trace = (*c)->Stop();
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_FALSE(trace->devices.empty());
  EXPECT_GE(trace->devices[0].compute_cap_major, 7);
  EXPECT_GT(trace->devices[0].core_count, 0);
  EXPECT_GT(trace->devices[0].memory_bandwidth, 0u);
}

}  // namespace
}  // namespace tbprof::gpu
