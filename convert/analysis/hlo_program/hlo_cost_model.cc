#include "convert/analysis/hlo_program/hlo_cost_model.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace tbprof {
namespace {

bool OneOf(std::string_view op, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    if (op == n) return true;
  }
  return false;
}

bool IsTranscendental(std::string_view op) {
  return OneOf(op, {"exponential", "exponential-minus-one", "log", "log-plus-one", "tanh", "logistic", "sqrt",
                    "rsqrt", "cbrt", "power", "sine", "cosine", "tan", "atan2", "erf"});
}

// Ops computing one value per output element from their operands' elements.
bool IsElementwiseArithmetic(std::string_view op) {
  return OneOf(op, {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "negate", "abs",
                    "sign", "floor", "ceil", "round-nearest-afz", "round-nearest-even", "compare", "select",
                    "clamp", "and", "or", "xor", "not", "shift-left", "shift-right-arithmetic",
                    "shift-right-logical", "convert", "is-finite", "real", "imag", "complex", "popcnt",
                    "count-leading-zeros", "reduce-precision", "stochastic-convert"});
}

bool IsFree(std::string_view op) {
  return OneOf(op, {"parameter", "constant", "tuple", "get-tuple-element", "bitcast", "after-all", "partition-id",
                    "replica-id", "iota", "opt-barrier", "add-dependency", "domain"});
}

bool IsGemmCustomCall(std::string_view target) {
  return OneOf(target, {"__cublas$gemm", "__cublas$lt$matmul", "__cublas$lt$matmul$f8", "__hipblaslt$matmul",
                        "__rocblas$gemm"});
}

// A convolution run by the vendor's DNN library (cuDNN, or MIOpen behind the
// same names on ROCm), forward or backward: XLA's GPU cost model counts it as
// the convolution its window and dimension numbers describe.
bool IsDnnConvolutionCustomCall(std::string_view target) { return target.starts_with("__cudnn$conv"); }

// Library calls return (result, scratch): the scratch is no traffic of the op.
bool ReturnsScratch(const HloInstruction& inst) {
  return inst.opcode() == "custom-call" && inst.shape().element_type() == xla::TUPLE &&
         (IsGemmCustomCall(inst.custom_call_target()) || IsDnnConvolutionCustomCall(inst.custom_call_target()));
}

double OperandAndOutputBytes(const HloProgram& program, const HloInstruction& inst) {
  double bytes = static_cast<double>(ShapeBytes(inst.shape()));
  for (int i = 0; i < inst.operand_ids_size(); ++i) {
    if (const HloInstruction* op = program.Operand(inst, i)) bytes += static_cast<double>(ShapeBytes(op->shape()));
  }
  return bytes;
}

int64_t DimSize(const xla::ShapeProto& s, int64_t d) {
  return d >= 0 && d < s.dimensions_size() ? s.dimensions(static_cast<int>(d)) : 1;
}

// Reads `"key":[1,"2"]` (numbers written bare or as strings, the way protobuf's
// JSON writes int64) from a backend config.
std::vector<int64_t> JsonIntArray(std::string_view json, std::string_view key) {
  std::vector<int64_t> out;
  std::string quoted = "\"" + std::string(key) + "\"";
  size_t at = json.find(quoted);
  if (at == std::string_view::npos) return out;
  at = json.find('[', at + quoted.size());
  size_t end = at == std::string_view::npos ? at : json.find(']', at);
  if (end == std::string_view::npos) return out;
  std::string_view body = json.substr(at + 1, end - at - 1);
  size_t i = 0;
  while (i < body.size()) {
    while (i < body.size() && !(body[i] == '-' || (body[i] >= '0' && body[i] <= '9'))) ++i;
    if (i >= body.size()) break;
    size_t j = i + 1;
    while (j < body.size() && body[j] >= '0' && body[j] <= '9') ++j;
    out.push_back(std::strtoll(std::string(body.substr(i, j - i)).c_str(), nullptr, 10));
    i = j;
  }
  return out;
}

double DotFlops(const xla::ShapeProto& lhs, const xla::ShapeProto& out, const xla::DotDimensionNumbers& dnums) {
  double contracting = 1;
  for (int64_t d : dnums.lhs_contracting_dimensions()) contracting *= static_cast<double>(DimSize(lhs, d));
  return 2.0 * static_cast<double>(ElementCount(out)) * contracting;
}

