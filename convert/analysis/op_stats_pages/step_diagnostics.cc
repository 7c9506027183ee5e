#include "convert/analysis/op_stats_pages/step_diagnostics.h"

namespace tbprof {

const char* NoStepWarning(const OpStats& op_stats) {
  return op_stats.empty_step_intersection ? kEmptyStepIntersectionWarning : kNoStepMarkerWarning;
}

std::vector<std::string> StepWarnings(const OpStats& op_stats) {
  bool has_steps = !op_stats.tpu_step_db.empty();
  for (const HostSteps& host : op_stats.steps) has_steps |= !host.steps.empty();
  if (has_steps) return {};
  return {NoStepWarning(op_stats)};
}

}  // namespace tbprof
