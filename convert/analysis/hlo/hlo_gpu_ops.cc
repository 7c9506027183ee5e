// The GPU step of the HLO op table (hlo_op_collector.h).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <unordered_map>

#include "convert/analysis/hlo/hlo_op_collector.h"
#include "convert/model/event_nesting.h"

namespace tbprof {
namespace {

std::string SanitizedKernelName(std::string_view name) {
  std::string s(name);
  for (char& c : s) {
    if (c == '.' || c == '-') c = '_';
  }
  return s;
}

// FLOPs and bytes of one GPU kernel, as xprof's GPU op metrics count them:
// the instruction's cost once per occurrence for each figure the cost model
// gives, else what the profiler wrote on every kernel of the occurrence.
void AddGpuKernel(const XPlaneModel& p, uint32_t e, const std::optional<HloCost>& cost, bool new_occurrence,
                  const HloOpCollector& ops, HloOpMetrics& m) {
  // A cost of 0 (a broadcast computes nothing) is known, but a kernel's own
  // figure, where there is one, says more.
  const FiguresFromCost from_cost = FiguresTakenFromCost(cost);
  const Stat* f = nullptr;
  if (from_cost.flops) {
    if (new_occurrence) m.flops += cost->flops, m.model_flops += cost->flops;
  } else if ((f = ops.Any(p, e, ops.ids.flops)) != nullptr) {
    const Stat* mf = ops.Any(p, e, ops.model_flops);
    m.flops += f->DoubleValue();
    m.model_flops += mf ? mf->DoubleValue() : f->DoubleValue();
  }
  m.flops_known |= f != nullptr || (cost && cost->flops_known);
  const Stat* b = nullptr;
  if (from_cost.bytes) {
    if (new_occurrence) m.bytes_accessed += cost->bytes_accessed;
  } else if ((b = ops.Any(p, e, ops.ids.bytes_accessed)) != nullptr) {
    m.bytes_accessed += b->DoubleValue();
  }
  m.bytes_known |= b != nullptr || cost.has_value();
}

// A GPU kernel's op: (program, instruction), command buffers resolved by kernel name.
size_t GpuOp(const XPlaneModel& p, uint32_t e, std::string_view hlo_op, HloOpCollector& ops) {
  const std::optional<int64_t> id = ops.ids.ProgramId(p, e);
  const HloProgram* program = FindProgramOf(ops.db().programs, id, ops.Str(ops.Any(p, e, ops.ids.hlo_module)));
  const uint64_t program_id = program != nullptr ? program->program_id() : id.value_or(0);
  std::string name(HloOpInstructionName(hlo_op));
  const HloInstruction* inst = program ? program->FindInstruction(name) : nullptr;
  if (program != nullptr) {
    const HloComputation* body = nullptr;
    if (inst != nullptr && inst->opcode() == "call" && inst->called_computation_ids_size() == 1) {
      body = program->FindComputation(inst->called_computation_ids(0));
    } else if (inst == nullptr) {
      body = program->FindComputationByName(name);
    }
    if (body != nullptr) {
      std::string kernel = SanitizedKernelName(ops.space().Str(p.EventName(e)));
      for (const HloInstruction& i : body->instructions()) {
        if (!kernel.empty() && SanitizedKernelName(i.name()) == kernel) {
          inst = &i;
          name = i.name();
          break;
        }
      }
    }
  }
  HloOpMetrics& m = ops.OpFor(program_id, name);
  size_t index = ops.IndexOf(m);
  if (m.occurrences == 0 && m.expression.empty()) {
    m.category = std::string(ops.Str(ops.Any(p, e, ops.ids.hlo_category)));
    HloOpCollector::FromHlo(program, inst, m);
    if (m.category.empty()) m.category = "unknown";
    if (m.provenance.empty()) m.provenance = std::string(ops.Str(ops.Any(p, e, ops.ids.tf_op)));
  }
  return index;
}

// The op of a kernel event, found once per (program id stat, hlo_op string,
// event metadata), with its instruction's cost looked up once.
struct OpKey {
  uint64_t program;
  uint64_t op_and_metadata;
  bool operator==(const OpKey&) const = default;
};
struct OpKeyHash {
  size_t operator()(const OpKey& k) const {
    return std::hash<uint64_t>()(k.program * 0x9E3779B97F4A7C15ULL ^ k.op_and_metadata);
  }
};

}  // namespace

uint64_t CollectGpuPlaneOps(const XPlaneModel& p, HloOpCollector& ops) {
  int64_t first = INT64_MAX, last = INT64_MIN;
  uint64_t op_time = 0;
  std::unordered_map<OpKey, size_t, OpKeyHash> op_of;
  for (const LineModel& line : p.lines) {
    if (schema::IsDerivedThreadId(line.id)) continue;
    size_t prev = SIZE_MAX;
    for (uint32_t e : SortedLineEvents(p, line)) {
      const Event& ev = p.events[e];
      first = std::min(first, ev.begin_ps);
      last = std::max(last, ev.end_ps());
      const Stat* op_stat = ops.Any(p, e, ops.ids.hlo_op);
      std::string_view hlo_op = ops.Str(op_stat);
      if (hlo_op.empty()) {
        prev = SIZE_MAX;
        continue;
      }
      const std::optional<int64_t> pid = ops.ids.ProgramId(p, e);
      OpKey key{pid ? static_cast<uint64_t>(*pid) : ~uint64_t{0}, (uint64_t{op_stat->str} << 32) | ev.metadata};
      auto [it, fresh] = op_of.try_emplace(key, 0);
      if (fresh) {
        it->second = GpuOp(p, e, hlo_op, ops);
        ops.gpu_cost.resize(ops.db().ops.size());
        const HloOpMetrics& op = ops.db().ops[it->second];
        const HloProgram* program = ops.db().programs.Find(op.program_id);
        if (op.instruction != nullptr && program != nullptr && !ops.gpu_cost[it->second]) {
          ops.gpu_cost[it->second] = HloInstructionCost(*program, *op.instruction);
        }
      }
      HloOpMetrics& m = ops.db().ops[it->second];
      uint64_t dur = static_cast<uint64_t>(std::max<int64_t>(0, ev.duration_ps));
      op_time += dur;
      m.time_ps += dur;
      m.self_time_ps += dur;
      const bool new_occurrence = prev != it->second;  // else another kernel of the same occurrence
      if (new_occurrence) m.occurrences += 1;
      AddGpuKernel(p, e, ops.gpu_cost[it->second], new_occurrence, ops, m);
      prev = it->second;
    }
  }
  if (first == INT64_MAX) return 0;
  return ops.AddPlaneTime(op_time, static_cast<uint64_t>(last - first));
}

}  // namespace tbprof
