// kernel_stats' TensorCore rules (kernel names and op names).
#include <gtest/gtest.h>

#include "convert/analysis/op_names/tf_op_utils.h"

namespace tbprof {
namespace {

TEST(TfOpUtils, TensorCoreKernelNamesFollowTheReferencePatterns) {
  for (const char* uses :
       {"sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4", "volta_h884gemm_64x64_ldg8_nn",
        "turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn", "ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_nn",
        "void tbprof::gpu::hmma_gemm_wmma<__half>(__half const*, int)",
        // xprof's list (Volta/Turing era) says no here; Hopper and Blackwell cuBLAS
        // run their tensor-op GEMMs as "nvjet" kernels, so tbprof says yes.
        "nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NNN"}) {
    EXPECT_TRUE(IsKernelUsingTensorCore(uses)) << uses;
  }
  for (const char* not_tc : {"ampere_sgemm_128x64_nn", "void tbprof::gpu::sgemm_simt_tiled(float const*, int)",
                             "void tbprof::gpu::relu_kernel(float*, long)"}) {
    EXPECT_FALSE(IsKernelUsingTensorCore(not_tc)) << not_tc;
  }
}

TEST(TfOpUtils, OpEligibilityFollowsTheReferenceRule) {
  for (const char* eligible :
       {"model/dense/MatMul", "model/attn/BatchMatMulV2", "model/conv1/Conv2D", "model/dense/FusedMatMul"}) {
    EXPECT_TRUE(IsOpTensorCoreEligible(eligible)) << eligible;
  }
  // "MatMul" alone: the rule ends with "/MatMul", which needs the slash.
  for (const char* not_eligible : {"MatMul", "model/relu", "model/add"}) {
    EXPECT_FALSE(IsOpTensorCoreEligible(not_eligible)) << not_eligible;
  }
}

// Name fragments each rule keys on, and near misses.
TEST(TfOpUtils, TensorCoreRulesMatchOnNameFragments) {
  for (const char* k : {"volta_h884gemm", "turing_s1688cudnn", "ampere_16816gemm", "sm90_xmma_gemm_f16", "hmma_x"}) {
    EXPECT_TRUE(IsKernelUsingTensorCore(k)) << k;
  }
  EXPECT_FALSE(IsKernelUsingTensorCore("volta_sgemm_128x64_nn"));
  for (const char* op : {"a/Conv2DBackpropFilter", "a/BatchMatMulV2/x"}) EXPECT_TRUE(IsOpTensorCoreEligible(op)) << op;
  EXPECT_FALSE(IsOpTensorCoreEligible("a/MatMulx"));
  // An einsum is eligible when it multiplies exactly two operands.
  EXPECT_TRUE(IsEinsumTensorCoreEligible("ab,bc->ac"));
  for (const char* eq : {"ab,bc,cd->ad", "ab->ba", ""}) EXPECT_FALSE(IsEinsumTensorCoreEligible(eq)) << eq;
}

// Kernel names from real profiles: PyTorch/Kineto traces on H100 and B200
// (testdata kineto_nvidia: cuBLAS, CUTLASS, flash attention, TensorRT-LLM) and
// the JAX profiles on AMD MI300X/MI355 (hipBLASLt Tensile, XLA Triton GEMM,
// composable kernel). Which of them run on TensorCores/Matrix Cores is known
// from the library: xmma/nvjet/tensorop/wmma/gmma/MFMA kernels do, elementwise
// and SIMT kernels do not.
TEST(TfOpUtils, TensorCoreKernelsOfTodaysLibraries) {
  for (const char* uses : {
           "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
           "kernel__5x_cublas",
           "nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT",
           "nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN",
           "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>("
           "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
           "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8>("
           "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8::Params)",
           "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, "
           "false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, "
           "false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
           "bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_"
           "schedP2x1x2x3_biasM_bN_tmaOpt_clmp_dynBatch_sm100f",
           "fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext",
           "Cijk_Ailk_Bljk_BBS_BH_MT256x224x64_MI16x16x16x1_SN_1LDSB1_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE.kd",
           "gemm_fusion_dot_general_1.kd",
       }) {
    EXPECT_TRUE(IsKernelUsingTensorCore(uses)) << uses;
  }
  for (const char* not_tc : {
           "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(cutlass_80_simt_sgemm_128x32_8x5_nn_"
           "align1::Params)",
           "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
           "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
           "void vllm::rms_norm_kernel<c10::BFloat16, 8, 2>(c10::BFloat16*, c10::BFloat16 const*, long, long, long, "
           "long, long, c10::BFloat16 const*, float, int, int)",
           "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
           "triton_poi_fused_add_bitwise_and_bitwise_not_bitwise_or_ge_lt_mul_sub_0",
           "wrapped_broadcast.kd",
           "__amd_rocclr_copyBuffer.kd",
       }) {
    EXPECT_FALSE(IsKernelUsingTensorCore(not_tc)) << not_tc;
  }
}

// Every rule of the table matches the kernel it was written for.
TEST(TfOpUtils, EveryTensorCoreRuleMatchesItsExample) {
  for (std::string_view example : TensorCoreKernelRuleExamples()) {
    EXPECT_TRUE(IsKernelUsingTensorCore(example)) << example;
  }
}

// JAX and XLA ops are eligible when they are matrix products or convolutions;
// xprof's name rule knows only TensorFlow op types and says false to all of
// these (openxla/xprof#1704).
TEST(TfOpUtils, JaxAndXlaOpsAreEligible) {
  for (const char* eligible :
       {"jit(dot)/dot_general", "jit(loss_fn)/jvp(bsd,de->bse)/dot_general", "jit(train_step)/conv_general_dilated",
        "dot.3", "convolution.12", "gemm_fusion_dot_general.1", "__cublas$lt$matmul", "__cudnn$convForward"}) {
    EXPECT_TRUE(IsOpTensorCoreEligible(eligible)) << eligible;
  }
  for (const char* not_eligible : {"jit(broadcast_in_dim)/broadcast_in_dim",
                                   "jit(loss_fn)/transpose(jvp(bsd,de->bse))/transpose", "copy.1", "dotted_fusion"}) {
    EXPECT_FALSE(IsOpTensorCoreEligible(not_eligible)) << not_eligible;
  }
}

}  // namespace
}  // namespace tbprof
