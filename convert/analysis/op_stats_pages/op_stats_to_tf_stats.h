// OpStats -> framework_op_stats / tensorflow_stats (xprof op_stats_to_tf_stats.cc).
// The JSON/CSV writers are shared with legacy tensorflow_stats.pb.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "convert/analysis/op_stats/framework_op_metrics.h"
#include "convert/analysis/op_stats/op_stats.h"
#include "convert/base/data_table.h"
#include "proto/tf_stats.pb.h"

namespace tbprof {

tensorflow::profiler::TfStatsDatabase ConvertOpStatsToTfStats(const OpStats& op_stats);

// `is_training` gives the `task_type` property (RunEnvironment::is_training,
// the overview's rule); without it the table's own rows tell (legacy files).
// A PyTorch run's table (`pytorch`) says framework "PyTorch" and has no
// "Execution mode" column: PyTorch runs every op eagerly, so TensorFlow's
// Eager / Function split would call each of its ops a Function.
DataTable TfStatsTableToDataTable(const tensorflow::profiler::TfStatsTable& table, const std::string& device_type,
                                  std::optional<bool> is_training, bool pytorch = false);
// [with_idle, without_idle].
std::string TfStatsToJson(const tensorflow::profiler::TfStatsDatabase& db);
std::string TfStatsToJson(const tensorflow::profiler::TfStatsDatabase& db, std::optional<bool> is_training,
                          bool pytorch = false);
// The with-idle table as CSV (xprof's data_csv).
std::string TfStatsToCsv(const tensorflow::profiler::TfStatsDatabase& db, bool pytorch = false);

}  // namespace tbprof
