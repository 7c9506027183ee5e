#include "convert/tools/cached_loads.h"

#include <filesystem>
#include <optional>

#include "convert/analysis/op_stats/op_stats_combiner.h"
#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/base/cancellation.h"
#include "convert/base/memory_grant.h"
#include "convert/load/profile_file.h"
#include "convert/tools/model_image_file.h"
#include "convert/tools/op_stats_summary.h"
#include "convert/tools/trace_preview_file.h"

namespace tbprof {
namespace {

// The op-statistics path copies each name it shows many times over, none of
// them in bulk: building OpStats (an op's row key, its name, its type and
// category parsed from it, in three databases) and, per request, the tool's
// protos, tables and JSON (each table twice: with and without idle). Measured
// with heaptrack on a PyTorch trace of one 128 MB name: about 4 copies while
// OpStats is built and 16 per framework_op_stats request (the overview's few
// top ops are within its answer's estimate). They are claimed
// before they are made, from the names' bytes, so a profile of huge names
// gets 413 at the bound instead of taking the process past it.
constexpr uint64_t kOpStatsBuildCopies = 4;
constexpr uint64_t kOpTableNameCopies = 16;
// Measured with heaptrack on a dense xplane (5M events of one name in one
// line, `tbprof convert --tool overview_page`): grouping held about 30 bytes
// an event at its peak beside the model's own 24.
constexpr uint64_t kGroupingBytesPerEvent = 32;

uint64_t NameBytes(const OpStats& stats) {
  uint64_t bytes = 0;
  for (const OpMetricsDb* db : {&stats.host_op_metrics_db, &stats.device_op_metrics_db, &stats.device_tf_op_metrics_db}) {
    for (const auto& [key, metrics] : db->ops) bytes += key.size();
  }
  return bytes;
}

// Whether the profile still has the size and mtime `before` saw (its digest
// was read then): what was computed from a file rewritten meanwhile is not kept on disk.
bool Unchanged(const std::string& path, const ProfileIdentity& before) {
  auto now = FileIdentityOf(path);
  return now.ok() && now->size == before.size && now->mtime_ns == before.mtime_ns;
}

// The model read back from an image of it whose identity matches, if there
// is one; `identity` gets the profile's when it was read.
std::unique_ptr<XSpaceModel> ModelFromImage(const std::string& path, const SummaryPolicy& policy,
                                            std::optional<ProfileIdentity>& identity) {
  if (!PresentSummaryBytes(path, policy, kModelImageSuffix)) return nullptr;
  if (auto id = IdentityOfProfile(path); id.ok()) identity = *id;
  return identity ? ReadModelImageFor(path, *identity, policy) : nullptr;
}

// The whole model: from a model image whose identity matches, else imported
// (and its image written when the policy says to write and an image pays).
StatusOr<std::unique_ptr<XSpaceModel>> LoadWholeModel(const std::string& path) {
  const SummaryPolicy policy = CurrentSummaryPolicy();
  std::optional<ProfileIdentity> identity;
  if (auto m = ModelFromImage(path, policy, identity)) return m;
  const bool write = policy.write && ModelImagePays(path);
  if (write && !identity) {
    if (auto id = IdentityOfProfile(path); id.ok()) identity = *id;
  }
  ASSIGN_OR_RETURN(auto m, LoadProfileFile(path));
  if (write && identity && Unchanged(path, *identity)) {
    const std::string target = SummaryPathFor(path, policy.summary_dir, policy.root, kModelImageSuffix);
    if (Status w = WriteModelImageFile(target, *identity, *m); !w.ok()) {
      LogSummaryLine(policy, "model image not written: " + w.message());
    }
  }
  return m;
}

}  // namespace

StatusOr<std::shared_ptr<const XSpaceModel>> LoadModelCached(const std::string& path, ArtifactCache* cache) {
  return GetForFile<XSpaceModel>(cache, "model", path, [&]() -> StatusOr<CacheValue<XSpaceModel>> {
    ASSIGN_OR_RETURN(auto m, LoadWholeModel(path));
    size_t bytes = m->MemoryBytes();
    return CacheValue<XSpaceModel>{std::move(m), bytes, {}};
  });
}

std::shared_ptr<const XSpaceModel> PeekModelCached(const std::string& path, ArtifactCache* cache) {
  return PeekForFile<XSpaceModel>(cache, "model", path);
}

std::shared_ptr<const EventGroups> PeekGroupsCached(const std::string& path, ArtifactCache* cache) {
  return PeekForFile<EventGroups>(cache, "groups", path);
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

namespace {

// OpStats computed from the profile itself (its model from the cache when
// there, or the one given).
StatusOr<std::shared_ptr<const OpStats>> ComputeOpStats(const std::string& path, ArtifactCache* cache,
                                                        std::shared_ptr<const XSpaceModel> model = nullptr) {
  if (!model) model = PeekModelCached(path, cache);
  // A model image reads back many times faster than the trace imports, whole
  // as it is; else only what the statistics read is imported.
  std::optional<ProfileIdentity> unused;
  if (!model) model = ModelFromImage(path, CurrentSummaryPolicy(), unused);
  if (!model) {
    ASSIGN_OR_RETURN(auto loaded, LoadProfileFile(path, OpStatsLoadOptions()));
    model = std::move(loaded);
  }
  // The names are among the model's strings (with its string stats): an upper bound.
  RETURN_IF_ERROR(ClaimMemory(kOpStatsBuildCopies * model->strings.MemoryBytes(), "op statistics: their names"));
  std::shared_ptr<const EventGroups> groups = PeekGroupsCached(path, cache);
  // Grouping the events into steps works on arrays per event (nesting, links,
  // the group of each) that no name bounds: a profile of tiny events needs
  // them many times its file. Claimed before they are made, handed back after.
  const uint64_t grouping_bytes = groups ? 0 : kGroupingBytesPerEvent * model->NumEvents();
  RETURN_IF_ERROR(ClaimMemory(grouping_bytes, "op statistics: grouping the events into steps"));
  auto stats = std::make_shared<const OpStats>(ConvertXSpaceToOpStats(*model, &groups));
  ReleaseMemory(grouping_bytes);
  // Stopped part-way for a client that left: partial statistics are no answer.
  if (CancelRequested()) return CancelledError("op statistics of " + path);
  KeepGroupsCached(path, std::move(groups), cache);
  return std::shared_ptr<const OpStats>(std::move(stats));
}

CacheValue<OpStats> ToCacheValue(std::shared_ptr<const OpStats> stats) {
  const size_t bytes = stats->ApproxBytes();
  return CacheValue<OpStats>{std::move(stats), bytes, {}};
}

// The OpStats of the profile's summary when one is present and its identity
// matches, else null; `identity` gets the profile's when it was read (also
// when the policy writes summaries, for the one written).
std::shared_ptr<const OpStats> OpStatsOfSummary(const std::string& path, const SummaryPolicy& policy,
                                                std::optional<ProfileIdentity>& identity) {
  const bool present = PresentSummaryBytes(path, policy).has_value();
  if (present || policy.write) {
    if (auto id = IdentityOfProfile(path); id.ok()) identity = *id;
  }
  return present && identity ? ReadSummaryFor(path, *identity, policy) : nullptr;
}

// OpStats computed from the profile, written as its summary when the policy
// says so and the profile is still the one `identity` saw; for the cache.
StatusOr<CacheValue<OpStats>> OpStatsOfProfile(const std::string& path, ArtifactCache* cache,
                                               const SummaryPolicy& policy,
                                               const std::optional<ProfileIdentity>& identity) {
  if (!policy.write || !identity) {
    ASSIGN_OR_RETURN(auto stats, ComputeOpStats(path, cache));
    return ToCacheValue(std::move(stats));
  }
  // The summary holds trace_analysis' sections too, which read stats the
  // OpStats load leaves out: the whole model is loaded once for both.
  std::shared_ptr<const XSpaceModel> model = PeekModelCached(path, cache);
  if (!model) {
    ASSIGN_OR_RETURN(auto loaded, LoadWholeModel(path));
    model = std::move(loaded);
  }
  ASSIGN_OR_RETURN(auto stats, ComputeOpStats(path, cache, model));
  if (Unchanged(path, *identity)) {
    const std::string target = SummaryPathFor(path, policy.summary_dir, policy.root);
    const std::string bytes = EncodeSummary(*identity, *stats, trace_analysis::ComputeRankSections(*model));
    if (Status w = WriteSummaryFile(target, bytes); !w.ok()) LogSummaryLine(policy, "summary not written: " + w.message());
  }
  return ToCacheValue(std::move(stats));
}

// One host's OpStats for a combination of hosts: the cached ones when there;
// else its summary's, which are not cached (the combination is, and a page
// of that one host decodes its summary again in milliseconds: a pod's 64
// hosts, each cached, were most of its ALL_HOSTS pages' peak RSS); else
// computed from the profile and cached, as LoadOpStatsCached does.
StatusOr<std::shared_ptr<const OpStats>> HostOpStatsToCombine(const std::string& path, ArtifactCache* cache) {
  if (auto cached = PeekForFile<OpStats>(cache, "op_stats", path)) return cached;
  const SummaryPolicy policy = CurrentSummaryPolicy();
  std::optional<ProfileIdentity> identity;
  if (auto stats = OpStatsOfSummary(path, policy, identity)) return stats;
  return GetForFile<OpStats>(cache, "op_stats", path,
                             [&]() { return OpStatsOfProfile(path, cache, policy, identity); });
}

// The hosts' combination, each host's OpStats dropped once it is added.
StatusOr<OpStats> FoldOpStats(const std::vector<std::string>& profile_paths, ArtifactCache* cache) {
  OpStatsFold fold;
  for (const std::string& path : profile_paths) {
    ASSIGN_OR_RETURN(auto host, HostOpStatsToCombine(path, cache));
    fold.Add(*host);
  }
  return std::move(fold).Finish();
}

}  // namespace

StatusOr<std::shared_ptr<const OpStats>> LoadOpStatsCached(const std::string& xplane_path, ArtifactCache* cache) {
  return GetForFile<OpStats>(cache, "op_stats", xplane_path, [&]() -> StatusOr<CacheValue<OpStats>> {
    const SummaryPolicy policy = CurrentSummaryPolicy();
    std::optional<ProfileIdentity> identity;
    if (auto stats = OpStatsOfSummary(xplane_path, policy, identity)) return ToCacheValue(std::move(stats));
    return OpStatsOfProfile(xplane_path, cache, policy, identity);
  });
}

namespace {
// `index`'s first picture at `preview_path` when its trace is down-sampled
// (an older one there removed, whatever the trace now is).
Status WriteTracePreviewOfIndex(const TraceIndex& index, const ProfileIdentity& identity,
                                const std::string& preview_path) {
  std::error_code ec;
  std::filesystem::remove(preview_path, ec);
  std::optional<TracePreview> preview = BuildTracePreview(index, kTraceStreamingThreshold);
  return preview ? WriteTracePreviewFile(preview_path, identity, *preview) : Status::Ok();
}

// The same from the model, its index built only for a trace large enough to be down-sampled.
Status WriteTracePreviewOf(const std::shared_ptr<const XSpaceModel>& model, const ProfileIdentity& identity,
                           const std::string& preview_path) {
  if (static_cast<int64_t>(model->NumEvents()) < kTraceStreamingThreshold) {
    std::error_code ec;
    std::filesystem::remove(preview_path, ec);
    return Status::Ok();
  }
  return WriteTracePreviewOfIndex(*TraceIndex::Build(model), identity, preview_path);
}
}  // namespace

StatusOr<SummarizeResult> SummarizeProfileFile(const std::string& path, const std::string& summary_path) {
  ASSIGN_OR_RETURN(ProfileIdentity identity, IdentityOfProfile(path));
  // An outdated or damaged summary there is simply rewritten.
  const bool image_pays = ModelImagePays(path);
  const bool image_missing = image_pays && !std::filesystem::exists(ModelImagePathFor(summary_path));
  // A preview present but not valid (another tbprof build wrote it) is made again; an absent one may be
  // absent because the trace is not down-sampled, which only its model tells.
  const std::string preview_path = ModelImagePathFor(summary_path, kTracePreviewSuffix);
  const bool preview_stale = image_pays && std::filesystem::exists(preview_path) &&
                             !ReadTracePreviewFile(preview_path, identity).ok();
  if (auto existing = ReadSummaryFile(summary_path); existing.ok() && DecodeSummary(*existing, identity).ok() &&
                                                     DecodeSummarySections(*existing, identity).ok() &&
                                                     !image_missing && !preview_stale) {
    return SummarizeResult{.summary_bytes = existing->size(), .already_current = true};
  }
  // The whole model is loaded once: OpStats and the trace_analysis sections
  // (which read stats the OpStats load leaves out) are computed from it, and
  // its image written where one pays.
  ASSIGN_OR_RETURN(std::unique_ptr<XSpaceModel> loaded, LoadProfileFile(path));
  const std::shared_ptr<const XSpaceModel> model = std::move(loaded);
  ASSIGN_OR_RETURN(auto stats, ComputeOpStats(path, nullptr, model));
  const trace_analysis::RankSections sections = trace_analysis::ComputeRankSections(*model);
  if (!Unchanged(path, identity)) return Unavailable(path + " changed while it was read");
  if (image_pays) {
    RETURN_IF_ERROR(WriteModelImageFile(ModelImagePathFor(summary_path), identity, *model));
    RETURN_IF_ERROR(WriteTracePreviewOf(model, identity, preview_path));
  }
  const std::string bytes = EncodeSummary(identity, *stats, sections);
  RETURN_IF_ERROR(WriteSummaryFile(summary_path, bytes));
  return SummarizeResult{.summary_bytes = bytes.size(), .already_current = false};
}

void WriteTracePreviewIfAsked(const std::string& path, const TraceIndex& index, const ProfileIdentity& identity,
                              const SummaryPolicy& policy) {
  if (!policy.write || !ModelImagePays(path) || !Unchanged(path, identity)) return;
  const std::string target = SummaryPathFor(path, policy.summary_dir, policy.root, kTracePreviewSuffix);
  if (Status w = WriteTracePreviewOfIndex(index, identity, target); !w.ok()) {
    LogSummaryLine(policy, "trace preview not written: " + w.message());
  }
}

std::optional<trace_analysis::RankSections> SectionsFromSummary(const std::string& path) {
  const SummaryPolicy policy = CurrentSummaryPolicy();
  if (!PresentSummaryBytes(path, policy)) return std::nullopt;
  auto identity = IdentityOfProfile(path);
  if (!identity.ok()) return std::nullopt;
  return ReadSummarySectionsFor(path, *identity, policy);
}

StatusOr<std::shared_ptr<const OpStats>> OpStatsForPaths(const std::vector<std::string>& profile_paths,
                                                         ArtifactCache* cache) {
  if (profile_paths.empty()) return InvalidArgument("no xplane file selected");
  if (profile_paths.size() == 1) return LoadOpStatsCached(profile_paths[0], cache);
  if (cache == nullptr) {
    ASSIGN_OR_RETURN(OpStats combined, FoldOpStats(profile_paths, nullptr));
    return std::shared_ptr<const OpStats>(std::make_shared<const OpStats>(std::move(combined)));
  }
  // The combination is cached under every file's identity: the next page of
  // the same hosts (ALL_HOSTS of a pod: overview, then op stats, kernels,
  // pod viewer) does not combine hundreds of hosts again.
  std::string key = "op_stats_combined";
  for (const std::string& path : profile_paths) {
    ASSIGN_OR_RETURN(std::string file_key, FileIdentityKey(path));
    key += "|" + file_key;
  }
  return cache->Get<OpStats>(key, [&]() -> StatusOr<CacheValue<OpStats>> {
    ASSIGN_OR_RETURN(OpStats combined, FoldOpStats(profile_paths, cache));
    return ToCacheValue(std::make_shared<const OpStats>(std::move(combined)));
  });
}

Status ClaimOpTableNames(const OpStats& stats) {
  return ClaimMemory(kOpTableNameCopies * NameBytes(stats), "the op tables: their names");
}

}  // namespace tbprof
