// Tool trace_analysis: Holistic Trace Analysis' answers (temporal, kernel and
// idle breakdowns, communication overlap, launch queues, launch statistics)
// for every selected host side by side, from PyTorch traces and GPU xplane
// profiles alike (convert/analysis/trace_analysis/).
#pragma once

#include "convert/tools/tool_io.h"

namespace tbprof {

// Params: `top_kernels` (kernels listed per type and rank, default 10).
// A host whose file cannot be read is listed in `hosts_left_out` with why,
// unless no host can be read (then the first error).
StatusOr<ToolOutput> TraceAnalysisTool(const ToolInput& input);

}  // namespace tbprof
