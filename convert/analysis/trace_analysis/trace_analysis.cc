#include "convert/analysis/trace_analysis/trace_analysis.h"

#include "convert/analysis/trace_analysis/comm_comp_overlap.h"
#include "convert/analysis/trace_analysis/critical_path.h"
#include "convert/analysis/trace_analysis/idle_time_breakdown.h"
#include "convert/analysis/trace_analysis/kernel_breakdown.h"
#include "convert/analysis/trace_analysis/kernel_launch.h"
#include "convert/analysis/trace_analysis/op_roofline.h"
#include "convert/analysis/trace_analysis/queue_length.h"
#include "convert/analysis/trace_analysis/stragglers.h"
#include "convert/analysis/trace_analysis/temporal_breakdown.h"
#include "convert/analysis/trace_analysis/trace_analysis_json.h"
#include "convert/base/json.h"

namespace tbprof::trace_analysis {

std::vector<RankKernels> ExtractRanks(const std::vector<RankModel>& ranks) {
  std::vector<RankKernels> out;
  out.reserve(ranks.size());
  for (const RankModel& r : ranks) {
    out.push_back(ExtractRankKernels(*r.model, RankOfModel(*r.model, r.fallback_rank), r.host));
  }
  return out;
}

namespace {

void AppendHeader(std::string& out, const std::vector<RankModel>& models, const std::vector<RankKernels>& ranks,
                  const std::vector<HostLeftOut>& left_out) {
  out += "{";
  out += "\"framework\":";
  AppendJsonString(out, models.empty() ? std::string_view("PyTorch") : FrameworkOfModel(*models[0].model));
  out += ",\"ranks\":[";
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"rank\":" + std::to_string(ranks[i].rank);
    AppendStringMember(out, "host", ranks[i].host);
    out += ",\"kernels\":" + std::to_string(ranks[i].num_kernels) + '}';
  }
  out += "],\"hosts_left_out\":[";
  for (size_t i = 0; i < left_out.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"host\":";
    AppendJsonString(out, left_out[i].host);
    AppendStringMember(out, "reason", left_out[i].reason);
    out += '}';
  }
  out += "]";
}

// Sections 7–9: stragglers (from the figures of sections 1–2), each rank's
// critical path of the step, its op roofline.
void AppendLaterSections(std::string& out, const std::vector<RankModel>& models, const std::vector<RankKernels>& ranks,
                         const std::vector<StragglerInput>& figures, const TraceAnalysisOptions& options) {
  std::vector<CollectiveRow> collectives;
  std::vector<RankCriticalPath> paths;
  std::vector<OpRoofline> rooflines;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const XSpaceModel& space = *models[i].model;
    std::vector<CollectiveRow> c = CollectiveBandwidth(space, static_cast<int>(ranks[i].rank), ranks[i].host);
    collectives.insert(collectives.end(), c.begin(), c.end());
    StatusOr<CriticalPath> path = ComputeCriticalPath(space, options.critical_path_step);
    RankCriticalPath& p = paths.emplace_back();
    p.rank = ranks[i].rank;
    p.host = ranks[i].host;
    if (path.ok()) {
      p.path = std::move(*path);
    } else {
      p.reason = path.status().message();
    }
    rooflines.push_back(ComputeOpRoofline(space, ranks[i]));
  }
  out += ',';
  AppendStragglersJson(FindStragglers(figures), collectives, out);
  out += ',';
  AppendCriticalPathJson(paths, out);
  std::vector<RankRoofline> roofline_ranks;
  for (size_t i = 0; i < ranks.size(); ++i) {
    roofline_ranks.push_back({static_cast<int>(ranks[i].rank), ranks[i].host, &rooflines[i]});
  }
  out += ',';
  AppendOpRooflineJson(roofline_ranks, out);
}

}  // namespace

std::string TraceAnalysisJson(const std::vector<RankModel>& models, const std::vector<HostLeftOut>& left_out,
                              const TraceAnalysisOptions& options) {
  const std::vector<RankKernels> ranks = ExtractRanks(models);
  std::vector<const RankKernels*> rank_ptrs;
  std::vector<TemporalRow> temporal;
  std::vector<KernelBreakdown> breakdown;
  std::vector<CommCompOverlapRow> overlap;
  std::vector<IdleStreamRow> idle;
  std::vector<QueueStreamRow> queue;
  std::vector<KernelLaunchSummary> launch;
  std::vector<StragglerInput> straggler_figures;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const RankKernels& r = ranks[i];
    rank_ptrs.push_back(&r);
    const MergedKernels merged = MergeKernelIntervals(r);
    temporal.push_back(TemporalBreakdown(r, merged));
    straggler_figures.push_back(StragglerFiguresOf(*models[i].model, r, temporal.back(), merged));
    breakdown.push_back(ComputeKernelBreakdown(r, merged));
    overlap.push_back(CommCompOverlap(r, merged));
    std::vector<IdleStreamRow> gaps = IdleTimeBreakdown(r);
    idle.insert(idle.end(), gaps.begin(), gaps.end());
    std::vector<QueueStreamRow> q = QueueLength(r);
    SetTraceSpans(*models[i].model, q);
    for (QueueStreamRow& row : q) queue.push_back(std::move(row));
    launch.push_back(KernelLaunchStats(r));
  }
  std::string out;
  AppendHeader(out, models, ranks, left_out);
  out += ',';
  AppendTemporalBreakdownJson(out, temporal);
  out += ',';
  AppendKernelBreakdownJson(out, rank_ptrs, breakdown, options.top_kernels);
  out += ',';
  AppendCommCompOverlapJson(out, overlap);
  out += ',';
  AppendIdleTimeBreakdownJson(out, idle);
  out += ',';
  AppendQueueLengthJson(out, queue);
  out += ',';
  AppendKernelLaunchJson(out, launch);
  AppendLaterSections(out, models, ranks, straggler_figures, options);
  out += '}';
  return out;
}

}  // namespace tbprof::trace_analysis
