// OpStats -> pod_viewer (xprof op_stats_to_pod_viewer.cc): per step, one record
// per host core with the generic step breakdown in µs and its largest category
// as the bottleneck. Written as proto3 JSON of PodViewerDatabase.
#pragma once

#include <string>

#include "convert/analysis/op_stats/op_stats.h"

namespace tbprof {

std::string ConvertOpStatsToPodViewerJson(const OpStats& op_stats);

}  // namespace tbprof
