// kernel_stats' TensorCore rules (kernel names and op names).
#include <gtest/gtest.h>

#include "convert/analysis/tf_op_utils.h"

namespace tbprof {
namespace {

TEST(TfOpUtils, TensorCoreKernelNamesFollowTheReferencePatterns) {
  EXPECT_TRUE(IsKernelUsingTensorCore("sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4"));
  EXPECT_TRUE(IsKernelUsingTensorCore("volta_h884gemm_64x64_ldg8_nn"));
  EXPECT_TRUE(IsKernelUsingTensorCore("turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn"));
  EXPECT_TRUE(IsKernelUsingTensorCore("ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_nn"));
  EXPECT_TRUE(IsKernelUsingTensorCore("void tbprof::gpu::hmma_gemm_wmma<__half>(__half const*, int)"));
  EXPECT_FALSE(IsKernelUsingTensorCore("ampere_sgemm_128x64_nn"));
  EXPECT_FALSE(IsKernelUsingTensorCore("void tbprof::gpu::sgemm_simt_tiled(float const*, int)"));
  EXPECT_FALSE(IsKernelUsingTensorCore("void tbprof::gpu::relu_kernel(float*, long)"));
  // Hopper cuBLAS "nvjet" kernels match none of the patterns.
  EXPECT_FALSE(IsKernelUsingTensorCore("nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NNN"));
}

TEST(TfOpUtils, OpEligibilityFollowsTheReferenceRule) {
  EXPECT_TRUE(IsOpTensorCoreEligible("model/dense/MatMul"));
  EXPECT_TRUE(IsOpTensorCoreEligible("model/attn/BatchMatMulV2"));
  EXPECT_TRUE(IsOpTensorCoreEligible("model/conv1/Conv2D"));
  EXPECT_TRUE(IsOpTensorCoreEligible("model/dense/FusedMatMul"));
  EXPECT_FALSE(IsOpTensorCoreEligible("MatMul"));  // EndsWith "/MatMul" needs the slash
  EXPECT_FALSE(IsOpTensorCoreEligible("model/relu"));
  EXPECT_FALSE(IsOpTensorCoreEligible("model/add"));
}

}  // namespace
}  // namespace tbprof
