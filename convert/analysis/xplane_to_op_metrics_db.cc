#include "convert/analysis/xplane_to_op_metrics_db.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <vector>

#include "convert/analysis/xplane_to_step_events.h"

namespace tbprof {
namespace {

// HLO categories during which a TPU waits on the host (xprof IsOffDutyOp).
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
    if (IsDerivedLineId(line.id) || line.num_events == 0) continue;
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

}  // namespace

void AddIdle(OpMetricsDb& db, uint64_t idle_ps) {
  OpMetrics& idle = db.ops["IDLE"];
  idle.name = "IDLE";
  idle.category = "IDLE";
  idle.time_ps += idle_ps;
  idle.self_time_ps += idle_ps;
}

OpMetricsDbBuilder::OpMetricsDbBuilder(const XSpaceModel& space, const schema::StatIds& ids,
                                       const EventGroups& groups)
    : space_(space), ids_(ids), groups_(groups) {}

const TfOp& OpMetricsDbBuilder::ParsedTfOp(StrId s) {
  auto [it, fresh] = tf_ops_.try_emplace(s);
  if (fresh) it->second = ParseTfOpFullname(space_.Str(s));
  return it->second;
}

// ConvertHostThreadsXPlaneToOpMetricsDb: self time by a per-line op stack.
void OpMetricsDbBuilder::AddHostPlane(const XPlaneModel& p, OpMetricsDb& db) const {
  // Per event metadata: the TF op it names (null when it names none), and
  // that op's row, so the hot loop does no string lookups.
  std::vector<std::unique_ptr<TfOp>> op_of(p.event_metadata.size());
  std::vector<OpMetrics*> row_of(p.event_metadata.size(), nullptr);
  std::vector<uint8_t> checked(p.event_metadata.size(), 0);
  for (const LineModel& line : p.lines) {
    if (IsDerivedLineId(line.id)) continue;
    struct Open {
      uint32_t e;
      int64_t children = 0;
    };
    std::vector<Open> stack;
    int64_t first = INT64_MAX, last = INT64_MIN;
    uint64_t line_op_time = 0;
    auto close = [&](const Open& o) {
      const Event& ev = p.events[o.e];
      const TfOp& op = *op_of[ev.metadata];
      OpMetrics& m = *row_of[ev.metadata];
      if (m.occurrences == 0 && m.time_ps == 0) {
        m.name = op.name;
        m.category = op.type;
        m.min_time_ps = ev.duration_ps;
      }
      uint64_t self = static_cast<uint64_t>(std::max<int64_t>(0, ev.duration_ps - o.children));
      m.occurrences += 1;
      m.time_ps += ev.duration_ps;
      m.self_time_ps += self;
      m.min_time_ps = std::min<uint64_t>(m.min_time_ps, ev.duration_ps);
      if (const Stat* eager = Find(p, o.e, ids_.is_eager)) m.is_eager |= eager->IntValue() != 0;
      line_op_time += self;
      if (!stack.empty()) stack.back().children += ev.duration_ps;
    };
    for (uint32_t e : SortedLineEvents(p, line)) {
      uint32_t md = p.events[e].metadata;
      if (!checked[md]) {
        checked[md] = 1;
        TfOp op = ParseTfOpFullname(space_.Str(p.event_metadata[md].name));
        if (op.category != TfOpCategory::kUnknown) {
          row_of[md] = &db.ops[op.name];  // std::map: rows stay where they are
          op_of[md] = std::make_unique<TfOp>(std::move(op));
        }
      }
      if (!op_of[md]) continue;
      const Event& ev = p.events[e];
      first = std::min(first, ev.begin_ps);
      last = std::max(last, ev.end_ps());
      while (!stack.empty() && p.events[stack.back().e].end_ps() <= ev.begin_ps) {
        Open o = stack.back();
        stack.pop_back();
        close(o);
      }
      // A partially overlapping TraceMe ends the ones it outlives.
      while (!stack.empty() && p.events[stack.back().e].end_ps() < ev.end_ps()) {
        Open o = stack.back();
        stack.pop_back();
        close(o);
      }
      stack.push_back({e, 0});
    }
    while (!stack.empty()) {
      Open o = stack.back();
      stack.pop_back();
      close(o);
    }
    if (first == INT64_MAX) continue;
    uint64_t line_total = std::max<uint64_t>(line_op_time, static_cast<uint64_t>(last - first));
    db.total_op_time_ps += line_op_time;
    db.total_time_ps += line_total;
    AddIdle(db, line_total - line_op_time);
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
  for (const LineModel& line : p.lines) {
    if (IsDerivedLineId(line.id)) continue;
    prev = nullptr;
    for (uint32_t e : SortedLineEvents(p, line)) {
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
      // Ops are looked up once per (hlo_op) or (tf_op, kernel name), not per event.
      uint64_t key = hlo_op != kNoStr ? (uint64_t{1} << 63) | hlo_op
                                      : (uint64_t{tf_op} << 32) | p.events[e].metadata;
      auto [cached, fresh] = device_ops_[pi].try_emplace(key, nullptr);
      if (fresh) {
        std::string name, category, provenance;
        if (hlo_op != kNoStr) {
          std::string_view hlo = space_.Str(hlo_op);
          size_t sep = hlo.rfind("::");
          name = std::string(sep == std::string_view::npos ? hlo : hlo.substr(sep + 2));
          category = std::string(StrStat(p, e, ids_.hlo_category));
          if (category.empty()) category = DeriveOpType(name.substr(0, name.find('.')));
          // Without the HLO module, the annotation's op name stands in for the
          // HLO instruction's op_name metadata.
          provenance = std::string(StrStat(p, e, ids_.name));
          // Else the kernel's framework op (JAX writes the op's name scope
          // there), unless that names the whole module ("XlaModule:…").
          if (provenance.empty() && tf_op != kNoStr && !space_.Str(tf_op).starts_with("XlaModule:")) {
            provenance = std::string(space_.Str(tf_op));
          }
        } else {
          const TfOp& op = ParsedTfOp(tf_op);
          name = op.name + "/" + std::string(space_.Str(p.EventName(e)));
          category = op.type;
          provenance = std::string(space_.Str(tf_op));
        }
        OpMetrics& m = db.ops[name];
        if (m.name.empty()) {
          m.name = name;
          m.category = category;
          m.provenance = provenance;
          m.min_time_ps = UINT64_MAX;
        }
        cached->second = &m;
      }
      OpMetrics& m = *cached->second;
      uint64_t dur = static_cast<uint64_t>(std::max<int64_t>(0, ev.duration_ps));
      op_time += dur;
      // Consecutive kernels of one HLO op in one step are one occurrence.
      if (hlo_op != kNoStr && prev == &m && prev_group == group) {
        m.time_ps += dur;
        m.self_time_ps += dur;
        continue;
      }
      if (const Stat* eager = Find(p, e, ids_.is_eager)) m.is_eager |= eager->IntValue() != 0;
      m.occurrences += 1;
      m.time_ps += dur;
      m.self_time_ps += dur;
      m.min_time_ps = std::min(m.min_time_ps, dur);
      prev = &m;
      prev_group = group;
    }
  }
  if (first == INT64_MAX) return;
  uint64_t total = std::max<uint64_t>(op_time, static_cast<uint64_t>(last - first));
  db.total_op_time_ps += op_time;
  db.total_time_ps += total;
  AddIdle(db, total - op_time);
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
  struct Open {
    uint32_t e;
    int64_t children;
  };
  std::vector<Open> stack;
  int64_t first = INT64_MAX, last = INT64_MIN;
  uint64_t op_time = 0;
  auto span_of = [&](uint32_t e) { return DeviceEventSpan(p, e, ids_); };
  auto close = [&](const Open& o) {
    Event ev = p.events[o.e];
    Span sp = span_of(o.e);
    ev.begin_ps = sp.begin;
    ev.duration_ps = sp.duration();
    const EventMetadata& md = p.event_metadata[ev.metadata];
    std::string name(space_.Str(md.display_name != kNoStr ? md.display_name : md.name));
    OpMetrics& m = db.ops[name];
    if (m.occurrences == 0) {
      m.name = name;
      const Stat* cat = Find(p, o.e, ids_.hlo_category);
      if (!cat) cat = ids_.hlo_category == kNoStr ? nullptr : p.FindEventOrMetadataStat(o.e, ids_.hlo_category);
      m.category = cat && cat->kind == StatKind::kStr ? std::string(space_.Str(cat->str)) : "";
      const Stat* tf = ids_.tf_op == kNoStr ? nullptr : p.FindEventOrMetadataStat(o.e, ids_.tf_op);
      m.provenance = tf && tf->kind == StatKind::kStr ? std::string(space_.Str(tf->str)) : "";
      m.min_time_ps = ev.duration_ps;
    }
    uint64_t self = static_cast<uint64_t>(std::max<int64_t>(0, ev.duration_ps - o.children));
    m.occurrences += 1;
    m.time_ps += ev.duration_ps;
    m.self_time_ps += self;
    m.min_time_ps = std::min<uint64_t>(m.min_time_ps, ev.duration_ps);
    if (const Stat* f = ids_.flops == kNoStr ? nullptr : p.FindEventOrMetadataStat(o.e, ids_.flops)) {
      m.flops += f->DoubleValue();
    }
    if (const Stat* b = ids_.bytes_accessed == kNoStr ? nullptr : p.FindEventOrMetadataStat(o.e, ids_.bytes_accessed)) {
      m.bytes_accessed += b->UintValue();
    }
    op_time += self;
    if (!stack.empty()) stack.back().children += ev.duration_ps;
  };
  for (uint32_t e : SortedLineEvents(p, *ops_line)) {
    Event ev = p.events[e];
    Span sp = span_of(e);
    ev.begin_ps = sp.begin;
    ev.duration_ps = sp.duration();
    first = std::min(first, ev.begin_ps);
    last = std::max(last, ev.end_ps());
    while (!stack.empty() && span_of(stack.back().e).end < ev.end_ps()) {
      Open o = stack.back();
      stack.pop_back();
      close(o);
    }
    stack.push_back({e, 0});
  }
  while (!stack.empty()) {
    Open o = stack.back();
    stack.pop_back();
    close(o);
  }
  if (first == INT64_MAX) return;
  uint64_t total = std::max<uint64_t>(op_time, static_cast<uint64_t>(last - first));
  db.total_op_time_ps += op_time;
  db.total_time_ps += total;
  AddIdle(db, total - op_time);
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
