#include "convert/tools/trace_analysis_tools.h"

#include <charconv>
#include <memory>
#include <string>
#include <vector>

#include "convert/analysis/trace_analysis/trace_analysis.h"
#include "convert/base/file_name.h"
#include "convert/tools/cached_loads.h"

namespace tbprof {

StatusOr<ToolOutput> TraceAnalysisTool(const ToolInput& input) {
  if (input.profile_paths.empty()) return InvalidArgument("trace_analysis: no profile file selected");
  std::vector<std::shared_ptr<const XSpaceModel>> models;
  std::vector<trace_analysis::RankModel> ranks;
  std::vector<trace_analysis::HostLeftOut> left_out;
  Status first_error = Status::Ok();
  for (size_t i = 0; i < input.profile_paths.size(); ++i) {
    const std::string host = i < input.hosts.size() ? input.hosts[i] : FileNameOfPath(input.profile_paths[i]);
    StatusOr<std::shared_ptr<const XSpaceModel>> model = LoadModelCached(input.profile_paths[i], input.cache);
    if (!model.ok()) {
      if (first_error.ok()) first_error = model.status();
      left_out.push_back({host, model.status().message()});
      continue;
    }
    models.push_back(*model);
    ranks.push_back({models.back().get(), host, static_cast<int64_t>(i)});
  }
  if (ranks.empty()) return first_error;
  trace_analysis::TraceAnalysisOptions options;
  const int64_t top = ParamInt(input.params, "top_kernels", 10);
  options.top_kernels = top > 0 ? static_cast<size_t>(top) : 10;
  // step=N: the step whose critical path is drawn (the first when absent).
  if (const std::string step = ParamStr(input.params, "step"); !step.empty()) {
    int64_t n = 0;
    auto [ptr, ec] = std::from_chars(step.data(), step.data() + step.size(), n);
    if (ec != std::errc() || ptr != step.data() + step.size()) {
      return InvalidArgument("trace_analysis: step='" + step + "' is not a step number");
    }
    options.critical_path_step = n;
  }
  ToolOutput out;
  out.body = trace_analysis::TraceAnalysisJson(ranks, left_out, options);
  if (out.body.size() > input.max_output_bytes) {
    return ResourceExhausted("trace_analysis: the answer is larger than the response limit");
  }
  return out;
}

}  // namespace tbprof
