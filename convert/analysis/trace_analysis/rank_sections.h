// One rank's part of the trace_analysis answer, computed from its model once
// and kept apart from it: every figure the sections' JSON writers and the
// parts across ranks (stragglers' band, critical path's top-level step, the
// op roofline's peaks) read, and nothing of the model. trace_analysis joins
// ranks' sections into the answer (trace_analysis.h), whether each came from
// a model just now or from the profile's summary on disk
// (trace_analysis_serial.h), so both give the same bytes.
//
// What depends on where the rank stands in the request, its rank number when
// the trace states none (the host's position) and the host's name, is not
// part of the figures: AssignRank writes it into every row afterwards.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "convert/analysis/trace_analysis/comm_comp_overlap.h"
#include "convert/analysis/trace_analysis/critical_path.h"
#include "convert/analysis/trace_analysis/idle_time_breakdown.h"
#include "convert/analysis/trace_analysis/kernel_breakdown.h"
#include "convert/analysis/trace_analysis/kernel_launch.h"
#include "convert/analysis/trace_analysis/op_roofline.h"
#include "convert/analysis/trace_analysis/queue_length.h"
#include "convert/analysis/trace_analysis/stragglers.h"
#include "convert/analysis/trace_analysis/temporal_breakdown.h"
#include "convert/model/xspace_model.h"

namespace tbprof::trace_analysis {

struct RankSections {
  std::optional<int64_t> stated_rank;  // the trace's own ("rank N"); none: the host's position
  int64_t rank = 0;                    // as AssignRank set it
  std::string host;
  std::string framework;  // FrameworkOfModel's word
  size_t num_kernels = 0;
  TemporalRow temporal;
  KernelBreakdown breakdown;  // every kernel name's stats and text: any top_kernels is answered
  CommCompOverlapRow overlap;
  std::vector<IdleStreamRow> idle;
  std::vector<QueueStreamRow> queue;  // with their trace spans set
  KernelLaunchSummary launch;
  StragglerInput straggler;
  std::vector<CollectiveRow> collectives;
  RankCriticalPath critical_path;  // its visits left out: the answer draws no flows
  OpRoofline roofline;
};

// `critical_path_step`: the step whose path is kept (none: the first).
RankSections ComputeRankSections(const XSpaceModel& space, std::optional<int64_t> critical_path_step = std::nullopt);

// The rank number (the stated one, else `fallback_rank`) and host into every row.
void AssignRank(RankSections& sections, int64_t fallback_rank, const std::string& host);

}  // namespace tbprof::trace_analysis
