// The HLO op table's types: one row per XLA op (program, instruction) with
// its device time and costs, and the table with its programs and peaks.
// xspace_to_hlo_stats.h fills it; its steps (hlo_op_collector.h) and the
// tools that read it (op_profile, roofline) build on these types alone.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "convert/analysis/device/device_peaks.h"
#include "convert/analysis/hlo_program/hlo_module.h"

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

}  // namespace tbprof
