// kernel_stats: the KernelStatsDb OpStats collects from GPU planes
// (xprof xplane_to_kernel_stats_db.cc) and its table.
// The writers are shared with legacy kernel_stats.pb.
#pragma once

#include <map>
#include <memory>
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
  // Sorted by total duration (ties by xprof's comparator tuple), top 1000.
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
// GroupKernelReportsByOpName.
std::map<std::string, OpKernelSummary> GroupKernelReportsByOpName(const tensorflow::profiler::KernelStatsDb& db);

DataTable KernelStatsToDataTable(const tensorflow::profiler::KernelStatsDb& db);
// A single table object, as current xprof returns it.
std::string KernelStatsToJson(const tensorflow::profiler::KernelStatsDb& db);
std::string KernelStatsToCsv(const tensorflow::profiler::KernelStatsDb& db);

}  // namespace tbprof
