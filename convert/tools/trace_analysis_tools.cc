#include "convert/tools/trace_analysis_tools.h"

#include <charconv>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "convert/analysis/trace_analysis/trace_analysis.h"
#include "convert/base/file_name.h"
#include "convert/tools/cached_loads.h"

namespace tbprof {

namespace {

// One host's sections: from its summary when the request allows, else from its model.
StatusOr<trace_analysis::RankSections> SectionsOfHost(const std::string& path, const ToolInput& input,
                                                      std::optional<int64_t> step) {
  if (!step) {
    if (std::optional<trace_analysis::RankSections> s = SectionsFromSummary(path)) return std::move(*s);
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const XSpaceModel> model, LoadModelCached(path, input.cache));
  return trace_analysis::ComputeRankSections(*model, step);
}

}  // namespace

bool TraceAnalysisReadsSummaries(const ToolInput& input) { return ParamStr(input.params, "step").empty(); }

StatusOr<ToolOutput> TraceAnalysisTool(const ToolInput& input) {
  if (input.profile_paths.empty()) return InvalidArgument("trace_analysis: no profile file selected");
  const int64_t top = ParamInt(input.params, "top_kernels", 10);
  const size_t top_kernels = top > 0 ? static_cast<size_t>(top) : 10;
  // step=N: the step whose critical path is drawn (the first when absent).
  std::optional<int64_t> critical_path_step;
  if (const std::string step = ParamStr(input.params, "step"); !step.empty()) {
    int64_t n = 0;
    auto [ptr, ec] = std::from_chars(step.data(), step.data() + step.size(), n);
    if (ec != std::errc() || ptr != step.data() + step.size()) {
      return InvalidArgument("trace_analysis: step='" + step + "' is not a step number");
    }
    critical_path_step = n;
  }
  std::vector<trace_analysis::RankSections> ranks;
  std::vector<trace_analysis::HostLeftOut> left_out;
  Status first_error = Status::Ok();
  for (size_t i = 0; i < input.profile_paths.size(); ++i) {
    const std::string host = i < input.hosts.size() ? input.hosts[i] : FileNameOfPath(input.profile_paths[i]);
    StatusOr<trace_analysis::RankSections> sections = SectionsOfHost(input.profile_paths[i], input, critical_path_step);
    if (!sections.ok()) {
      if (first_error.ok()) first_error = sections.status();
      left_out.push_back({host, sections.status().message()});
      continue;
    }
    ranks.push_back(std::move(*sections));
    trace_analysis::AssignRank(ranks.back(), static_cast<int64_t>(i), host);
  }
  if (ranks.empty()) return first_error;
  ToolOutput out;
  out.body = trace_analysis::CombineRanksJson(std::move(ranks), left_out, top_kernels);
  if (out.body.size() > input.max_output_bytes) {
    return ResourceExhausted("trace_analysis: the answer is larger than the response limit");
  }
  return out;
}

}  // namespace tbprof
