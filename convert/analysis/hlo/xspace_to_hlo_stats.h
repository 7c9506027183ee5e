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

#include "convert/analysis/hlo/hlo_op_db.h"
#include "convert/model/xspace_model.h"
#include "convert/model/load_options.h"

namespace tbprof {

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
