// Whether a compiled program trains, read from the framework op names XLA
// keeps in each HLO instruction's metadata (xprof's ModelTracker::IsTraining).
#pragma once

#include <optional>
#include <string_view>

#include "convert/analysis/hlo_program/hlo_module.h"

namespace tbprof {

// One instruction's metadata: a TensorFlow op under a "gradients",
// "gradients_N" or "gradient_tape" name scope, a JAX op under a
// "transpose(…)" scope (reverse-mode differentiation), or a PyTorch autograd
// node ("…Backward", "…BackwardN", "autograd::engine::evaluate_function: …")
// marks training.
bool OpMetadataComputesGradients(std::string_view op_name, std::string_view op_type);

// Any instruction of any computation of the module (fused ones included).
bool HloModuleComputesGradients(const xla::HloModuleProto& module);

// True when one of the programs trains, false when none does, empty when
// there is no program to tell by.
std::optional<bool> IsTraining(const HloPrograms& programs);

// The same rule over the framework ops a profile recorded (an op's name and
// type), for a profile without programs (TensorFlow without XLA): training
// when one op computes gradients, inference when there are ops and none
// does, unknown without any. Every page that states the task asks this.
class TrainingByOps {
 public:
  void Add(std::string_view op_name, std::string_view op_type);
  std::optional<bool> IsTraining() const;

 private:
  bool saw_op_ = false;
  bool saw_gradients_ = false;
};

}  // namespace tbprof
