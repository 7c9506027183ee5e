#include "convert/tools/model_tools.h"

#include "convert/analysis/host_events/xspace_to_memory_profile.h"
#include "convert/analysis/host_events/xspace_to_tf_data_stats.h"
#include "convert/tools/cached_loads.h"

namespace tbprof {

StatusOr<ToolOutput> MemoryProfileTool(const ToolInput& input) {
  if (input.profile_paths.size() != 1) {
    return InvalidArgument("Memory profile tool expects only 1 XSpace path but gets " +
                           std::to_string(input.profile_paths.size()));
  }
  ASSIGN_OR_RETURN(auto model, LoadModelCached(input.profile_paths.front(), input.cache));
  MemoryProfileOptions options;
  options.max_num_snapshots = ParamInt(input.params, "max_num_snapshots", options.max_num_snapshots);
  const std::string& path = input.profile_paths.front();
  std::shared_ptr<const EventGroups> groups = PeekGroupsCached(path, input.cache);
  ASSIGN_OR_RETURN(auto profile, ComputeMemoryProfile(*model, options, &groups));
  KeepGroupsCached(path, std::move(groups), input.cache);
  ToolOutput out;
  out.body = MemoryProfileToJson(profile);
  return out;
}

StatusOr<ToolOutput> TfDataBottleneckAnalysisTool(const ToolInput& input) {
  if (input.profile_paths.empty()) return InvalidArgument("tf_data_bottleneck_analysis: no xplane file selected");
  std::vector<std::shared_ptr<const XSpaceModel>> models;
  std::vector<std::pair<std::string, const XSpaceModel*>> hosts;
  for (size_t i = 0; i < input.profile_paths.size(); ++i) {
    ASSIGN_OR_RETURN(auto model, LoadModelCached(input.profile_paths[i], input.cache));
    models.push_back(model);
    std::string file_host = i < input.hosts.size() ? input.hosts[i] : input.profile_paths[i];
    hosts.emplace_back(TfDataHostName(*model, file_host), models.back().get());
  }
  ASSIGN_OR_RETURN(auto stats, ComputeTfDataStats(hosts));
  ToolOutput out;
  out.body = TfDataStatsToJson(stats);
  return out;
}

}  // namespace tbprof
