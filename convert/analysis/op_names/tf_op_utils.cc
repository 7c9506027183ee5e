#include "convert/analysis/op_names/tf_op_utils.h"

#include <algorithm>
#include <cctype>

#include "convert/base/strings.h"

namespace tbprof {
namespace {

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool EndsWith(std::string_view s, std::string_view suffix) { return s.ends_with(suffix); }
bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

}  // namespace

// [A-Za-z0-9.][A-Za-z0-9_./>-]*
bool IsTfOpName(std::string_view s) {
  if (s.empty() || !(IsAlnum(s[0]) || s[0] == '.')) return false;
  for (char c : s.substr(1)) {
    if (!(IsAlnum(c) || c == '_' || c == '.' || c == '/' || c == '>' || c == '-')) return false;
  }
  return true;
}

// [A-Z_][a-zA-Z0-9_]*
bool IsTfOpType(std::string_view s) {
  if (s.empty() || !((s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_')) return false;
  for (char c : s.substr(1)) {
    if (!(IsAlnum(c) || c == '_')) return false;
  }
  return true;
}

// [a-z_][a-z0-9_]*(\[.*\])?
bool IsJaxOpType(std::string_view s) {
  size_t bracket = s.find('[');
  std::string_view head = s.substr(0, bracket);
  if (bracket != std::string_view::npos && s.back() != ']') return false;
  if (head.empty() || !((head[0] >= 'a' && head[0] <= 'z') || head[0] == '_')) return false;
  for (char c : head.substr(1)) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

std::string DeriveOpType(std::string_view full_op_name) {
  size_t slash = full_op_name.rfind('/');
  std::string_view last = slash == std::string_view::npos ? full_op_name : full_op_name.substr(slash + 1);
  size_t underscore = last.rfind('_');
  if (underscore != std::string_view::npos && underscore + 1 < last.size()) {
    bool digits = true;
    for (char c : last.substr(underscore + 1)) digits &= c >= '0' && c <= '9';
    if (digits) last = last.substr(0, underscore);
  }
  return std::string(last);
}

std::string TfOpEventName(const TfOp& op) {
  if (op.category == TfOpCategory::kUnknown) {
    std::string_view n = op.name;
    while (!n.empty() && (n.back() == ' ' || n.back() == '\t' || n.back() == '\n' || n.back() == '\r')) n.remove_suffix(1);
    return std::string(n);
  }
  if (op.category == TfOpCategory::kTfData) {
    // What follows the last ':' ("Iterator::Batch::Map::TfRecord" shows as
    // "Iterator::TfRecord").
    const size_t colon = op.name.rfind(':');
    return "Iterator::" + (colon == std::string::npos ? op.name : op.name.substr(colon + 1));
  }
  return op.type;
}

TfOp ParseTfOpFullname(std::string_view fullname) {
  TfOp op;
  // A PyTorch operator's name may hold colons ("aten::add", "nccl:all_reduce",
  // "…: AddmmBackward0"), so they cannot split it: the importer doubles the
  // name instead, and a doubled name with a colon in each half is one PyTorch
  // op (a TensorFlow full name holds one colon only).
  if (fullname.size() % 2 == 1 && fullname[fullname.size() / 2] == ':') {
    std::string_view half = fullname.substr(0, fullname.size() / 2);
    if (half.find(':') != std::string_view::npos && fullname.substr(half.size() + 1) == half) {
      op.category = TfOpCategory::kPyTorch;
      op.name = std::string(half);
      op.type = std::string(half);
      return op;
    }
  }
  size_t colon = fullname.find(':');
  if (colon == std::string_view::npos) {
    struct Memcpy {
      std::string_view prefix;
      TfOpCategory category;
    };
    static constexpr Memcpy kMemcpy[] = {{"MEMCPYHToD", TfOpCategory::kMemcpyHToD},
                                         {"MEMCPYDToH", TfOpCategory::kMemcpyDToH},
                                         {"MEMCPYDToD", TfOpCategory::kMemcpyDToD},
                                         {"MEMCPYHToH", TfOpCategory::kMemcpyHToH}};
    static constexpr std::string_view kTypes[] = {"MemcpyHToD", "MemcpyDToH", "MemcpyDToD", "MemcpyHToH"};
    for (size_t i = 0; i < 4; ++i) {
      if (StartsWithIgnoringAsciiCase(fullname, kMemcpy[i].prefix)) {
        op.category = kMemcpy[i].category;
        op.name = std::string(fullname);
        op.type = std::string(kTypes[i]);
        return op;
      }
    }
    op.name = std::string(fullname);
    return op;
  }
  std::string_view name = fullname.substr(0, colon);
  std::string_view type = fullname.substr(colon + 1);
  if (name == "Iterator") {
    op.category = TfOpCategory::kTfData;
    op.name = std::string(fullname);
    op.type = "Dataset";
    return op;
  }
  if (IsTfOpName(name) && IsTfOpType(type)) {
    op.category = TfOpCategory::kTensorFlow;
    op.name = std::string(name);
    op.type = std::string(type);
    return op;
  }
  std::string op_type = type.empty() ? DeriveOpType(name) : std::string(type);
  if (IsJaxOpType(op_type)) {
    op.category = TfOpCategory::kJax;
    op.name = std::string(name);
    op.type = op_type.substr(0, op_type.find('['));
    return op;
  }
  if (type.empty()) {
    op.category = TfOpCategory::kTensorFlow;
    op.name = std::string(name);
    op.type = op_type;
    return op;
  }
  op.name = std::string(fullname);
  return op;
}

namespace {

// One name rule: a kernel matches when its name starts with `prefix` and
// contains `part` (either may be empty). `seen_on` is a kernel the rule was
// written for, from a real profile or a public issue: the tests use them.
struct KernelNameRule {
  std::string_view prefix;
  std::string_view part;
  std::string_view seen_on;
};

// Kernels that run on TensorCores (NVIDIA) or Matrix Cores (AMD). The first
// block is xprof's list, from the Volta/Turing/Ampere libraries; the second
// covers what today's libraries emit, which xprof's list misses.
constexpr KernelNameRule kTensorCoreKernelRules[] = {
    {"", "16816", "ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_nn"},
    {"", "c1688", "turing_fp16_s1688cudnn_fp16_128x128_ldg8_relu_f2f_exp_interior_nhwc2nchw_tn_v1"},
    {"", "conv1x1", "volta_fp16_s884cudnn_fp16_128x128_ldg8_dgrad_conv1x1_f2f_exp_small_nhwc2nchw_tt_v1"},
    {"", "conv2d_c1_k1", "cudnn::detail::conv2d_c1_k1_nhwc_kernel"},
    {"", "dgrad_1x1_stride_2x2", "volta_fp16_s884cudnn_fp16_dgrad_1x1_stride_2x2"},
    {"", "direct_group", "cudnn::detail::direct_group_conv_kernel"},
    {"", "first_layer_wgrad_kernel", "cudnn::detail::first_layer_wgrad_kernel"},
    {"", "h1688", "turing_h1688gemm_128x128_ldg8_nn"},
    {"", "h884", "volta_h884gemm_64x64_ldg8_nn"},
    {"", "hmma", "volta_fp16_hmma_gemm"},
    {"", "i16832", "ampere_int8_i16832gemm_int8_256x128_ldg16_stages_64x3_nt"},
    {"", "i8816", "turing_int8_i8816gemm_int8_128x128_ldg16_nt"},
    {"", "s884", "volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn"},
    {"", "s1688", "turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn"},
    {"", "xmma_gemm", "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4"},
    {"", "xmma_implicit_gemm", "sm80_xmma_fprop_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nhwc"},
    {"", "xmma_sparse_conv", "sm86_xmma_sparse_conv_fprop"},
    {"", "xmma_sparse_gemm", "sm86_xmma_sparse_gemm_f16f16_f16f32_f32"},
    {"", "xmma_warp_specialized_implicit_gemm", "sm90_xmma_warp_specialized_implicit_gemm"},
    // Hopper and Blackwell cuBLAS(Lt): nvjet kernels are its tensor-op GEMMs.
    {"nvjet_", "", "nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN"},
    // Every xmma kernel is a tensor-op kernel (fprop/dgrad/wgrad convolutions too).
    {"", "_xmma_", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"},
    // CUTLASS 2 and 3 tensor-op kernels ("simt" ones are not).
    {"", "tensorop", "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8>"},
    {"cutlass3x_sm90_", "tensorop", "cutlass3x_sm90_tensorop_s64x128x16gemm_bf16_bf16_f32_bf16_bf16_128x128x64_1x1x1_0_tnn_align8_warpspecialized_cooperative_epi_tma"},
    // Hopper warpgroup MMA (wgmma / gmma) kernels.
    {"", "gmma", "sm90_gmma_f16f16_f32_tn_128x128x64_warpspecialized"},
    // Blackwell TensorRT-LLM batched GEMMs (tcgen05 MMA, "sm100f" target).
    {"bmm_", "_sm100", "bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_schedP2x1x2x3_biasM_bN_tmaOpt_clmp_dynBatch_sm100f"},
    // Flash attention: its two GEMMs are mma instructions.
    {"", "flash_fwd_kernel", "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t"},
    {"", "flash_bwd", "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel"},
    {"fmhaSm", "", "fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext"},
    // Triton GEMMs: XLA's Triton GEMM fusions and PyTorch Inductor's mm templates.
    {"gemm_fusion_dot", "", "gemm_fusion_dot_general_1.kd"},
    {"triton_tem_fused_", "mm", "triton_tem_fused_addmm_0"},
    // AMD: Tensile (hipBLASLt/rocBLAS) kernels with a matrix instruction tile ("_MI16x16x16").
    {"Cijk_", "_MI", "Cijk_Ailk_Bljk_BBS_BH_MT256x224x64_MI16x16x16x1_SN_1LDSB1_APM1_ABV0"},
    // AMD composable-kernel attention (MFMA).
    {"", "ck_tile::FmhaFwdKernel", "void ck_tile::kentry<ck_tile::gfx950_t, 2, ck_tile::FmhaFwdKernel<"},
    {"", "ck_tile::FmhaBwd", "void ck_tile::kentry<ck_tile::gfx950_t, 2, ck_tile::FmhaBwdOGradDotOKernel<"},
};

bool Matches(const KernelNameRule& rule, std::string_view name) {
  return name.starts_with(rule.prefix) && (rule.part.empty() || Contains(name, rule.part));
}

// Strips a trailing ".<digits>" or "_<digits>" (HLO instruction numbering).
std::string_view WithoutInstructionNumber(std::string_view s) {
  size_t sep = s.find_last_of("._");
  if (sep == std::string_view::npos || sep + 1 == s.size()) return s;
  for (char c : s.substr(sep + 1)) {
    if (c < '0' || c > '9') return s;
  }
  return s.substr(0, sep);
}

}  // namespace

bool IsKernelUsingTensorCore(std::string_view kernel_name) {
  for (const KernelNameRule& rule : kTensorCoreKernelRules) {
    if (Matches(rule, kernel_name)) return true;
  }
  return false;
}

std::vector<std::string_view> TensorCoreKernelRuleExamples() {
  std::vector<std::string_view> out;
  for (const KernelNameRule& rule : kTensorCoreKernelRules) out.push_back(rule.seen_on);
  return out;
}

// PyTorch operators that may run on TensorCores: those autocast casts to
// 16-bit (convolutions, GEMMs, RNN cells) and the backward ops they record.
constexpr std::string_view kTorchTensorCoreOps[] = {
    "aten::_convolution", "aten::_convolution_nogroup", "aten::conv1d", "aten::conv2d", "aten::conv3d",
    "aten::conv_tbc", "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d",
    "aten::convolution", "aten::cudnn_convolution", "aten::cudnn_convolution_transpose", "aten::prelu",
    "aten::addmm", "aten::addmm_", "aten::addmv", "aten::addr", "aten::matmul", "aten::mm", "aten::mv",
    "aten::linear", "aten::addbmm", "aten::baddbmm", "aten::bmm", "aten::chain_matmul", "aten::linalg_multi_dot",
    "aten::_thnn_fused_lstm_cell", "aten::_thnn_fused_gru_cell", "aten::lstm_cell", "aten::gru_cell",
    "aten::rnn_tanh_cell", "aten::rnn_relu_cell", "aten::cudnn_convolution_backward",
    "aten::cudnn_convolution_backward_input", "aten::cudnn_convolution_backward_weight",
    "aten::cudnn_convolution_transpose_backward", "aten::cudnn_convolution_transpose_backward_input",
    "aten::cudnn_convolution_transpose_backward_weight", "CudnnConvolutionBackward", "CudnnConvolutionBackward0",
    "CudnnConvolutionTransposeBackward", "CudnnConvolutionTransposeBackward0", "MmBackward", "MmBackward0",
    "BmmBackward0", "AddmmBackward", "AddmmBackward0", "AddmvBackward", "AddmvBackward0", "MvBackward",
    "MvBackward0", "AddbmmBackward", "AddbmmBackward0"};

bool IsOpTensorCoreEligible(std::string_view n) {
  if (std::find(std::begin(kTorchTensorCoreOps), std::end(kTorchTensorCoreOps), n) != std::end(kTorchTensorCoreOps)) {
    return true;
  }
  if (EndsWith(n, "Conv2D") || EndsWith(n, "Conv2DBackpropFilter") || EndsWith(n, "Conv2DBackpropInput") ||
      EndsWith(n, "Conv3D") || EndsWith(n, "DepthwiseConv2dNative") ||
      EndsWith(n, "DepthwiseConv2dNativeBackpropFilter") || EndsWith(n, "DepthwiseConv2dNativeBackpropInput") ||
      Contains(n, "BatchMatMul") || EndsWith(n, "/MatMul") || EndsWith(n, "FusedMatMul") ||
      EndsWith(n, "/CudnnRNN") || Contains(n, "CudnnRNNV") || Contains(n, "CudnnRNNForward") ||
      Contains(n, "CudnnRNNBackprop") || EndsWith(n, "XlaDot") || EndsWith(n, "XlaDotV2")) {
    return true;
  }
  // JAX and XLA ops (xprof counts none of them): the last name component of a
  // JAX op ("jit(f)/jvp(bsd,de->bse)/dot_general"), an HLO instruction
  // ("dot.3", "convolution.1", "gemm_fusion_dot_general.1"), or a cuBLAS /
  // cuDNN / hipBLASLt custom call ("__cublas$lt$matmul", "__cudnn$convForward").
  size_t slash = n.rfind('/');
  std::string_view last = WithoutInstructionNumber(slash == std::string_view::npos ? n : n.substr(slash + 1));
  for (std::string_view op : {"dot_general", "dot", "conv_general_dilated", "convolution", "einsum"}) {
    if (last == op) return true;
  }
  return last.starts_with("gemm_fusion") || last.starts_with("cublas") || last.starts_with("__cublas") ||
         last.starts_with("__cudnn$conv") || last.starts_with("__cudnn$fmha") || last.starts_with("__hipblaslt");
}

bool IsEinsumTensorCoreEligible(std::string_view equation) {
  if (equation.empty()) return false;
  size_t arrow = equation.find("->");
  if (arrow == std::string_view::npos || equation.find("->", arrow + 2) != std::string_view::npos) return false;
  std::string_view lhs = equation.substr(0, arrow);
  size_t commas = 0;
  for (char c : lhs) commas += c == ',';
  return commas == 1;
}

}  // namespace tbprof
