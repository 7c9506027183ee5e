// The steps of the HLO op table (hlo_op_db.h, filled by xspace_to_hlo_stats.h), each usable on
// its own: the table being filled (HloOpCollector: one op per program and
// instruction name, completed from the HLO), the ops of a TPU plane, the ops
// of a GPU plane, and a TPU op's memory breakdown. ConvertXSpaceToHloOpDb
// runs them top-down: every TPU plane, every GPU plane, then the IDLE op.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "convert/analysis/hlo_program/hlo_cost_model.h"
#include "convert/analysis/hlo/hlo_op_db.h"
#include "convert/model/xspace_model.h"
#include "convert/model/schema.h"

namespace tbprof {

// The op table while planes are added to it.
class HloOpCollector {
 public:
  // Loads the space's HLO programs and device peaks.
  explicit HloOpCollector(const XSpaceModel& space);

  // The op (program_id, name), made empty on first use.
  HloOpMetrics& OpFor(uint64_t program_id, const std::string& name);
  size_t IndexOf(const HloOpMetrics& m) const { return static_cast<size_t>(&m - db_.ops.data()); }
  // Fills what the HLO tells about an op that its events did not.
  static void FromHlo(const HloProgram* program, const HloInstruction* inst, HloOpMetrics& m);
  // A plane's device time: `total_ps` of which ops ran `op_ps`; returns the idle rest.
  uint64_t AddPlaneTime(uint64_t op_ps, uint64_t total_ps);
  // The table: the ops, then the IDLE op when `idle_ps` > 0.
  HloOpDb Finish(uint64_t idle_ps) &&;

  // An event's stat, its own or its metadata's (null: none), and its text.
  const Stat* Any(const XPlaneModel& p, uint32_t e, StrId n) const {
    return n == kNoStr ? nullptr : p.FindEventOrMetadataStat(e, n);
  }
  std::string_view Str(const Stat* s) const {
    return s != nullptr && s->kind == StatKind::kStr ? space_.Str(s->str) : std::string_view();
  }

  const XSpaceModel& space() const { return space_; }
  HloOpDb& db() { return db_; }
  const schema::StatIds ids;
  const StrId model_flops, breakdown, dedup, source_stack;  // stats only this table reads
  // GPU ops by index: the instruction's cost, when found.
  std::vector<std::optional<HloCost>> gpu_cost;

 private:
  const XSpaceModel& space_;
  HloOpDb db_;
  std::map<std::pair<uint64_t, std::string>, size_t> index_;
};

// The ops of a TPU plane's "XLA Ops" line; returns the plane's idle time.
uint64_t CollectTpuPlaneOps(const XPlaneModel& p, HloOpCollector& ops);
// The ops of a GPU plane's kernels; returns the plane's idle time.
uint64_t CollectGpuPlaneOps(const XPlaneModel& p, HloOpCollector& ops);

// Adds a serialized MemoryAccessBreakdown of `times` runs to `m`: repeated
// message (field 1) of {operation_type = 1 (1 read, 2 write), memory_space =
// 2, bytes_accessed = 3}. Memory spaces as TPUs report them: 1 HBM, 2 CMEM,
// 3 VMEM, others on chip. A malformed message stops the reading there.
void AddMemoryBreakdown(std::string_view bytes, double times, HloOpMetrics& m);

}  // namespace tbprof
