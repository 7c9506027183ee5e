// The warnings a page shows about the steps it found (xprof's
// PopulateStepDiagnostics), shared by input_pipeline_analyzer, overview_page,
// pod_viewer and roofline_model so that the pages say the same thing.
#pragma once

#include <string>
#include <vector>

#include "convert/analysis/op_stats/op_stats.h"

namespace tbprof {

inline constexpr char kNoStepMarkerWarning[] =
    "No step marker observed and hence the step time is unknown. This may happen if (1) training steps are not "
    "instrumented (e.g., if you are not using Keras) or (2) the profiling duration is shorter than the step time. "
    "For (1), you need to add step instrumentation; for (2), you may try to profile longer.";

inline constexpr char kEmptyStepIntersectionWarning[] =
    "Although there are steps observed on some host(s), the intersection of the steps over all hosts is empty "
    "(because the differences among individual host's step sequences are too big). Consequently, the overall step "
    "time is unknown.";

// The warning for a page that found no step: hosts that each had steps but
// none in common are told apart from a profile that marked no step at all.
// (xprof's other two step warnings, incomplete steps and steps dropped, come
// from settings its open-source conversion never makes: every common step is
// kept and no step is marked incomplete.)
const char* NoStepWarning(const OpStats& op_stats);

// The step warnings of a page that shows them whatever its content (the
// roofline's diagnostics table): the no-step warning when no host and no TPU
// core has a step, else none.
std::vector<std::string> StepWarnings(const OpStats& op_stats);

}  // namespace tbprof
