#include "convert/analysis/op_stats_pages/op_stats_to_tf_stats.h"

#include <algorithm>
#include <cmath>

#include "convert/analysis/op_names/tf_op_utils.h"
#include "convert/analysis/op_stats/framework_op_metrics.h"
#include "convert/analysis/kernels/xspace_to_kernel_stats.h"
#include "convert/analysis/op_stats/model_tracker.h"
#include "convert/base/math_util.h"

namespace tbprof {

using tensorflow::profiler::TfStatsDatabase;
using tensorflow::profiler::TfStatsRecord;
using tensorflow::profiler::TfStatsTable;

namespace {

constexpr size_t kMaxNumOfOps = 500;



TfStatsRecord ToRecord(bool on_device, const OpMetrics& m, const DevicePeaks& peaks) {
  TfStatsRecord r;
  r.set_host_or_device(on_device ? "Device" : "Host");
  r.set_is_eager(m.is_eager);
  r.set_op_type(m.category);
  r.set_op_name(m.name);
  r.set_occurrences(static_cast<int64_t>(m.occurrences));
  double total_us = static_cast<double>(m.time_ps) / 1e6;
  double self_us = static_cast<double>(m.self_time_ps) / 1e6;
  r.set_total_time_in_us(total_us);
  r.set_avg_time_in_us(SafeDivide(total_us, static_cast<double>(m.occurrences)));
  r.set_total_self_time_in_us(self_us);
  r.set_avg_self_time_in_us(SafeDivide(self_us, static_cast<double>(m.occurrences)));
  double time_ns = static_cast<double>(m.time_ps) / 1e3;
  r.set_measured_flop_rate(SafeDivide(m.flops, time_ns));
  r.set_model_flop_rate(SafeDivide(m.flops, time_ns));
  // GiB/s, as xprof writes it under the label "GBytes/Sec".
  r.set_measured_memory_bw(GigaToGibi(SafeDivide(static_cast<double>(m.bytes_accessed), time_ns)));
  r.set_operational_intensity(SafeDivide(m.flops, static_cast<double>(m.bytes_accessed)));
  r.set_flops_v2(m.flops);
  r.set_bytes_accessed(m.bytes_accessed);
  // A framework op sums its device ops' FLOPs and bytes but not their memory
  // breakdown, so all its bytes count as HBM traffic (as xprof counts them).
  RooflineUse use;
  use.time_ps = static_cast<double>(m.time_ps);
  use.flops = m.flops;
  use.bytes = use.hbm_bytes = static_cast<double>(m.bytes_accessed);
  use.flops_known = !m.flops_unknown;
  r.set_bound_by(std::string(FindRooflineBottleneck(use, peaks).resource));
  return r;
}

TfStatsTable GenerateTable(const OpMetricsDb& host_db, const OpMetricsDb& device_tf_db,
                           const std::map<std::string, OpKernelSummary>& kernels, const DevicePeaks& peaks,
                           bool exclude_idle) {
  TfStatsTable table;
  uint64_t rank = 0;
  double device_cumulative = 0, host_cumulative = 0;
  double total_device_us =
      static_cast<double>(exclude_idle ? device_tf_db.total_op_time_ps : device_tf_db.total_time_ps) / 1e6;
  for (const OpMetrics* m : SortedOps(device_tf_db, kMaxNumOfOps)) {
    if (exclude_idle && IsIdle(*m)) continue;
    TfStatsRecord* r = table.add_tf_stats_record();
    *r = ToRecord(true, *m, peaks);
    auto it = kernels.find(r->op_name());
    r->set_gpu_tensorcore_utilization(
        it == kernels.end() ? 0.0
                            : SafeDivide(static_cast<double>(it->second.tensor_core_duration_ns),
                                         static_cast<double>(it->second.total_duration_ns)));
    r->set_rank(++rank);
    double fraction = SafeDivide(r->total_self_time_in_us(), total_device_us);
    device_cumulative += fraction;
    r->set_device_total_self_time_as_fraction(fraction);
    r->set_device_cumulative_total_self_time_as_fraction(device_cumulative);
  }
  double total_host_us = static_cast<double>(exclude_idle ? host_db.total_op_time_ps : host_db.total_time_ps) / 1e6;
  for (const OpMetrics* m : SortedOps(host_db, kMaxNumOfOps)) {
    if (exclude_idle && IsIdle(*m)) continue;
    TfStatsRecord* r = table.add_tf_stats_record();
    *r = ToRecord(false, *m, peaks);
    r->set_rank(++rank);
    double fraction = SafeDivide(r->total_self_time_in_us(), total_host_us);
    host_cumulative += fraction;
    r->set_host_total_self_time_as_fraction(fraction);
    r->set_host_cumulative_total_self_time_as_fraction(host_cumulative);
  }
  return table;
}

// The task as ModelTracker words it; unknown (no op to tell by) is left empty.
std::string TaskType(std::optional<bool> is_training) {
  if (!is_training.has_value()) return "";
  return *is_training ? "Training" : "Inference";
}

// A table without its OpStats (a legacy file): its own rows tell, by the same rule.
std::optional<bool> TrainingByRows(const TfStatsTable& table) {
  TrainingByOps by_ops;
  for (const TfStatsRecord& r : table.tf_stats_record()) by_ops.Add(r.op_name(), r.op_type());
  return by_ops.IsTraining();
}

}  // namespace

TfStatsDatabase ConvertOpStatsToTfStats(const OpStats& op_stats) {
  const OpMetricsDb& device_tf_db = op_stats.device_tf_op_metrics_db;
  auto kernels = GroupKernelReportsByOpName(op_stats.kernel_stats_db);
  TfStatsDatabase db;
  *db.mutable_with_idle() = GenerateTable(op_stats.host_op_metrics_db, device_tf_db, kernels, op_stats.peaks, false);
  *db.mutable_without_idle() = GenerateTable(op_stats.host_op_metrics_db, device_tf_db, kernels, op_stats.peaks, true);
  db.set_device_type(op_stats.run_environment.device_type);
  return db;
}

DataTable TfStatsTableToDataTable(const TfStatsTable& table, const std::string& device_type,
                                  std::optional<bool> is_training) {
  DataTable t;
  t.AddColumns({{"rank", "Rank", "number"}, {"host_or_device", "Host/device", "string"},
                {"type", "Operation Type", "string"}, {"operation", "Operation Name", "string"},
                {"occurrences", "#Occurrences", "number"}, {"total_time", "Total time (us)", "number"},
                {"avg_time", "Avg. time (us)", "number"}, {"total_self_time", "Total self-time (us)", "number"},
                {"avg_self_time", "Avg. self-time (us)", "number"},
                {"device_total_self_time_percent", "Total self-time on Device (%)", "number"},
                {"device_cumulative_total_self_time_percent", "Cumulative total-self time on Device (%)", "number"},
                {"host_total_self_time_percent", "Total self-time on Host (%)", "number"},
                {"Host_cumulative_total_self_time_percent", "Cumulative total-self time on Host (%)", "number"},
                {"measured_flop_rate", "Normalized FLOP Rate (FLOPs/s)", "number"},
                {"model_flop_rate", "Model FLOP Rate (GFLOP/s)", "number"},
                {"measured_memory_bw", "Measured Memory BW (GBytes/Sec)", "number"},
                {"operational_intensity", "Operational Intensity (FLOPs/Byte)", "number"}});
  bool gpu = device_type.find("GPU") != std::string::npos;
  if (gpu) t.AddColumn("gpu_tensorcore_utilization", "GPU TensorCore utilization", "number");
  t.AddColumn("bound_by", "Bound by", "string");
  t.AddColumn("eager", "Execution mode", "string");
  for (const TfStatsRecord& r : table.tf_stats_record()) {
    std::vector<DataTable::Cell> row = {static_cast<double>(r.rank()),
                                        r.host_or_device(),
                                        r.op_type(),
                                        r.op_name(),
                                        static_cast<double>(r.occurrences()),
                                        r.total_time_in_us(),
                                        r.avg_time_in_us(),
                                        r.total_self_time_in_us(),
                                        r.avg_self_time_in_us(),
                                        r.device_total_self_time_as_fraction(),
                                        r.device_cumulative_total_self_time_as_fraction(),
                                        r.host_total_self_time_as_fraction(),
                                        r.host_cumulative_total_self_time_as_fraction()};
    // TensorCores are a GPU's: a host op or IDLE has no utilization to show (empty, not 0 %).
    const bool on_device = r.host_or_device() == "Device" && r.op_type() != "IDLE";
    // A device op that recorded neither FLOPs nor bytes (every PyTorch kernel)
    // has rates nobody knows: empty, not 0.
    const bool rates_known = !on_device || r.flops_v2() != 0 || r.bytes_accessed() != 0;
    for (double rate : {r.measured_flop_rate(), r.model_flop_rate(), r.measured_memory_bw(), r.operational_intensity()}) {
      if (rates_known) {
        row.emplace_back(std::in_place_type<double>, rate);
      } else {
        row.emplace_back();
      }
    }
    if (gpu && on_device) {
      row.emplace_back(std::in_place_type<double>, r.gpu_tensorcore_utilization());
    } else if (gpu) {
      row.emplace_back();
    }
    row.push_back(r.bound_by());
    row.push_back(std::string(r.is_eager() ? "Eager" : "Function"));
    t.AddRow(std::move(row));
  }
  t.SetProperty("task_type", TaskType(is_training));
  t.SetProperty("architecture_type", "Unknown");
  return t;
}

std::string TfStatsToJson(const TfStatsDatabase& db) { return TfStatsToJson(db, TrainingByRows(db.with_idle())); }

std::string TfStatsToJson(const TfStatsDatabase& db, std::optional<bool> is_training) {
  DataTable with_idle = TfStatsTableToDataTable(db.with_idle(), db.device_type(), is_training);
  DataTable without_idle = TfStatsTableToDataTable(db.without_idle(), db.device_type(), is_training);
  return DataTablesToJson({&with_idle, &without_idle});
}

std::string TfStatsToCsv(const TfStatsDatabase& db) {
  return TfStatsTableToDataTable(db.with_idle(), db.device_type(), std::nullopt).ToCsv();
}

}  // namespace tbprof
