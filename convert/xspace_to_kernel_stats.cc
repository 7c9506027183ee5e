#include "convert/xspace_to_kernel_stats.h"

namespace tbprof {

using tensorflow::profiler::KernelReport;
using tensorflow::profiler::KernelStatsDb;

std::map<std::string, OpKernelSummary> GroupKernelReportsByOpName(const KernelStatsDb& db) {
  std::map<std::string, OpKernelSummary> out;
  for (const KernelReport& r : db.reports()) {
    auto [it, inserted] = out.try_emplace(r.op_name());
    OpKernelSummary& s = it->second;
    if (inserted) s.is_op_tensor_core_eligible = r.is_op_tensor_core_eligible();
    s.total_duration_ns += r.total_duration_ns();
    if (r.is_kernel_using_tensor_core()) s.tensor_core_duration_ns += r.total_duration_ns();
  }
  return out;
}

namespace {
std::string Dims(const google::protobuf::RepeatedField<uint32_t>& d) {
  std::string s;
  for (int i = 0; i < d.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(d[i]);
  }
  return s;
}
}  // namespace

DataTable KernelStatsToDataTable(const KernelStatsDb& db) {
  DataTable t;
  t.AddColumn("rank", "Rank", "number");
  t.AddColumn("kernel_name", "Kernel Name", "string");
  t.AddColumn("registers_per_thread", "Registers per thread", "number");
  t.AddColumn("shmem_bytes", "Shared Mem bytes", "number");
  t.AddColumn("block_dim", "Block dim", "string");
  t.AddColumn("grid_dim", "Grid dim", "string");
  t.AddColumn("occupancy_pct", "Theoretical Occupancy %", "number");
  t.AddColumn("is_op_tensor_core_eligible", "Op is TensorCore eligible", "boolean");
  t.AddColumn("is_kernel_using_tensor_core", "Kernel uses TensorCore", "boolean");
  t.AddColumn("op_name", "Op Name", "string");
  t.AddColumn("occurrences", "Occurrences", "number");
  t.AddColumn("total_duration_us", "Total Duration (μs)", "number");
  t.AddColumn("avg_duration_us", "Avg Duration (μs)", "number");
  t.AddColumn("min_duration_us", "Min Duration (μs)", "number");
  t.AddColumn("max_duration_us", "Max Duration (μs)", "number");
  int rank = 0;
  for (const KernelReport& r : db.reports()) {
    uint64_t avg_ns = r.occurrences() ? r.total_duration_ns() / r.occurrences() : 0;
    t.AddRow({static_cast<double>(++rank), r.name(), static_cast<double>(r.registers_per_thread()),
              static_cast<double>(r.static_shmem_bytes()) + static_cast<double>(r.dynamic_shmem_bytes()),
              Dims(r.block_dim()), Dims(r.grid_dim()), static_cast<double>(r.occupancy_pct()),
              r.is_op_tensor_core_eligible(), r.is_kernel_using_tensor_core(), r.op_name(),
              static_cast<double>(r.occurrences()), static_cast<double>(r.total_duration_ns()) / 1000.0,
              static_cast<double>(avg_ns) / 1000.0, static_cast<double>(r.min_duration_ns()) / 1000.0,
              static_cast<double>(r.max_duration_ns()) / 1000.0});
  }
  return t;
}

std::string KernelStatsToJson(const KernelStatsDb& db) { return KernelStatsToDataTable(db).ToJson(); }
std::string KernelStatsToCsv(const KernelStatsDb& db) { return KernelStatsToDataTable(db).ToCsv(); }

}  // namespace tbprof
