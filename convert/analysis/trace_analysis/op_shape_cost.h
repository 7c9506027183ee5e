// FLOPs and bytes of one PyTorch operator from the shapes and dtypes its
// profiler recorded (Kineto's op args "Input Dims", "Input type", "Concrete
// Inputs"), by TraceLens's perf-model formulas:
//   GEMM  aten::mm, addmm, bmm, baddbmm, matmul, linear: 2·M·N·K per batch
//         (+ M·N for a bias), bytes (A + B + C + bias) elements × dtype size;
//   conv  aten::convolution, _convolution, conv1d/2d/3d, cudnn_convolution:
//         2·N·K·(C/groups)·∏kernel·∏output (+ output for a bias), bytes of
//         input, weight, bias and output; the output's size from the stride,
//         padding and dilation in "Concrete Inputs" (unknown without them);
//   attention aten::scaled_dot_product_attention, _scaled_dot_product_flash_
//         attention, _scaled_dot_product_efficient_attention, _flash_attention_
//         forward, _efficient_attention_forward: 4·B·H_Q·N_Q·N_KV·d (halved
//         when causal), bytes of Q, K, V and the output;
//   elementwise (unary, binary, in place or not): one FLOP per output element,
//         bytes of the tensor inputs and the output.
// Anything else, or an op whose args do not say enough, is unknown.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace tbprof::trace_analysis {

// The floating-point types whose peak rates a datasheet states.
enum class FloatType { kNone, kFp32, kFp16, kBf16 };

// A tensor argument's shape; `tensor` false for a scalar, list or absent argument.
struct OpArgShape {
  bool tensor = false;
  std::vector<int64_t> dims;
  int dtype_bytes = 0;  // 0: unknown dtype
  FloatType float_type = FloatType::kNone;  // kNone: an integer, double or unknown dtype
};

// The op's arguments from its args' JSON texts; an empty result when "Input
// Dims" is not a list of shapes.
std::vector<OpArgShape> ParseOpArgs(std::string_view input_dims, std::string_view input_types);

// The concrete values' texts ("" where the profiler wrote none).
std::vector<std::string_view> ParseConcreteInputs(std::string_view concrete_inputs);

struct OpCost {
  std::optional<double> flops;
  std::optional<double> bytes;
};

// Which formula an op's cost comes from; kNone: it has none.
enum class CostClass { kNone, kGemm, kConvolution, kAttention, kElementwise };
CostClass CostClassOf(std::string_view op_name);

// The floating type of the op's first tensor argument (kNone: none has one).
FloatType FloatTypeOfArgs(const std::vector<OpArgShape>& args);

// Whether an op of this name has a formula (its cost may still be unknown
// when the args are missing).
bool HasCostFormula(std::string_view op_name);

OpCost OpCostOf(std::string_view op_name, const std::vector<OpArgShape>& args,
                const std::vector<std::string_view>& concrete);

// Bytes of one element of a dtype as the profiler names it ("c10::BFloat16",
// "float", "long int", ...); 0 when not a known tensor dtype.
int DtypeBytes(std::string_view type);
FloatType FloatTypeOf(std::string_view type);

}  // namespace tbprof::trace_analysis
