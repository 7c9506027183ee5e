#include "convert/analysis/trace_analysis/trace_analysis.h"

#include <utility>

#include "convert/analysis/trace_analysis/trace_analysis_json.h"
#include "convert/base/json.h"

namespace tbprof::trace_analysis {

namespace {

void AppendHeader(std::string& out, const std::vector<RankSections>& ranks,
                  const std::vector<HostLeftOut>& left_out) {
  out += "{";
  out += "\"framework\":";
  AppendJsonString(out, ranks.empty() ? std::string_view("PyTorch") : std::string_view(ranks[0].framework));
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

// Sections 1–6, each rank's rows side by side.
void AppendFirstSections(std::string& out, std::vector<RankSections>& ranks, size_t top_kernels) {
  std::vector<TemporalRow> temporal;
  std::vector<KernelBreakdown> breakdown;
  std::vector<CommCompOverlapRow> overlap;
  std::vector<IdleStreamRow> idle;
  std::vector<QueueStreamRow> queue;
  std::vector<KernelLaunchSummary> launch;
  for (RankSections& r : ranks) {
    temporal.push_back(std::move(r.temporal));
    breakdown.push_back(std::move(r.breakdown));
    overlap.push_back(std::move(r.overlap));
    for (IdleStreamRow& row : r.idle) idle.push_back(std::move(row));
    for (QueueStreamRow& row : r.queue) queue.push_back(std::move(row));
    launch.push_back(std::move(r.launch));
  }
  out += ',';
  AppendTemporalBreakdownJson(out, temporal);
  out += ',';
  AppendKernelBreakdownJson(out, breakdown, top_kernels);
  out += ',';
  AppendCommCompOverlapJson(out, overlap);
  out += ',';
  AppendIdleTimeBreakdownJson(out, idle);
  out += ',';
  AppendQueueLengthJson(out, queue);
  out += ',';
  AppendKernelLaunchJson(out, launch);
}

// Sections 7–9: stragglers (from the figures of sections 1–2), each rank's
// critical path of the step, its op roofline.
void AppendLaterSections(std::string& out, std::vector<RankSections>& ranks) {
  std::vector<StragglerInput> figures;
  std::vector<CollectiveRow> collectives;
  std::vector<RankCriticalPath> paths;
  std::vector<RankRoofline> rooflines;
  for (RankSections& r : ranks) {
    figures.push_back(std::move(r.straggler));
    for (CollectiveRow& row : r.collectives) collectives.push_back(std::move(row));
    paths.push_back(std::move(r.critical_path));
    rooflines.push_back({static_cast<int>(r.rank), r.host, &r.roofline});
  }
  out += ',';
  AppendStragglersJson(FindStragglers(figures), collectives, out);
  out += ',';
  AppendCriticalPathJson(paths, out);
  out += ',';
  AppendOpRooflineJson(rooflines, out);
}

}  // namespace

std::string CombineRanksJson(std::vector<RankSections> ranks, const std::vector<HostLeftOut>& left_out,
                             size_t top_kernels) {
  std::string out;
  AppendHeader(out, ranks, left_out);
  AppendFirstSections(out, ranks, top_kernels);
  AppendLaterSections(out, ranks);
  out += '}';
  return out;
}

std::string TraceAnalysisJson(const std::vector<RankModel>& models, const std::vector<HostLeftOut>& left_out,
                              const TraceAnalysisOptions& options) {
  std::vector<RankSections> sections;
  sections.reserve(models.size());
  for (const RankModel& m : models) {
    sections.push_back(ComputeRankSections(*m.model, options.critical_path_step));
    AssignRank(sections.back(), m.fallback_rank, m.host);
  }
  return CombineRanksJson(std::move(sections), left_out, options.top_kernels);
}

}  // namespace tbprof::trace_analysis
