#include "convert/analysis/step_diagnostics.h"

namespace tbprof {

const char* NoStepWarning(const OpStats& op_stats) {
  return op_stats.empty_step_intersection ? kEmptyStepIntersectionWarning : kNoStepMarkerWarning;
}

}  // namespace tbprof
