// The TPU step of the HLO op table (hlo_op_collector.h).
#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "convert/analysis/self_time/op_self_time.h"
#include "convert/analysis/hlo/hlo_op_collector.h"
#include "convert/model/event_nesting.h"

namespace tbprof {
namespace {

// The op of a TPU event's metadata; names as xprof: the display name when
// set, the name as the expression.
size_t TpuOp(const XPlaneModel& p, uint32_t e, HloOpCollector& ops) {
  const XSpaceModel& space = ops.space();
  const EventMetadata& md = p.event_metadata[p.events[e].metadata];
  std::string name(space.Str(md.display_name != kNoStr ? md.display_name : md.name));
  const uint64_t program_id = static_cast<uint64_t>(ops.ids.ProgramId(p, e).value_or(0));
  HloOpMetrics& m = ops.OpFor(program_id, name);
  size_t index = ops.IndexOf(m);
  if (m.occurrences > 0 || !m.category.empty()) return index;
  if (md.display_name != kNoStr) m.expression = std::string(space.Str(md.name));
  m.category = std::string(ops.Str(ops.Any(p, e, ops.ids.hlo_category)));
  m.provenance = std::string(ops.Str(ops.Any(p, e, ops.ids.tf_op)));
  m.deduplicated_name = std::string(ops.Str(ops.Any(p, e, ops.dedup)));
  m.source_info = std::string(ops.Str(ops.Any(p, e, ops.ids.source_info)));
  m.source_stack = std::string(ops.Str(ops.Any(p, e, ops.source_stack)));
  const HloProgram* program = ops.db().programs.Find(program_id);
  HloOpCollector::FromHlo(program, program ? program->FindInstruction(name) : nullptr, m);
  return index;
}

// FLOPs and bytes of one TPU op event of `runs` runs: the event's per-run
// stats, else the cost model.
void AddPerOccurrence(const XPlaneModel& p, uint32_t e, double runs, HloOpCollector& ops, HloOpMetrics& m) {
  const Stat* f = ops.Any(p, e, ops.ids.flops);
  const Stat* mf = ops.Any(p, e, ops.model_flops);
  const Stat* b = ops.Any(p, e, ops.ids.bytes_accessed);
  const Stat* bd = ops.Any(p, e, ops.breakdown);
  HloCost cost;
  bool have_cost = false;
  if ((f == nullptr || b == nullptr) && m.instruction != nullptr) {
    if (const HloProgram* prog = ops.db().programs.Find(m.program_id)) {
      cost = HloInstructionCost(*prog, *m.instruction);
      have_cost = true;
    }
  }
  if (f != nullptr) {
    m.flops += f->DoubleValue() * runs;
    m.model_flops += (mf ? mf->DoubleValue() : f->DoubleValue()) * runs;
    m.flops_known = true;
  } else if (have_cost && cost.flops_known) {
    m.flops += cost.flops * runs;
    m.model_flops += cost.flops * runs;
    m.flops_known = true;
  }
  if (b != nullptr) {
    m.bytes_accessed += b->DoubleValue() * runs;
    m.bytes_known = true;
  } else if (have_cost) {
    m.bytes_accessed += cost.bytes_accessed * runs;
    m.bytes_known = true;
  }
  if (bd != nullptr && bd->kind == StatKind::kBytes) AddMemoryBreakdown(ops.space().Blob(bd->blob), runs, m);
}

}  // namespace

// Self times by nesting as OpStats takes them (ForEachTpuOpSelfTime), so the
// op tables and framework_op_stats agree; an aggregated event stands for
// num_occurrences runs, its FLOPs and bytes are per run.
uint64_t CollectTpuPlaneOps(const XPlaneModel& p, HloOpCollector& ops) {
  const LineModel* ops_line = nullptr;
  for (const LineModel& l : p.lines) {
    if (ops.space().Str(l.name) == "XLA Ops") ops_line = &l;
  }
  if (ops_line == nullptr || ops_line->num_events == 0) return 0;
  // Ops are numbered in the order their first event begins.
  std::unordered_map<uint32_t, size_t> op_of_metadata;
  for (uint32_t e : SortedLineEvents(p, *ops_line)) {
    auto [it, fresh] = op_of_metadata.try_emplace(p.events[e].metadata, 0);
    if (fresh) it->second = TpuOp(p, e, ops);
  }
  int64_t first = INT64_MAX, last = INT64_MIN;
  uint64_t op_time = 0;
  ForEachTpuOpSelfTime(p, ops.ids, *ops_line, [&](uint32_t e, const Span& span, uint64_t self) {
    HloOpMetrics& m = ops.db().ops[op_of_metadata.at(p.events[e].metadata)];
    const uint32_t runs = static_cast<uint32_t>(std::max<int64_t>(1, p.NumOccurrences(e)));
    m.occurrences += runs;
    m.time_ps += static_cast<uint64_t>(std::max<int64_t>(0, span.duration()));
    m.self_time_ps += self;
    AddPerOccurrence(p, e, static_cast<double>(runs), ops, m);
    op_time += self;
    first = std::min(first, span.begin);
    last = std::max(last, span.end);
  });
  return ops.AddPlaneTime(op_time, static_cast<uint64_t>(last - first));
}

}  // namespace tbprof
