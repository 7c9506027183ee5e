// Tool trace_analysis: Holistic Trace Analysis' answers (temporal, kernel and
// idle breakdowns, communication overlap, launch queues, launch statistics)
// for every selected host side by side, from PyTorch traces and GPU xplane
// profiles alike (convert/analysis/trace_analysis/).
//
// Each host's sections come from its summary when one matches (no model is
// loaded: ALL_HOSTS of a pod reads small files), else from its model. A
// summary keeps the critical path of the default step only, so a request for
// another step (`step=N`) computes every host from its model: the model
// load is the cost either way, and a step number one host lacks must fail
// there alike.
#pragma once

#include "convert/tools/tool_io.h"

namespace tbprof {

// Params: `top_kernels` (kernels listed per type and rank, default 10),
// `step` (the critical path's step; the first when absent).
// A host whose file cannot be read is listed in `hosts_left_out` with why,
// unless no host can be read (then the first error).
StatusOr<ToolOutput> TraceAnalysisTool(const ToolInput& input);

// Whether the request can be answered from hosts' summaries (asks for the
// default step), so the work estimate counts their summaries, not models.
bool TraceAnalysisReadsSummaries(const ToolInput& input);

}  // namespace tbprof
