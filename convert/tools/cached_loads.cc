#include "convert/tools/cached_loads.h"

#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/base/cancellation.h"
#include "convert/load/profile_file.h"

namespace tbprof {

StatusOr<std::shared_ptr<const XSpaceModel>> LoadModelCached(const std::string& path, ArtifactCache* cache) {
  return GetForFile<XSpaceModel>(cache, "model", path, [&]() -> StatusOr<CacheValue<XSpaceModel>> {
    ASSIGN_OR_RETURN(auto m, LoadProfileFile(path));
    size_t bytes = m->MemoryBytes();
    return CacheValue<XSpaceModel>{std::move(m), bytes, {}};
  });
}

std::shared_ptr<const XSpaceModel> PeekModelCached(const std::string& path, ArtifactCache* cache) {
  if (cache == nullptr) return nullptr;
  auto key = FileIdentityKey(path);
  return key.ok() ? cache->Peek<XSpaceModel>("model|" + *key) : nullptr;
}

std::shared_ptr<const EventGroups> PeekGroupsCached(const std::string& path, ArtifactCache* cache) {
  if (cache == nullptr) return nullptr;
  auto key = FileIdentityKey(path);
  return key.ok() ? cache->Peek<EventGroups>("groups|" + *key) : nullptr;
}

void KeepGroupsCached(const std::string& path, std::shared_ptr<const EventGroups> groups, ArtifactCache* cache) {
  if (cache == nullptr || !groups || CancelRequested()) return;  // groups cut short are no answer
  auto key = FileIdentityKey(path);
  if (!key.ok()) return;
  size_t bytes = sizeof(EventGroups);
  for (const auto& g : groups->group_of) bytes += g.capacity() * sizeof(int32_t) + sizeof(g);
  for (const auto& n : groups->has_step_name) bytes += n.capacity() + sizeof(n);
  for (const auto& [id, name] : groups->group_names) bytes += name.capacity() + 64;
  (void)cache->Get<EventGroups>(
      "groups|" + *key,
      [&]() -> StatusOr<std::pair<std::shared_ptr<const EventGroups>, size_t>> { return std::make_pair(groups, bytes); });
}

StatusOr<std::shared_ptr<const OpStats>> LoadOpStatsCached(const std::string& xplane_path, ArtifactCache* cache) {
  return GetForFile<OpStats>(cache, "op_stats", xplane_path, [&]() -> StatusOr<CacheValue<OpStats>> {
    std::shared_ptr<const XSpaceModel> model = PeekModelCached(xplane_path, cache);
    if (!model) {
      ASSIGN_OR_RETURN(auto loaded, LoadProfileFile(xplane_path, OpStatsLoadOptions()));
      model = std::move(loaded);
    }
    std::shared_ptr<const EventGroups> groups = PeekGroupsCached(xplane_path, cache);
    auto stats = std::make_shared<const OpStats>(ConvertXSpaceToOpStats(*model, &groups));
    // Stopped part-way for a client that left: partial statistics are no answer.
    if (CancelRequested()) return CancelledError("op statistics of " + xplane_path);
    KeepGroupsCached(xplane_path, std::move(groups), cache);
    size_t bytes = stats->ApproxBytes();
    return CacheValue<OpStats>{std::move(stats), bytes, {}};
  });
}

StatusOr<std::shared_ptr<const OpStats>> OpStatsForPaths(const std::vector<std::string>& profile_paths,
                                                         ArtifactCache* cache) {
  if (profile_paths.empty()) return InvalidArgument("no xplane file selected");
  std::vector<std::shared_ptr<const OpStats>> per_host;
  for (const std::string& path : profile_paths) {
    ASSIGN_OR_RETURN(auto s, LoadOpStatsCached(path, cache));
    per_host.push_back(s);
  }
  if (per_host.size() == 1) return per_host[0];
  return std::shared_ptr<const OpStats>(std::make_shared<const OpStats>(CombineOpStats(per_host)));
}

}  // namespace tbprof
