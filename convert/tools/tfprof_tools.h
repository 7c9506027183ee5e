// The tfprof tool: tfprof's views over a run's xplane files (through OpStats)
// or over a tfprof ProfileProto file, for `/data?tag=tfprof&view=…` and for
// `tbprof tfprof`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "convert/model/tfprof_model.h"
#include "convert/analysis/tfprof/tfprof_options.h"
#include "convert/analysis/tfprof/tfprof_show.h"
#include "convert/tools/tool_io.h"

namespace tbprof {

inline constexpr std::string_view kTfprofToolName = "tfprof";

// The node model of `paths`: xplane files (one host each, combined) or one
// ProfileProto file (profile_<N>, optionally gzip'ed, holding its steps; a
// file of no other format is read as one). A PyTorch trace is refused.
// An xplane profile's model is the whole profile as step 0; `step` >= 0
// makes it the events that began inside that step of the step table (tfprof's
// -step), and a step the table lacks is an error listing its steps.
StatusOr<tfprof::Model> LoadTfprofModel(const std::vector<std::string>& paths, ArtifactCache* cache,
                                        int64_t step = -1);

// Options from query parameters named as tfprof's options without the '-'
// (max_depth=3&select=micros,bytes&account_displayed_op_only=true); other
// parameters are left to the route. Starts from the defaults of tfprof's
// Python option builder (select micros, account every type).
StatusOr<tfprof::Options> TfprofOptionsFromParams(const ToolParams& params);

// The view as JSON: {"view", "step", "known": {...}, "select": [...],
// "text": tfprof's table, "note" (only when the options leave the table empty
// for a reason they name), "root": {name, figures, total figures, children}};
// figures the profile cannot give are null. The answer is claimed from the
// request's memory grant as it grows (a refusal is its error).
StatusOr<std::string> TfprofViewToJson(const tfprof::ViewResult& result, const tfprof::Options& options);

// `/data?tag=tfprof`: view=scope|graph|op|code (scope by default), or
// view=advise (checkers=Name,Name) for the advisor's report.
StatusOr<ToolOutput> TfprofTool(const ToolInput& in);

}  // namespace tbprof
