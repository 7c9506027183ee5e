// Per-host OpStats -> one OpStats for ALL_HOSTS (xprof op_stats_combiner.cc).
#pragma once

#include <memory>
#include <vector>

#include "convert/analysis/op_stats/op_stats.h"

namespace tbprof {

// Merges per-host OpStats (xprof OpStatsCombiner): op dbs summed, steps kept
// per host for the step numbers all hosts have, kernel reports merged.
OpStats CombineOpStats(const std::vector<std::shared_ptr<const OpStats>>& hosts);

// Adds `src`'s ops and totals into `dst` (xprof OpMetricsDbCombiner).
void CombineOpMetricsDb(const OpMetricsDb& src, OpMetricsDb& dst);

}  // namespace tbprof
