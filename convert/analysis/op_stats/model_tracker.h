// Whether a compiled program trains, read from the framework op names XLA
// keeps in each HLO instruction's metadata (xprof's ModelTracker::IsTraining).
#pragma once

#include <optional>
#include <string_view>

#include "convert/analysis/common/hlo_module.h"

namespace tbprof {

// One instruction's metadata: a TensorFlow op under a "gradients",
// "gradients_N" or "gradient_tape" name scope, or a JAX op under a
// "transpose(…)" scope (reverse-mode differentiation), marks training.
bool OpMetadataComputesGradients(std::string_view op_name, std::string_view op_type);

// Any instruction of any computation of the module (fused ones included).
bool HloModuleComputesGradients(const xla::HloModuleProto& module);

// True when one of the programs trains, false when none does, empty when
// there is no program to tell by.
std::optional<bool> IsTraining(const HloPrograms& programs);

}  // namespace tbprof
