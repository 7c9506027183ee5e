// XSpace -> OpStats (xprof xplane_to_op_stats.cc): grouping, step events and
// step breakdown, host and device op metrics, kernel stats, run environment.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "convert/analysis/op_stats.h"
#include "convert/base/status.h"
#include "convert/xplane/xspace_model.h"

namespace tbprof {

OpStats ConvertXSpaceToOpStats(const XSpaceModel& space);

// Merges per-host OpStats (xprof OpStatsCombiner): op dbs summed, steps kept
// per host for the step numbers all hosts have, kernel reports merged.
OpStats CombineOpStats(const std::vector<std::shared_ptr<const OpStats>>& hosts);

// Whether ConvertXSpaceToOpStats reads this event stat on this plane (in
// grouping, op metrics, steps or kernel stats): OpStats needs only a model
// loaded with these (LoadOptions::keep_event_stat).
bool OpStatsReadsEventStat(std::string_view plane_name, std::string_view stat_name);

}  // namespace tbprof
