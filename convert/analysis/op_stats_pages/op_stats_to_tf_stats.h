// OpStats -> framework_op_stats / tensorflow_stats (xprof op_stats_to_tf_stats.cc).
// The JSON/CSV writers are shared with legacy tensorflow_stats.pb.
#pragma once

#include <string>
#include <vector>

#include "convert/analysis/op_stats/framework_op_metrics.h"
#include "convert/analysis/op_stats/op_stats.h"
#include "convert/base/data_table.h"
#include "proto/tf_stats.pb.h"

namespace tbprof {

tensorflow::profiler::TfStatsDatabase ConvertOpStatsToTfStats(const OpStats& op_stats);

DataTable TfStatsTableToDataTable(const tensorflow::profiler::TfStatsTable& table, const std::string& device_type);
// [with_idle, without_idle].
std::string TfStatsToJson(const tensorflow::profiler::TfStatsDatabase& db);
// The with-idle table as CSV (xprof's data_csv).
std::string TfStatsToCsv(const tensorflow::profiler::TfStatsDatabase& db);

}  // namespace tbprof
