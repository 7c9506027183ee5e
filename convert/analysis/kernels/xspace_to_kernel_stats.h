// kernel_stats: the KernelStatsDb OpStats collects from GPU planes
// (xprof xplane_to_kernel_stats_db.cc) and its table.
// The writers are shared with legacy kernel_stats.pb.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/base/data_table.h"
#include "convert/model/xspace_model.h"
#include "proto/kernel_stats.pb.h"

namespace tbprof {

// Collects one KernelReport per distinct (kernel, op, launch dims, registers,
// shared memory, TensorCore flags) from the non-derived lines of GPU planes.
class KernelStatsCollector {
 public:
  // `programs`: the profile's HLO modules (may be empty), which name an XLA
  // kernel's framework op.
  KernelStatsCollector(const XSpaceModel& space, const HloPrograms& programs);
  ~KernelStatsCollector();
  void AddPlane(const XPlaneModel& gpu_plane);
  // Every kernel, sorted by total duration (ties by xprof's comparator tuple); the table shows the first
  // kKernelTableRows.
  tensorflow::profiler::KernelStatsDb Finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Total duration desc, then KernelReportLessThanComparator's tuple asc.
void SortKernelReports(std::vector<tensorflow::profiler::KernelReport*>& reports);

struct OpKernelSummary {
  uint64_t total_duration_ns = 0;
  uint64_t tensor_core_duration_ns = 0;
  bool is_op_tensor_core_eligible = false;
};
// The kernels' figures summed per op name (xprof's GroupKernelReportsByOpName);
// with `only_ops`, for those names alone (a page that looks up a few ops
// skips building the whole table).
std::map<std::string, OpKernelSummary> GroupKernelReportsByOpName(
    const tensorflow::profiler::KernelStatsDb& db, const std::set<std::string>* only_ops = nullptr);

// The rows the kernel_stats table shows (xprof's kMaxNumOfKernels). OpStats keeps every kernel, so that
// combining hosts adds up whole figures and the table can say what it leaves out.
inline constexpr size_t kKernelTableRows = 1000;

// The first `max_rows` of `db`'s reports. `complete`: `db` holds every kernel of the profile (a legacy
// kernel_stats.pb was cut by its writer, so what it left out is unknown); the table's properties then count
// the reports past `max_rows`: hidden_kernels, hidden_occurrences and hidden_total_duration_us.
DataTable KernelStatsToDataTable(const tensorflow::profiler::KernelStatsDb& db, size_t max_rows = kKernelTableRows,
                                 bool complete = false);
// A single table object, as current xprof returns it: its first kKernelTableRows rows.
std::string KernelStatsToJson(const tensorflow::profiler::KernelStatsDb& db, bool complete = false);
// Every row: the download holds the kernels the page has no room for.
std::string KernelStatsToCsv(const tensorflow::profiler::KernelStatsDb& db);

}  // namespace tbprof
