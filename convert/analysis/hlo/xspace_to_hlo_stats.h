// Device time per HLO op, the table behind hlo_stats, op_profile and
// roofline_model (xprof's device_op_metrics_db restricted to XLA ops).
//
// TPU: the `XLA Ops` line of each /device:TPU:N plane; an op's event metadata
// names it (display name, the full expression as its name) and carries
// program_id, hlo_category, flops, model_flops, bytes_accessed and
// memory_access_breakdown; times come from device_offset_ps/device_duration_ps
// when present; self time is the time not covered by nested ops.
//
// GPU: kernels with an `hlo_op` stat on the non-derived lines of each
// /device:GPU:N plane, the module by `program_id` (or `hlo_module` by name);
// consecutive kernels of one op on one line are one occurrence (an op emitted
// as several kernels). FLOPs and bytes come from the HLO cost model.
// Command buffers: when the op a kernel names is a command buffer (a `call`
// of a computation, or a name that is no instruction of the module), the
// kernel is attributed to the instruction of that computation whose name,
// with '.' and '-' written '_', matches the kernel name (XLA names a fusion's
// kernel that way); kernels that match none (library GEMMs) stay on the
// command buffer op. xprof leaves these profiles empty.
//
// Every device plane adds its span to the total time; the part not covered by
// ops is the IDLE op (occurrences 0).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "convert/analysis/common/device_peaks.h"
#include "convert/analysis/common/hlo_module.h"
#include "convert/model/xspace_model.h"
#include "convert/model/load_options.h"

namespace tbprof {

struct HloOpMetrics {
  uint64_t program_id = 0;
  std::string name;        // HLO instruction name, e.g. "fusion.3"
  std::string expression;  // HLO text
  std::string category;    // HLO category ("loop fusion", "convolution", …)
  std::string provenance;  // framework op name (op_name metadata / tf_op)
  std::string deduplicated_name;
  std::string source_info;   // "file.py:123"
  std::string source_stack;  // TPU's source_stack stat
  uint32_t occurrences = 0;
  uint64_t time_ps = 0, self_time_ps = 0;
  // Totals over all occurrences.
  double flops = 0, model_flops = 0, bytes_accessed = 0;
  // Breakdown (TPU memory_access_breakdown): HBM, CMEM, VMEM, other on-chip; read/write.
  double hbm_bytes = 0, cmem_rd = 0, cmem_wr = 0, vmem_rd = 0, vmem_wr = 0, onchip_rd = 0, onchip_wr = 0;
  bool has_breakdown = false;
  bool flops_known = false, bytes_known = false;
  bool is_idle = false;
  // The instruction in its program, when the module was found (fused children for op_profile).
  const HloInstruction* instruction = nullptr;
};

struct HloOpDb {
  std::vector<HloOpMetrics> ops;  // XLA ops, then the IDLE op (if any device time was idle)
  uint64_t total_time_ps = 0;     // summed over device planes
  DevicePeaks peaks;
  HloPrograms programs;           // kept alive: ops point into them
  // Combined hosts may hold different programs under one id (separate jobs'
  // files opened as one run): `programs` finds the first, and every host's
  // programs stay alive here because its ops point into them.
  std::vector<std::shared_ptr<const HloProgram>> combined_programs;
  bool has_device_ops = false;

  // Program id -> "<module>(<id>)".
  std::string ProgramName(uint64_t program_id) const;
};

// The event stats the step reads, for LoadOptions::keep_event_stat.
bool HloStatsReadsEventStat(std::string_view plane_name, std::string_view stat_name);

HloOpDb ConvertXSpaceToHloOpDb(const XSpaceModel& space);
// Several hosts: ops with the same (program, name) are merged, times summed.
HloOpDb CombineHloOpDbs(const std::vector<std::shared_ptr<const HloOpDb>>& dbs);

// Ops sorted by self time, descending (xprof's SortedOpMetricsDb), IDLE left out.
std::vector<const HloOpMetrics*> SortedHloOps(const HloOpDb& db);

// The hlo_stats DataTable (xprof's columns, ids and labels) as JSON, and as CSV.
std::string HloStatsToJson(const HloOpDb& db);
std::string HloStatsToCsv(const HloOpDb& db);

}  // namespace tbprof
