// tfprof's advisor (internal/advisor/): AcceleratorUtilizationChecker,
// OperationChecker, ExpensiveOperationChecker and JobChecker, with tfprof's
// thresholds and report texts.
#pragma once

#include <string>
#include <vector>

#include "convert/model/tfprof_model.h"
#include "convert/base/status.h"
#include "proto/tfprof_output.pb.h"

namespace tbprof::tfprof {

// kCheckers, in tfprof's order.
extern const std::vector<std::string> kCheckers;

// Runs the named checkers (every checker when `checkers` is empty). An
// unknown checker name is an error naming it. JobChecker, whose checks
// TensorFlow never published (its open-source runner returns nothing), gives
// no report, as in TensorFlow.
StatusOr<tensorflow::tfprof::AdviceProto> Advise(const Model& model, const std::vector<std::string>& checkers);

// "\n<checker>:\n<report>\n..." per checker, as tfprof prints the advice.
std::string FormatAdvice(const tensorflow::tfprof::AdviceProto& advice);

}  // namespace tbprof::tfprof
