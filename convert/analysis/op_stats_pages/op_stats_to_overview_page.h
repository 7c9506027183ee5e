// OpStats -> overview_page (xprof op_stats_to_overview_page.cc).
// The JSON writer is shared with legacy overview_page.pb files.
#pragma once

#include <string>

#include "convert/analysis/op_stats/op_stats.h"
#include "proto/overview_page.pb.h"

namespace tbprof {

tensorflow::profiler::OverviewPage ConvertOpStatsToOverviewPage(const OpStats& op_stats);

// [analysis, step-time graph, run environment, recommendation, inference latency, {}, diagnostics].
std::string OverviewPageToJson(const tensorflow::profiler::OverviewPage& page);

}  // namespace tbprof
