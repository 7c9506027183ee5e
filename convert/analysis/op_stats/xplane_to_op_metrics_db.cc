#include "convert/analysis/op_stats/xplane_to_op_metrics_db.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <queue>
#include <variant>
#include <vector>

#include "convert/base/cancellation.h"
#include "convert/analysis/self_time/op_self_time.h"
#include "convert/model/event_nesting.h"
#include "convert/model/kineto_names.h"
#include "convert/model/schema.h"

namespace tbprof {
namespace {

// HLO categories during which a TPU waits on the host (xprof IsOffDutyOp).
// xprof's tracker looks the category up among the event's own stats only;
// TPU profiles carry it on the event's metadata (every XLA op of the real v6e
// profile does), where xprof never sees it and counts infeed as busy. Here
// the category is read from either, as xprof's own tracker test places it on
// the event and expects infeed and outfeed idle. (xprof's newer custom-call
// rule, a custom call with zero model FLOPs is idle, is not applied: its tests
// are disabled there and its stat lookup has the same blind spot.)
bool IsOffDutyCategory(std::string_view c) {
  return c == "infeed" || c == "outfeed" || c == "host send" || c == "host send-done" || c == "host recv" ||
         c == "host recv-done" || c == "megacore fusion";
}

// A GPU's busy time: the union of its streams' kernels and copies, merged
// stream by stream in begin order (each stream is read in order, the streams
// merged through a small heap), so no interval is stored.
DutyCycleTracker GpuDutyCycle(const XPlaneModel& p) {
  // A stream's events in begin order: the file's order when it already is
  // (the usual case, read in place), else a sorted copy.
  struct Stream {
    uint32_t first = 0, count = 0;
    std::vector<uint32_t> sorted;  // empty: events first..first+count in file order
    uint32_t At(uint32_t i) const { return sorted.empty() ? first + i : sorted[i]; }
  };
  std::vector<Stream> streams;
  for (const LineModel& line : p.lines) {
    if (schema::IsDerivedThreadId(line.id) || line.num_events == 0) continue;
    Stream s{line.first_event, line.num_events, {}};
    for (uint32_t e = line.first_event + 1; e < line.first_event + line.num_events; ++e) {
      if (p.events[e].begin_ps < p.events[e - 1].begin_ps) {
        s.sorted = SortedLineEvents(p, line);
        break;
      }
    }
    streams.push_back(std::move(s));
  }
  using Head = std::pair<int64_t, size_t>;  // (begin, stream), smallest begin on top
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  std::vector<uint32_t> next(streams.size(), 0);
  for (size_t s = 0; s < streams.size(); ++s) heads.push({p.events[streams[s].At(0)].begin_ps, s});
  uint64_t active = 0;
  int64_t first = INT64_MAX, last = INT64_MIN, open_begin = 0, open_end = INT64_MIN;
  while (!heads.empty()) {
    size_t s = heads.top().second;
    heads.pop();
    const Event& ev = p.events[streams[s].At(next[s])];
    if (++next[s] < streams[s].count) heads.push({p.events[streams[s].At(next[s])].begin_ps, s});
    first = std::min(first, ev.begin_ps);
    last = std::max(last, ev.end_ps());
    if (ev.begin_ps > open_end) {
      if (open_end != INT64_MIN) active += static_cast<uint64_t>(open_end - open_begin);
      open_begin = ev.begin_ps;
      open_end = ev.end_ps();
    } else {
      open_end = std::max(open_end, ev.end_ps());
    }
  }
  if (open_end != INT64_MIN) active += static_cast<uint64_t>(open_end - open_begin);
  DutyCycleTracker tracker;
  tracker.AddMergedActive(active, first, last);
  return tracker;
}

// A host op's row, named and typed when first used (std::map: rows stay
// where they are, so callers keep pointers to them).
OpMetrics& HostOpRow(OpMetricsDb& db, const TfOp& op) {
  OpMetrics& m = db.ops[op.name];
  if (m.name.empty()) {
    m.name = op.name;
    m.category = op.type;
    m.min_time_ps = UINT64_MAX;
  }
  return m;
}

// Adds the op time of one line (or plane) whose events span [first, last] to
// the database's totals, and the rest of the span as IDLE. first == INT64_MAX:
// no event, nothing to add.
void AddSpanTotals(OpMetricsDb& db, uint64_t op_time, int64_t first, int64_t last) {
  if (first == INT64_MAX) return;
  const uint64_t total = std::max<uint64_t>(op_time, static_cast<uint64_t>(last - first));
  db.total_op_time_ps += op_time;
  db.total_time_ps += total;
  AddIdle(db, total - op_time);
}

}  // namespace

void AddIdle(OpMetricsDb& db, uint64_t idle_ps) {
  OpMetrics& idle = db.ops["IDLE"];
  idle.name = "IDLE";
  idle.category = "IDLE";
  idle.time_ps += idle_ps;
  idle.self_time_ps += idle_ps;
}

OpMetricsDbBuilder::OpMetricsDbBuilder(const XSpaceModel& space, const schema::StatIds& ids,
                                       const EventGroups& groups, const HloPrograms& programs)
    : space_(space), ids_(ids), groups_(groups), hlo_programs_(programs) {}

OpMetricsDbBuilder::GpuOpRow OpMetricsDbBuilder::NewGpuOpRow(const XPlaneModel& p, uint32_t e, StrId tf_op,
                                                             StrId hlo_op, std::optional<int64_t> program,
                                                             OpMetricsDb& db) {
  GpuOpRow row;
  std::string name, category, provenance;
  if (hlo_op != kNoStr) {
    name = std::string(HloOpInstructionName(space_.Str(hlo_op)));
    category = std::string(StrStat(p, e, ids_.hlo_category));
    const HloProgram* hlo = FindProgramOf(hlo_programs_, program, StrStat(p, e, ids_.hlo_module));
    const HloInstruction* inst = hlo != nullptr ? hlo->FindInstruction(name) : nullptr;
    if (inst != nullptr) {
      // The instruction's op_name metadata is its framework op (xprof's
      // TfOpName), and its cost model what one run computes and moves.
      if (category.empty()) category = HloCategoryOf(*hlo, *inst);
      provenance = inst->metadata().op_name();
      row.cost = HloInstructionCost(*hlo, *inst);
    } else {
      if (category.empty()) category = DeriveOpType(name.substr(0, name.find('.')));
      // Without the HLO module, the annotation's op name stands in for the
      // HLO instruction's op_name metadata...
      provenance = std::string(StrStat(p, e, ids_.name));
      // ...else the kernel's framework op (JAX writes the op's name scope
      // there), unless that names the whole module ("XlaModule:…").
      if (provenance.empty() && tf_op != kNoStr && !space_.Str(tf_op).starts_with("XlaModule:")) {
        provenance = std::string(space_.Str(tf_op));
      }
    }
  } else {
    const TfOp& op = ParsedTfOp(tf_op);
    name = op.name + "/" + std::string(space_.Str(p.EventName(e)));
    category = op.type;
    provenance = std::string(space_.Str(tf_op));
  }
  OpMetrics& m = db.ops[OpKey(name, program)];
  if (m.name.empty()) {
    m.name = name;
    m.category = category;
    m.provenance = provenance;
    m.hlo_module_id = program.value_or(0);
    m.min_time_ps = UINT64_MAX;
  }
  row.op = &m;
  return row;
}

const TfOp& OpMetricsDbBuilder::ParsedTfOp(StrId s) {
  auto [it, fresh] = tf_ops_.try_emplace(s);
  if (fresh) it->second = ParseTfOpFullname(space_.Str(s));
  return it->second;
}

namespace {

// The input-pipeline stages of a host plane (CollectTfOpsFromHostThreadsXPlane):
// per stage id, the row of the op its first categorized event names (event
// name, typed by `_ipl_stage_cat`, kept apart from the same name in other
// stages). A stage no event categorizes is no op.
std::unordered_map<int64_t, OpMetrics*> InputPipelineStageRows(const XSpaceModel& space, const schema::StatIds& ids,
                                                               const XPlaneModel& p, OpMetricsDb& db) {
  std::unordered_map<int64_t, OpMetrics*> rows;
  if (ids.ipl_stage_id == kNoStr || ids.ipl_stage_category == kNoStr) return rows;
  for (uint32_t e = 0; e < p.events.size(); ++e) {
    const Stat* id = p.FindStat(e, ids.ipl_stage_id);
    const Stat* category = id == nullptr ? nullptr : p.FindStat(e, ids.ipl_stage_category);
    const std::string_view name = space.Str(p.EventName(e));
    if (category == nullptr || name.empty()) continue;
    auto [it, fresh] = rows.try_emplace(id->IntValue(), nullptr);
    if (!fresh) continue;
    OpMetrics& m = db.ops[OpKey(name, id->IntValue())];
    m.name = name;
    m.category = category->kind == StatKind::kStr ? space.Str(category->str) : space.StatToString(*category);
    m.hlo_module_id = id->IntValue();
    m.min_time_ps = UINT64_MAX;
    it->second = &m;
  }
  return rows;
}

}  // namespace

// ConvertHostThreadsXPlaneToOpMetricsDb: self time by a per-line op stack.
// An op is an event named "name:type" (a TF op), or one that carries a
// `tf_op` stat (an XLA:CPU op or an XLA launch), which names the op, as in
// xprof's host op metrics. Instants are left out of the stat's ops: they are
// markers, not executions (xprof would count each as an occurrence of 0 ps);
// a PyTorch operator of zero length is a call, though.
// An event of an input-pipeline stage (`_ipl_stage_id`) is its stage's op,
// and never a TF op by its name.
void OpMetricsDbBuilder::AddHostPlane(size_t plane_index, OpMetricsDb& db) const {
  const XPlaneModel& p = space_.planes[plane_index];
  // Per event metadata, what its events are, decided once so the hot loop does
  // no string work: the row of the TF op the name gives, or whether the events
  // may carry a `tf_op` stat (the allocator's never count, see OpStatsLoadOptions).
  enum : uint8_t { kUnchecked, kNamedOp, kMayCarryTfOp, kNoOp };
  std::vector<uint8_t> kind(p.event_metadata.size(), kUnchecked);
  std::vector<OpMetrics*> row_of(p.event_metadata.size(), nullptr);
  // Per event metadata: a TensorFlow op's name, the events xprof's grouping
  // marks eager or not (tf.data's named ops are not among them).
  std::vector<uint8_t> tensorflow_op(p.event_metadata.size(), 0);
  std::unordered_map<StrId, OpMetrics*> row_of_tf_op;
  // A PyTorch trace's zero-length operator is a call shorter than its time
  // unit (whole µs up to PyTorch 1.9): every event it counts is a complete one.
  const bool pytorch = schema::IsKinetoTrace(space_);
  const bool zero_length_calls = pytorch;
  auto stat_op_row = [&](uint32_t e) -> OpMetrics* {
    const int64_t duration_ps = p.events[e].duration_ps;
    if (duration_ps < 0 || (duration_ps == 0 && !zero_length_calls) || ids_.tf_op == kNoStr) return nullptr;
    const Stat* stat = p.FindEventOrMetadataStat(e, ids_.tf_op);
    if (stat == nullptr || stat->kind != StatKind::kStr || space_.Str(stat->str).empty()) return nullptr;
    auto [it, fresh] = row_of_tf_op.try_emplace(stat->str, nullptr);
    if (fresh) {
      // xprof's row: the op named by the stat, of the type its name gives. A
      // name without ":type" (a JAX op's) has none: the type stays empty.
      it->second = &HostOpRow(db, ParseTfOpFullname(space_.Str(stat->str)));
    }
    return it->second;
  };
  const std::unordered_map<int64_t, OpMetrics*> stage_rows = InputPipelineStageRows(space_, ids_, p, db);
  // A PyTorch op's host self time leaves out the CUDA runtime calls made
  // inside it (torch-tb-profiler's rule): they are its children, of no row.
  std::vector<uint8_t> runtime(p.event_metadata.size(), 0);
  if (const StrId cat = space_.Find(schema::kKinetoCategory); cat != kNoStr) {
    for (size_t md = 0; md < p.event_metadata.size(); ++md) {
      auto [b, e] = p.MetadataStatsOf(static_cast<uint32_t>(md));
      for (const Stat* st = b; st != e; ++st) {
        if (st->name != cat || st->kind != StatKind::kStr) continue;
        std::string_view c = space_.Str(st->str);
        runtime[md] = c == "cuda_runtime" || c == "cuda_driver" || c == "Runtime";
      }
    }
  }
  using Stack = SelfTimeStack<OpMetrics*>;
  CancellationPoll cancel;
  for (const LineModel& line : p.lines) {
    if (schema::IsDerivedThreadId(line.id)) continue;
    Stack stack(/*ends_before_next_begin=*/true);
    int64_t first = INT64_MAX, last = INT64_MIN;
    uint64_t line_op_time = 0;
    std::optional<Span> last_infeed_enqueue;
    auto close = [&](const Stack::Open& o) {
      if (o.payload == nullptr) return;  // a runtime call: its time is its op's child's
      OpMetrics& m = *o.payload;
      if (m.category.starts_with("InfeedEnqueue")) {
        if (last_infeed_enqueue) {
          db.total_host_infeed_enq_duration_ps += static_cast<uint64_t>(last_infeed_enqueue->duration());
          db.total_host_infeed_enq_start_timestamp_ps_diff +=
              static_cast<uint64_t>(o.span.begin - last_infeed_enqueue->begin);
        }
        last_infeed_enqueue = o.span;
      }
      const uint64_t self = o.SelfPs();
      m.occurrences += 1;
      m.time_ps += o.span.duration();
      m.self_time_ps += self;
      m.min_time_ps = std::min<uint64_t>(m.min_time_ps, o.span.duration());
      if (const Stat* eager = Find(p, o.event, ids_.is_eager)) {
        m.is_eager |= eager->IntValue() != 0;
      } else if (tensorflow_op[p.events[o.event].metadata]) {
        m.is_eager |= groups_.IsEager(plane_index, o.event);
      }
      line_op_time += self;
    };
    for (uint32_t e : SortedLineEvents(p, line)) {
      if (cancel.Due()) return;  // the caller discards what was built
      // A stage's event is its stage's op or, when no event categorizes the
      // stage, only what a tf_op stat names: never a TF op by its name.
      const Stat* stage = stage_rows.empty() ? nullptr : p.FindStat(e, ids_.ipl_stage_id);
      OpMetrics* row = nullptr;
      if (runtime[p.events[e].metadata]) {
        const Event& ev = p.events[e];
        stack.Push(e, Span{ev.begin_ps, ev.end_ps()}, nullptr, close);
        continue;
      }
      if (stage != nullptr) {
        auto it = stage_rows.find(stage->IntValue());
        row = it != stage_rows.end() ? it->second : stat_op_row(e);
      } else {
        const uint32_t md = p.events[e].metadata;
        if (kind[md] == kUnchecked) {
          std::string_view name = space_.Str(p.event_metadata[md].name);
          // A PyTorch name's colon ("nccl:all_reduce") does not split a name
          // from a type: such an event is an op only by its tf_op stat.
          const bool pytorch_colon = pytorch && name.find(':') != std::string_view::npos;
          TfOp op = pytorch_colon ? TfOp() : ParseTfOpFullname(name);
          if (op.category != TfOpCategory::kUnknown) {
            kind[md] = kNamedOp;
            tensorflow_op[md] = op.category == TfOpCategory::kTensorFlow;
            row_of[md] = &HostOpRow(db, op);
          } else {
            kind[md] = schema::IsAllocatorEventName(name) ? kNoOp : kMayCarryTfOp;
          }
        }
        if (kind[md] == kNoOp) continue;
        row = kind[md] == kNamedOp ? row_of[md] : stat_op_row(e);
      }
      if (row == nullptr) continue;
      const Event& ev = p.events[e];
      first = std::min(first, ev.begin_ps);
      last = std::max(last, ev.end_ps());
      stack.Push(e, Span{ev.begin_ps, ev.end_ps()}, row, close);
    }
    stack.Drain(close);
    AddSpanTotals(db, line_op_time, first, last);
  }
}

// ConvertDeviceTraceXPlaneToOpMetricsDb (non-XLA path keyed by tf_op; XLA
// kernels without the HLO module fall back to the innermost hlo_op name).
void OpMetricsDbBuilder::AddGpuPlane(size_t pi, OpMetricsDb& db) {
  const XPlaneModel& p = space_.planes[pi];
  int64_t first = INT64_MAX, last = INT64_MIN;
  uint64_t op_time = 0;
  int32_t prev_group = kNoGroup;
  OpMetrics* prev = nullptr;
  CancellationPoll cancel;
  for (const LineModel& line : p.lines) {
    if (schema::IsDerivedThreadId(line.id)) continue;
    prev = nullptr;
    for (uint32_t e : SortedLineEvents(p, line)) {
      if (cancel.Due()) return;  // the caller discards what was built
      const Event& ev = p.events[e];
      first = std::min(first, ev.begin_ps);
      last = std::max(last, ev.end_ps());
      // The framework op (`tf_op`, or `level 0` before TF 2.5) or the HLO op.
      StrId tf_op = ids_.FrameworkOp(p, e);
      StrId hlo_op = schema::StatIds::StrOf(p, e, ids_.hlo_op);
      if (hlo_op == kNoStr && tf_op == kNoStr) {
        prev = nullptr;
        continue;
      }
      int32_t group = groups_.Group(pi, e);
      // An HLO op is one op per program (numbered here in order of first use).
      const std::optional<int64_t> program = hlo_op != kNoStr ? ids_.ProgramId(p, e) : std::nullopt;
      const uint64_t program_index = program ? program_index_.try_emplace(*program, program_index_.size() + 1).first->second : 0;
      // Ops are looked up once per (program, hlo_op) or (tf_op, kernel name), not per event.
      uint64_t key = hlo_op != kNoStr ? (uint64_t{1} << 63) | (program_index << 32) | hlo_op
                                      : (uint64_t{tf_op} << 32) | p.events[e].metadata;
      auto [cached, fresh] = device_ops_[pi].try_emplace(key);
      if (fresh) cached->second = NewGpuOpRow(p, e, tf_op, hlo_op, program, db);
      OpMetrics& m = *cached->second.op;
      const std::optional<HloCost>& cost = cached->second.cost;
      uint64_t dur = static_cast<uint64_t>(std::max<int64_t>(0, ev.duration_ps));
      op_time += dur;
      // Each figure the instruction's cost model cannot give (no instruction,
      // a custom call of unknown FLOPs, nothing moved) is what the profiler
      // wrote on the kernels.
      const FiguresFromCost from_cost = FiguresTakenFromCost(cost);
      if (!from_cost.flops) {
        const Stat* f = Find(p, e, ids_.flops);
        if (f != nullptr) m.flops += f->DoubleValue();
        // Only a cost model that cannot count the instruction makes FLOPs
        // unknown: without one (TF kernels) xprof's 0 stands, as does a
        // cost of 0 (a copy computes nothing).
        if (f == nullptr && cost && !cost->flops_known) m.flops_unknown = true;
      }
      if (!from_cost.bytes) {
        if (const Stat* b = Find(p, e, ids_.bytes_accessed)) m.bytes_accessed += b->UintValue();
      }
      // Consecutive kernels of one HLO op in one step are one occurrence.
      if (hlo_op != kNoStr && prev == &m && prev_group == group) {
        m.time_ps += dur;
        m.self_time_ps += dur;
        continue;
      }
      if (const Stat* eager = Find(p, e, ids_.is_eager)) {
        m.is_eager |= eager->IntValue() != 0;
      } else {
        m.is_eager |= groups_.IsEager(pi, e);
      }
      m.occurrences += 1;
      m.time_ps += dur;
      m.self_time_ps += dur;
      m.min_time_ps = std::min(m.min_time_ps, dur);
      if (from_cost.flops) m.flops += cost->flops;
      if (from_cost.bytes) m.bytes_accessed += static_cast<uint64_t>(cost->bytes_accessed);
      prev = &m;
      prev_group = group;
    }
  }
  // A PyTorch trace's IDLE is the time no kernel, copy or set ran on any
  // stream: the device's idle time, as its overview and HTA count it, not the
  // span less the kernels tied to an op (xprof's rule, kept for xprof's own
  // files, where a kernel of no op or streams running at once move it).
  if (first == INT64_MAX || space_.Find(schema::kKinetoCategory) == kNoStr) {
    AddSpanTotals(db, op_time, first, last);
    return;
  }
  const uint64_t span = static_cast<uint64_t>(last - first);
  db.total_op_time_ps += op_time;
  db.total_time_ps += std::max(op_time, span);
  AddIdle(db, span - std::min(span, GpuDutyCycle(p).ActivePs()));
}


// TPU TensorCore planes: the `XLA Ops` line gives the device ops, their
// self time by nesting.
void OpMetricsDbBuilder::AddTpuPlane(const XPlaneModel& p, OpMetricsDb& db) const {
  // The XLA Ops line; a plane without one may carry its ops on the
  // Framework Ops line (xprof reads both kinds of op line).
  const LineModel* ops_line = nullptr;
  for (const LineModel& l : p.lines) {
    std::string_view n = space_.Str(l.name);
    if (n == schema::kXlaOpLine || (n == schema::kFrameworkOpLine && !ops_line)) ops_line = &l;
  }
  if (!ops_line) return;
  int64_t first = INT64_MAX, last = INT64_MIN;
  uint64_t op_time = 0;
  ForEachTpuOpSelfTime(p, ids_, *ops_line, [&](uint32_t e, const Span& span, uint64_t self) {
    const uint64_t duration = static_cast<uint64_t>(span.duration());
    first = std::min(first, span.begin);
    last = std::max(last, span.end);
    const EventMetadata& md = p.event_metadata[p.events[e].metadata];
    std::string name(space_.Str(md.display_name != kNoStr ? md.display_name : md.name));
    const std::optional<int64_t> program = ids_.ProgramId(p, e);
    OpMetrics& m = db.ops[OpKey(name, program)];
    if (m.occurrences == 0) {
      m.name = name;
      m.hlo_module_id = program.value_or(0);
      m.category = std::string(space_.Str(HloCategoryOf(ids_, p, e)));
      const Stat* tf = ids_.tf_op == kNoStr ? nullptr : p.FindEventOrMetadataStat(e, ids_.tf_op);
      m.provenance = tf && tf->kind == StatKind::kStr ? std::string(space_.Str(tf->str)) : "";
      m.min_time_ps = duration;
    }
    // An aggregated event stands for num_occurrences runs: its duration is
    // theirs together, its FLOPs and bytes are per run.
    const uint64_t runs = static_cast<uint64_t>(std::max<int64_t>(1, p.NumOccurrences(e)));
    m.occurrences += runs;
    m.time_ps += duration;
    m.self_time_ps += self;
    m.min_time_ps = std::min<uint64_t>(m.min_time_ps, duration);
    if (const Stat* f = ids_.flops == kNoStr ? nullptr : p.FindEventOrMetadataStat(e, ids_.flops)) {
      m.flops += f->DoubleValue() * static_cast<double>(runs);
    }
    if (const Stat* b = ids_.bytes_accessed == kNoStr ? nullptr : p.FindEventOrMetadataStat(e, ids_.bytes_accessed)) {
      m.bytes_accessed += b->UintValue() * runs;
    }
    op_time += self;
  });
  AddSpanTotals(db, op_time, first, last);
}

DutyCycleTracker ConstructDutyCycleTracker(const XSpaceModel& space, const schema::StatIds& ids,
                                           const XPlaneModel& p) {
  DutyCycleTracker tracker;
  if (schema::IsGpuPlane(space.Str(p.name))) {
    tracker = GpuDutyCycle(p);
    return tracker;
  }
  for (const LineModel& line : p.lines) {
    std::string_view name = space.Str(line.name);
    bool xla_ops = name == schema::kXlaOpLine, sc_ops = name == schema::kSparseCoreOpLine;
    bool modules = name == schema::kXlaModuleLine || name == schema::kSparseCoreModuleLine;
    if (!xla_ops && !sc_ops && !modules) continue;
    for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
      Span sp = DeviceEventSpan(p, e, ids);
      bool active = sc_ops;
      if (xla_ops) {
        const Stat* cat = ids.hlo_category == kNoStr ? nullptr : p.FindEventOrMetadataStat(e, ids.hlo_category);
        active = !(cat && cat->kind == StatKind::kStr && IsOffDutyCategory(space.Str(cat->str)));
      }
      tracker.AddInterval(sp.begin, sp.end, active);
    }
  }
  return tracker;
}

}  // namespace tbprof
