#include "convert/tools/xla_tools.h"

#include "convert/analysis/op_profile.h"
#include "convert/analysis/roofline.h"
#include "convert/tools/cached_loads.h"
#include "convert/xplane/xspace_reader.h"

namespace tbprof {
namespace {

ToolOutput Output(std::string body, bool csv) {
  ToolOutput out;
  out.body = std::move(body);
  if (csv) out.content_type = "text/csv";
  return out;
}

bool WantsCsv(const ToolInput& in) { return in.csv; }

StatusOr<std::shared_ptr<const HloOpDb>> HloOpDbForPaths(const ToolInput& in) {
  if (in.xplane_paths.empty()) return InvalidArgument("no xplane file selected");
  std::vector<std::shared_ptr<const HloOpDb>> per_host;
  for (const std::string& path : in.xplane_paths) {
    ASSIGN_OR_RETURN(auto db, LoadHloOpDbCached(path, in.cache));
    per_host.push_back(std::move(db));
  }
  if (per_host.size() == 1) return per_host.front();
  return std::shared_ptr<const HloOpDb>(std::make_shared<const HloOpDb>(CombineHloOpDbs(per_host)));
}

}  // namespace

StatusOr<std::shared_ptr<const HloOpDb>> LoadHloOpDbCached(const std::string& xplane_path, ArtifactCache* cache) {
  auto compute = [&]() -> StatusOr<std::pair<std::shared_ptr<const HloOpDb>, size_t>> {
    std::shared_ptr<const XSpaceModel> model = PeekModelCached(xplane_path, cache);
    if (!model) {
      LoadOptions options;
      options.keep_event_stat = HloStatsReadsEventStat;
      ASSIGN_OR_RETURN(auto loaded, LoadXSpaceFile(xplane_path, options));
      model = std::move(loaded);
    }
    auto db = std::make_shared<const HloOpDb>(ConvertXSpaceToHloOpDb(*model));
    size_t bytes = sizeof(HloOpDb) + db->ops.size() * (sizeof(HloOpMetrics) + 256);
    for (const auto& [id, p] : db->programs.by_id) bytes += p->proto().SpaceUsedLong() * 2;
    return std::make_pair(std::shared_ptr<const HloOpDb>(db), bytes);
  };
  if (cache == nullptr) {
    ASSIGN_OR_RETURN(auto r, compute());
    return r.first;
  }
  ASSIGN_OR_RETURN(auto key, FileIdentityKey(xplane_path));
  return cache->Get<HloOpDb>("hlo_op_db|" + key, compute);
}

StatusOr<ToolOutput> HloStatsTool(const ToolInput& in) {
  ASSIGN_OR_RETURN(auto db, HloOpDbForPaths(in));
  return WantsCsv(in) ? Output(HloStatsToCsv(*db), true) : Output(HloStatsToJson(*db), false);
}

StatusOr<ToolOutput> OpProfileTool(const ToolInput& in) {
  ASSIGN_OR_RETURN(auto db, HloOpDbForPaths(in));
  return Output(ConvertHloOpDbToOpProfileJson(*db), false);
}

StatusOr<ToolOutput> RooflineModelTool(const ToolInput& in) {
  ASSIGN_OR_RETURN(auto db, HloOpDbForPaths(in));
  return WantsCsv(in) ? Output(ConvertHloOpDbToRooflineCsv(*db), true) : Output(ConvertHloOpDbToRooflineJson(*db), false);
}

}  // namespace tbprof