const xla::ShapeProto& ArrayResult(const xla::ShapeProto& s) {
  // Library custom calls return (result, scratch): the result is element 0.
  return s.element_type() == xla::TUPLE && s.tuple_shapes_size() > 0 ? s.tuple_shapes(0) : s;
}

double ConvolutionFlops(const HloProgram& program, const HloInstruction& inst) {
  const HloInstruction* kernel = program.Operand(inst, 1);
  if (kernel == nullptr) return 0;
  const auto& dn = inst.convolution_dimension_numbers();
  const xla::ShapeProto& k = kernel->shape();
  double window = 1;
  for (int64_t d : dn.kernel_spatial_dimensions()) window *= static_cast<double>(DimSize(k, d));
  double input_features_per_group = static_cast<double>(DimSize(k, dn.kernel_input_feature_dimension()));
  return 2.0 * static_cast<double>(ElementCount(ArrayResult(inst.shape()))) * window * input_features_per_group;
}

double FlopsOf(const HloProgram& program, const HloInstruction& inst, bool* known);

double CalledFlops(const HloProgram& program, const HloInstruction& inst) {
  double f = 0;
  for (int64_t id : inst.called_computation_ids()) {
    if (const HloComputation* c = program.FindComputation(id)) f += HloComputationFlops(program, *c);
  }
  return f;
}

double FlopsOf(const HloProgram& program, const HloInstruction& inst, bool* known) {
  std::string_view op = inst.opcode();
  if (IsFree(op)) return 0;
  if (op == "dot") {
    const HloInstruction* lhs = program.Operand(inst, 0);
    return lhs ? DotFlops(lhs->shape(), inst.shape(), inst.dot_dimension_numbers()) : 0;
  }
  if (op == "convolution") return ConvolutionFlops(program, inst);
  if (op == "fusion") {
    double f = 0;
    for (int64_t id : inst.called_computation_ids()) {
      const HloComputation* c = program.FindComputation(id);
      if (c == nullptr) continue;
      for (const HloInstruction& i : c->instructions()) f += FlopsOf(program, i, known);
    }
    return f;
  }
  if (op == "reduce") {
    const HloInstruction* in = program.Operand(inst, 0);
    if (in == nullptr) return 0;
    double reductions = static_cast<double>(ElementCount(in->shape()) - ElementCount(ArrayResult(inst.shape())));
    return std::max(0.0, reductions) * CalledFlops(program, inst);
  }
  if (op == "reduce-window") {
    double window = 1;
    for (const auto& d : inst.window().dimensions()) window *= static_cast<double>(d.size());
    return static_cast<double>(ElementCount(ArrayResult(inst.shape()))) * window * CalledFlops(program, inst);
  }
  if (op == "custom-call") {
    if (IsGemmCustomCall(inst.custom_call_target())) {
      const HloInstruction* lhs = program.Operand(inst, 0);
      std::string_view config = inst.backend_config();
      std::vector<int64_t> contracting = JsonIntArray(config, "lhs_contracting_dimensions");
      if (lhs == nullptr || contracting.empty()) {
        *known = false;
        return 0;
      }
      xla::DotDimensionNumbers dn;
      for (int64_t d : contracting) dn.add_lhs_contracting_dimensions(d);
      return DotFlops(lhs->shape(), ArrayResult(inst.shape()), dn);
    }
    if (IsDnnConvolutionCustomCall(inst.custom_call_target())) return ConvolutionFlops(program, inst);
    *known = false;
    return 0;
  }
  if (IsTranscendental(op)) return 0;
  if (IsElementwiseArithmetic(op)) return static_cast<double>(ElementCount(inst.shape()));
  if (op == "map") return static_cast<double>(ElementCount(inst.shape())) * CalledFlops(program, inst);
  return 0;  // data movement, control flow and collectives
}

}  // namespace

double HloComputationFlops(const HloProgram& program, const HloComputation& comp) {
  bool known = true;
  double f = 0;
  for (const HloInstruction& i : comp.instructions()) f += FlopsOf(program, i, &known);
  return f;
}

HloCost HloInstructionCost(const HloProgram& program, const HloInstruction& inst) {
  HloCost cost;
  cost.flops = FlopsOf(program, inst, &cost.flops_known);
  cost.bytes_accessed = IsFree(inst.opcode()) ? 0 : OperandAndOutputBytes(program, inst);
  if (ReturnsScratch(inst)) {
    cost.bytes_accessed -= static_cast<double>(ShapeBytes(inst.shape()) - ShapeBytes(ArrayResult(inst.shape())));
  }
  return cost;
}

}  // namespace tbprof
