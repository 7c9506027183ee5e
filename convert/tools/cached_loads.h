// Loading through the artifact cache: the model, OpStats and the trace index
// of one xplane file are each computed once per file identity (size, mtime,
// inode), whoever asks. Without a cache every call loads afresh.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/analysis/trace_analysis/rank_sections.h"
#include "convert/analysis/trace_viewer/trace_index.h"
#include "convert/base/status.h"
#include "convert/tools/artifact_cache.h"
#include "convert/tools/op_stats_summary.h"
#include "convert/grouping/group_events.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

// Loads (or fetches from `cache`) the model of one xplane file.
StatusOr<std::shared_ptr<const XSpaceModel>> LoadModelCached(const std::string& path, ArtifactCache* cache);
// The whole model of one xplane file if `cache` holds it already; null otherwise (nothing is loaded).
std::shared_ptr<const XSpaceModel> PeekModelCached(const std::string& path, ArtifactCache* cache);

// The step grouping (GroupEvents) of one xplane file, which OpStats and the
// trace index both need: whichever is computed second takes it from `cache`
// instead of grouping again. Null when `cache` holds none. A model loaded for
// OpStats keeps every stat grouping reads, so either model groups the same.
std::shared_ptr<const EventGroups> PeekGroupsCached(const std::string& path, ArtifactCache* cache);
// Keeps `groups` (computed from the file at `path`) in `cache`, if not there yet.
void KeepGroupsCached(const std::string& path, std::shared_ptr<const EventGroups> groups, ArtifactCache* cache);

// OpStats of each file, computed once per file identity when `cache` is set:
// read from the file's summary when the summary policy (op_stats_summary.h)
// finds one whose identity matches, else computed from the file, which is loaded keeping only the stats OpStatsReadsEventStat accepts unless the cache
// already holds its whole model; the model is not cached for OpStats' sake.
// When the policy writes summaries, the whole model is loaded (the summary's
// trace_analysis sections read more stats) and the summary written.
StatusOr<std::shared_ptr<const OpStats>> LoadOpStatsCached(const std::string& xplane_path, ArtifactCache* cache);

// Writes the summary of the profile at `path` to `summary_path` (OpStats and
// trace_analysis sections computed from its whole model, never from another
// summary), unless a summary of this very file is there already.
struct SummarizeResult {
  uint64_t summary_bytes = 0;
  bool already_current = false;
};
StatusOr<SummarizeResult> SummarizeProfileFile(const std::string& path, const std::string& summary_path);

// For a server told to write summaries: `index`'s trace preview (its first
// picture, trace_preview_file.h) written where the policy keeps the profile's
// summary, when its model image pays, its trace is down-sampled and the profile
// is still the one `identity` saw; a failure is logged, never the request's.
void WriteTracePreviewIfAsked(const std::string& path, const TraceIndex& index, const ProfileIdentity& identity,
                              const SummaryPolicy& policy);

// A profile's trace_analysis sections (rank and host not assigned) from its
// summary when the summary policy finds one whose identity matches and whose
// sections are sound; none otherwise (the caller computes them from the
// model). No model is loaded.
std::optional<trace_analysis::RankSections> SectionsFromSummary(const std::string& path);

// One host: its OpStats; several: the combination (cached, when `cache` is set, under every file's identity).
StatusOr<std::shared_ptr<const OpStats>> OpStatsForPaths(const std::vector<std::string>& profile_paths,
                                                         ArtifactCache* cache);

// Claims, from the calling work's memory grant, the copies of every op name
// that a table of all ops makes (framework_op_stats, compare's op section):
// 413 at the bound for a profile of huge names instead of growing past it.
// Pages that show a few ops (overview, input pipeline, pod viewer) claim nothing.
Status ClaimOpTableNames(const OpStats& stats);

}  // namespace tbprof
