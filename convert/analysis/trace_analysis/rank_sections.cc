#include "convert/analysis/trace_analysis/rank_sections.h"

#include <utility>

#include "convert/analysis/trace_analysis/trace_analysis_kernels.h"

namespace tbprof::trace_analysis {

namespace {

// Sections 7–9's per-rank parts: the rank's collectives, its critical path, its op roofline.
void ComputeLaterSections(const XSpaceModel& space, const RankKernels& kernels,
                          std::optional<int64_t> critical_path_step, RankSections& out) {
  out.collectives = CollectiveBandwidth(space, static_cast<int>(kernels.rank), kernels.host);
  StatusOr<CriticalPath> path = ComputeCriticalPath(space, critical_path_step);
  if (path.ok()) {
    out.critical_path.path = std::move(*path);
    out.critical_path.path->visits.clear();
  } else {
    out.critical_path.reason = path.status().message();
  }
  out.roofline = ComputeOpRoofline(space, kernels);
}

}  // namespace

RankSections ComputeRankSections(const XSpaceModel& space, std::optional<int64_t> critical_path_step) {
  RankSections out;
  out.stated_rank = StatedRankOfModel(space);
  out.framework = std::string(FrameworkOfModel(space));
  const RankKernels kernels = ExtractRankKernels(space, 0, "");
  out.num_kernels = kernels.num_kernels;
  const MergedKernels merged = MergeKernelIntervals(kernels);
  out.temporal = TemporalBreakdown(kernels, merged);
  out.straggler = StragglerFiguresOf(space, kernels, out.temporal, merged);
  out.breakdown = ComputeKernelBreakdown(kernels, merged);
  out.overlap = CommCompOverlap(kernels, merged);
  out.idle = IdleTimeBreakdown(kernels);
  out.queue = QueueLength(kernels);
  SetTraceSpans(space, out.queue);
  out.launch = KernelLaunchStats(kernels);
  ComputeLaterSections(space, kernels, critical_path_step, out);
  return out;
}

void AssignRank(RankSections& s, int64_t fallback_rank, const std::string& host) {
  const int64_t rank = s.stated_rank.value_or(fallback_rank);
  const int narrow = static_cast<int>(rank);
  s.rank = rank, s.host = host;
  s.temporal.rank = rank, s.temporal.host = host;
  s.breakdown.rank = rank, s.breakdown.host = host;
  s.overlap.rank = rank, s.overlap.host = host;
  for (IdleStreamRow& r : s.idle) r.rank = rank, r.host = host;
  for (QueueStreamRow& r : s.queue) r.rank = rank, r.host = host;
  s.launch.rank = rank, s.launch.host = host;
  s.straggler.rank = narrow, s.straggler.host = host;
  for (CollectiveRow& r : s.collectives) r.rank = narrow, r.host = host;
  s.critical_path.rank = rank, s.critical_path.host = host;
}

}  // namespace tbprof::trace_analysis
