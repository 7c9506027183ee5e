// Names the collector gives host API events, checked without a GPU: the
// "Launch Stats" line counts a launch only when its event is not named "cu…",
// which holds for TF's tracer because a launch takes its kernel's name.
#include "harness/cupti/cupti_collector.h"

#include <gtest/gtest.h>

namespace tbprof::gpu {
namespace {

TEST(ApiCallEventName, ALaunchTakesItsKernelsDemangledName) {
  EXPECT_EQ(ApiCallEventName("_Z11relu_kernelPfl", "cuLaunchKernel"), "relu_kernel(float*, long)");
}

TEST(ApiCallEventName, AKernelThatIsNoCxxSymbolKeepsItsName) {
  // cuBLAS 13's Hopper GEMMs are extern "C" kernels.
  EXPECT_EQ(ApiCallEventName("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT", "cuLaunchKernelEx"),
            "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT");
}

TEST(ApiCallEventName, OtherCallsKeepTheFunctionName) {
  EXPECT_EQ(ApiCallEventName(nullptr, "cuMemcpyHtoDAsync_v2"), "cuMemcpyHtoDAsync_v2");
  EXPECT_EQ(ApiCallEventName("", "cuMemsetD8Async"), "cuMemsetD8Async");
  EXPECT_EQ(ApiCallEventName(nullptr, nullptr), "cuUnknown");
}

TEST(Demangle, NamesThatAreNotMangledComeBackAsTheyAre) {
  EXPECT_EQ(Demangle("_Z3addPKfS0_Pfl"), "add(float const*, float const*, float*, long)");
  EXPECT_EQ(Demangle("plain_kernel"), "plain_kernel");
  EXPECT_EQ(Demangle(nullptr), "unknown kernel");
}

}  // namespace
}  // namespace tbprof::gpu
