// XSpace -> OpStats (xprof xplane_to_op_stats.cc): groups the events, then
// runs the steps, one file each: xplane_to_op_metrics_db (host and device op
// metrics, duty cycle), xplane_to_step_events, step_events_to_steps_db,
// xspace_to_kernel_stats, xplane_to_run_environment; op_stats_combiner merges hosts.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/analysis/op_stats/op_stats_combiner.h"  // CombineOpStats, for the callers of this step
#include "convert/base/status.h"
#include "convert/grouping/group_events.h"
#include "convert/model/xspace_model.h"
#include "convert/model/load_options.h"

namespace tbprof {

// `groups`, when given: the space's GroupEvents result if already known (it
// is then not computed again), and on return the one the statistics used.
OpStats ConvertXSpaceToOpStats(const XSpaceModel& space, std::shared_ptr<const EventGroups>* groups = nullptr);

// Whether ConvertXSpaceToOpStats reads this event stat on this plane (in
// grouping, op metrics, steps or kernel stats): OpStats needs only a model
// loaded with these (LoadOptions::keep_event_stat).
bool OpStatsReadsEventStat(std::string_view plane_name, std::string_view stat_name);

// How to load a file for ConvertXSpaceToOpStats: only the event stats it
// reads, and the host's `tf_op` only on the events that can be ops.
LoadOptions OpStatsLoadOptions();

}  // namespace tbprof
