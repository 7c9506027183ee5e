#include "convert/analysis/op_stats/model_tracker.h"

#include "convert/analysis/op_names/tf_op_utils.h"

namespace tbprof {
namespace {

// Name scopes of a TensorFlow op: its '/'-separated parts but the last, which
// is the op's own name.
bool HasTfGradientScope(std::string_view op_name) {
  size_t last_slash = op_name.rfind('/');
  if (last_slash == std::string_view::npos) return false;
  std::string_view scopes = op_name.substr(0, last_slash);
  size_t start = 0;
  while (start <= scopes.size()) {
    size_t end = scopes.find('/', start);
    if (end == std::string_view::npos) end = scopes.size();
    std::string_view scope = scopes.substr(start, end - start);
    if (scope.starts_with("gradient")) {
      std::string_view rest = scope.substr(8);
      if (rest == "_tape" || rest.starts_with("s")) return true;
    }
    start = end + 1;
  }
  return false;
}

// JAX names the transposed (backward) half of a jvp "transpose(jvp(…))"; a
// plain "transpose[permutation=…]" is a tensor transposition and does not count.
bool HasJaxTransposeScope(std::string_view op_name) {
  size_t start = 0;
  while (start <= op_name.size()) {
    size_t end = op_name.find('/', start);
    if (end == std::string_view::npos) end = op_name.size();
    if (op_name.substr(start, end - start).starts_with("transpose(")) return true;
    start = end + 1;
  }
  return false;
}

// A JAX op: a JAX-like type that the last part of the name contains.
bool IsJaxOpNameAndType(std::string_view op_name, std::string_view op_type) {
  if (op_name.empty() || !IsJaxOpType(op_type)) return false;
  size_t last_slash = op_name.rfind('/');
  std::string_view last = last_slash == std::string_view::npos ? op_name : op_name.substr(last_slash + 1);
  return last.find(op_type) != std::string_view::npos;
}

// A PyTorch autograd node: "AddmmBackward0" (or "CudnnConvolutionBackward"
// before PyTorch 1.10), or the engine's call of one,
// "autograd::engine::evaluate_function: AddmmBackward0". The importer gives
// a PyTorch operator its own name as its type.
bool IsPyTorchBackwardOp(std::string_view op_name, std::string_view op_type) {
  if (op_name != op_type) return false;
  if (op_name.starts_with("autograd::engine::evaluate_function: ")) return true;
  while (!op_name.empty() && op_name.back() >= '0' && op_name.back() <= '9') op_name.remove_suffix(1);
  return op_name.ends_with("Backward") && op_name.size() > 8;
}

}  // namespace

bool OpMetadataComputesGradients(std::string_view op_name, std::string_view op_type) {
  if (IsPyTorchBackwardOp(op_name, op_type)) return true;
  if (IsTfOpType(op_type) && IsTfOpName(op_name)) return HasTfGradientScope(op_name);
  // JAX drops op_type on some instructions: their name alone is read.
  if (IsJaxOpNameAndType(op_name, op_type) || op_type.empty()) return HasJaxTransposeScope(op_name);
  return false;
}

bool HloModuleComputesGradients(const xla::HloModuleProto& module) {
  for (const xla::HloComputationProto& computation : module.computations()) {
    for (const xla::HloInstructionProto& inst : computation.instructions()) {
      if (OpMetadataComputesGradients(inst.metadata().op_name(), inst.metadata().op_type())) return true;
    }
  }
  return false;
}

std::optional<bool> IsTraining(const HloPrograms& programs) {
  if (programs.empty()) return std::nullopt;
  for (const auto& [id, program] : programs.by_id) {
    if (HloModuleComputesGradients(program->module())) return true;
  }
  return false;
}

void TrainingByOps::Add(std::string_view op_name, std::string_view op_type) {
  // IDLE is time without an op, and an unnamed row names no op.
  if (op_name.empty() || op_type == "IDLE" || op_name == "IDLE") return;
  saw_op_ = true;
  if (!saw_gradients_ && OpMetadataComputesGradients(op_name, op_type)) saw_gradients_ = true;
}

std::optional<bool> TrainingByOps::IsTraining() const {
  if (saw_gradients_) return true;
  if (saw_op_) return false;
  return std::nullopt;
}

}  // namespace tbprof
