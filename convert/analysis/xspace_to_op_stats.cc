#include "convert/analysis/xspace_to_op_stats.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "convert/analysis/op_stats_to_tf_stats.h"
#include "convert/analysis/tf_op_utils.h"
#include "convert/analysis/xspace_to_kernel_stats.h"
#include "convert/base/run_both.h"
#include "convert/xplane/group_events.h"

namespace tbprof {
namespace {

using tensorflow::profiler::KernelReport;

// Kernel reports kept after combining hosts (kMaxNumOfKernels).
constexpr size_t kMaxCombinedKernels = 1000;


struct Span {
  int64_t begin = 0, end = 0;
  int64_t duration() const { return end - begin; }
};

struct TypedSpan {
  int type;
  Span span;
};

// Step events of one group: markers and typed spans (xprof StepDetails).
struct GroupStepEvents {
  std::vector<Span> device_markers, host_markers;
  std::vector<TypedSpan> events;
  std::string step_name;
};

bool IsGpuPlane(std::string_view name) { return name.starts_with("/device:GPU:"); }
bool IsTpuCorePlane(std::string_view name) {
  if (!name.starts_with("/device:TPU:")) return false;
  std::string_view rest = name.substr(12);
  return !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; });
}

int ClassifyGpuEvent(std::string_view name, std::string_view shapes) {
  TfOp op = ParseTfOpFullname(name);
  if (op.category == TfOpCategory::kMemcpyHToD) return HOST_TO_DEVICE;
  if (op.category == TfOpCategory::kMemcpyDToH) return DEVICE_TO_HOST;
  if (op.category == TfOpCategory::kMemcpyDToD) return DEVICE_TO_DEVICE;
  if (StartsWithIgnoreCase(name, "nccl")) return DEVICE_COLLECTIVES;
  if (shapes.empty()) {
    return name.find("half") != std::string_view::npos || name.find("fp16") != std::string_view::npos
               ? DEVICE_COMPUTE_16
               : DEVICE_COMPUTE_32;
  }
  return shapes.find("half") != std::string_view::npos ? DEVICE_COMPUTE_16 : DEVICE_COMPUTE_32;
}

bool IsExplicitHostStepMarker(std::string_view name) {
  return (name.starts_with("train") || name.starts_with("test") || name.starts_with("TraceContext")) &&
         name.find('/') == std::string_view::npos;
}

bool IsRealCpuCompute(std::string_view name) {
  bool not_real = name.starts_with("EagerExecute") || name.starts_with("EagerLocalExecute") ||
                  name.starts_with("EagerKernelExecute") || name.starts_with("FunctionRun") ||
                  IsExplicitHostStepMarker(name);
  return !not_real;
}

int ClassifyCpuEvent(std::string_view name, bool has_device, bool has_correlation_id) {
  TfOp op = ParseTfOpFullname(name);
  if (op.category == TfOpCategory::kMemcpyHToD || op.type.starts_with("InfeedEnqueue")) return HOST_TO_DEVICE;
  if (op.category == TfOpCategory::kMemcpyHToH) return HOST_TO_HOST;
  if (has_device && (has_correlation_id || StartsWithIgnoreCase(name, "ExecutorState::Process"))) return HOST_PREPARE;
  if (StartsWithIgnoreCase(name, "IteratorGetNext")) return HOST_WAIT_INPUT;
  return HOST_COMPUTE;
}

// ToNonOverlappedEvents: at every instant the highest-priority type wins.
std::vector<TypedSpan> ToNonOverlapped(const std::vector<TypedSpan>& events) {
  struct Point {
    int64_t t;
    bool start;
    int type;
  };
  std::vector<Point> points;
  points.reserve(events.size() * 2);
  for (const TypedSpan& e : events) {
    points.push_back({e.span.begin, true, e.type});
    points.push_back({e.span.end, false, e.type});
  }
  std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.t < b.t; });
  std::map<int, int> active;  // type -> count
  std::vector<TypedSpan> out;
  for (size_t i = 0; i < points.size();) {
    int64_t t = points[i].t;
    for (; i < points.size() && points[i].t == t; ++i) {
      if (points[i].start) {
        ++active[points[i].type];
      } else if (--active[points[i].type] == 0) {
        active.erase(points[i].type);
      }
    }
    if (i == points.size()) break;
    int type = active.empty() ? UNKNOWN_TIME : active.rbegin()->first;
    int64_t next = points[i].t;
    if (next == t) continue;
    if (!out.empty() && out.back().type == type && out.back().span.end == t) {
      out.back().span.end = next;
    } else {
      out.push_back({type, {t, next}});
    }
  }
  return out;
}

int64_t Overlap(const Span& a, const Span& b) {
  if (!(a.begin <= b.end && b.begin <= a.end)) return 0;
  return std::min(a.end, b.end) - std::max(a.begin, b.begin);
}

class OpStatsBuilder {
 public:
  explicit OpStatsBuilder(const XSpaceModel& space)
      : space_(space) {
    id_correlation_ = space.Find("correlation_id");
    id_tf_op_ = space.Find("tf_op");
    id_hlo_op_ = space.Find("hlo_op");
    id_shape_ = space.Find("shape");
    id_kernel_details_ = space.Find("kernel_details");
    id_equation_ = space.Find("equation");
    id_is_eager_ = space.Find("is_eager");
    id_hlo_category_ = space.Find("hlo_category");
    id_flops_ = space.Find("flops");
    id_bytes_ = space.Find("bytes_accessed");
    id_name_ = space.Find("name");
    id_device_offset_ = space.Find("device_offset_ps");
    id_device_duration_ = space.Find("device_duration_ps");
  }

  // Kernel stats and host op metrics need no event groups, so a second
  // thread computes them while the events are grouped.
  OpStats Build() {
    OpStats s;
    tensorflow::profiler::KernelStatsDb kernel_stats;
    RunBoth(
        [&] {
          groups_ = GroupEvents(space_);
          BuildGrouped(s);
        },
        [&] {
          KernelStatsCollector kernels(space_);
          for (const XPlaneModel& p : space_.planes) {
            std::string_view name = space_.Str(p.name);
            if (name == "/host:CPU") AddHostOps(p, s.host_op_metrics_db);
            if (IsGpuPlane(name)) kernels.AddPlane(p);
          }
          kernel_stats = kernels.Finish();
        });
    s.kernel_stats_db = std::move(kernel_stats);
    s.device_tf_op_metrics_db = DeviceTfOpMetricsDb(s.device_op_metrics_db, /*with_idle=*/true);
    return s;
  }

 private:
  // Everything but the host op metrics and kernel stats.
  void BuildGrouped(OpStats& s) {
    s.errors = space_.errors;
    s.warnings = space_.warnings;
    bool has_gpu = false, has_tpu = false;
    for (const XPlaneModel& p : space_.planes) {
      has_gpu |= IsGpuPlane(space_.Str(p.name));
      has_tpu |= IsTpuCorePlane(space_.Str(p.name));
    }
    std::map<int64_t, GroupStepEvents> step_events;
    for (size_t pi = 0; pi < space_.planes.size(); ++pi) {
      const XPlaneModel& p = space_.planes[pi];
      std::string_view name = space_.Str(p.name);
      if (name == "/host:CPU") {
        if (!has_gpu && !has_tpu) AddHostStepEvents(pi, step_events);
      } else if (IsGpuPlane(name)) {
        AddGpuDeviceOps(pi, s.device_op_metrics_db);
        AddGpuStepEvents(pi, step_events);
      } else if (IsTpuCorePlane(name)) {
        AddTpuDevice(p, s.device_op_metrics_db, step_events);
      }
    }
    HostSteps host;
    host.hostname = Hostname();
    BuildSteps(step_events, has_gpu || has_tpu, host.steps, s);
    s.steps.push_back(std::move(host));
    SetRunEnvironment(s.run_environment);
  }

  std::string Hostname() const { return space_.hostnames.empty() ? "localhost" : space_.hostnames[0]; }

  const Stat* Find(const XPlaneModel& p, uint32_t e, StrId id) const {
    return id == kNoStr ? nullptr : p.FindStat(e, id);
  }
  std::string_view StrStat(const XPlaneModel& p, uint32_t e, StrId id) const {
    const Stat* s = Find(p, e, id);
    return s && s->kind == StatKind::kStr ? space_.Str(s->str) : std::string_view();
  }

  // ConvertHostThreadsXPlaneToOpMetricsDb: self time by a per-line op stack.
  void AddHostOps(const XPlaneModel& p, OpMetricsDb& db) const {
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
        if (const Stat* eager = Find(p, o.e, id_is_eager_)) m.is_eager |= eager->IntValue() != 0;
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

  static void AddIdle(OpMetricsDb& db, uint64_t idle_ps) {
    OpMetrics& idle = db.ops["IDLE"];
    idle.name = "IDLE";
    idle.category = "IDLE";
    idle.time_ps += idle_ps;
    idle.self_time_ps += idle_ps;
  }

  // ConvertDeviceTraceXPlaneToOpMetricsDb (non-XLA path keyed by tf_op; XLA
  // kernels without the HLO module fall back to the innermost hlo_op name).
  void AddGpuDeviceOps(size_t pi, OpMetricsDb& db) {
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
        const Stat* tf_op_stat = Find(p, e, id_tf_op_);
        const Stat* hlo_op_stat = Find(p, e, id_hlo_op_);
        StrId tf_op = tf_op_stat && tf_op_stat->kind == StatKind::kStr ? tf_op_stat->str : kNoStr;
        StrId hlo_op = hlo_op_stat && hlo_op_stat->kind == StatKind::kStr ? hlo_op_stat->str : kNoStr;
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
            category = std::string(StrStat(p, e, id_hlo_category_));
            if (category.empty()) category = DeriveOpType(name.substr(0, name.find('.')));
            // Without the HLO module, the annotation's op name stands in for the
            // HLO instruction's op_name metadata.
            provenance = std::string(StrStat(p, e, id_name_));
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
        if (const Stat* eager = Find(p, e, id_is_eager_)) m.is_eager |= eager->IntValue() != 0;
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

  // Device step markers (derived Steps line) and typed device events.
  void AddGpuStepEvents(size_t pi, std::map<int64_t, GroupStepEvents>& out) {
    const XPlaneModel& p = space_.planes[pi];
    struct Item {
      int64_t begin, end;
      int32_t group;
      uint32_t e;
    };
    std::vector<Item> items;
    for (const LineModel& line : p.lines) {
      if (IsDerivedLineId(line.id)) continue;
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
        int32_t g = groups_.Group(pi, e);
        if (g == kNoGroup) continue;
        items.push_back({p.events[e].begin_ps, p.events[e].end_ps(), g, e});
      }
    }
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
    });
    // DeriveStepEventsFromGroups: consecutive events of one group form a marker.
    std::map<int64_t, std::vector<Span>> markers;
    for (size_t i = 0; i < items.size();) {
      Span span{items[i].begin, items[i].end};
      int32_t g = items[i].group;
      size_t j = i + 1;
      for (; j < items.size() && items[j].group == g; ++j) span.end = std::max(span.end, items[j].end);
      markers[g].push_back(span);
      i = j;
    }
    for (auto& [g, spans] : markers) {
      GroupStepEvents& ge = out[g];
      ge.device_markers.insert(ge.device_markers.end(), spans.begin(), spans.end());
    }
    for (const Item& it : items) {
      if (!Find(p, it.e, id_correlation_)) continue;
      const Stat* shape = Find(p, it.e, id_shape_);
      StrId shape_id = shape && shape->kind == StatKind::kStr ? shape->str : kNoStr;
      uint64_t key = (uint64_t{p.events[it.e].metadata} << 32) | shape_id;
      auto [cached, fresh] = gpu_event_types_.try_emplace(key, 0);
      if (fresh) cached->second = ClassifyGpuEvent(space_.Str(p.EventName(it.e)), space_.Str(shape_id));
      int type = cached->second;
      out[it.group].events.push_back({type, {it.begin, it.end}});
    }
  }

  // CPU-only profiles: host markers and classified host events.
  void AddHostStepEvents(size_t pi, std::map<int64_t, GroupStepEvents>& out) {
    const XPlaneModel& p = space_.planes[pi];
    const auto& named = groups_.has_step_name[pi];
    for (const LineModel& line : p.lines) {
      if (IsDerivedLineId(line.id)) continue;
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
        int32_t g = groups_.Group(pi, e);
        if (g == kNoGroup) continue;
        std::string_view name = space_.Str(p.EventName(e));
        Span span{p.events[e].begin_ps, p.events[e].end_ps()};
        if (IsExplicitHostStepMarker(name) || (!named.empty() && named[e])) {
          out[g].host_markers.push_back(span);
        } else if (IsRealCpuCompute(name)) {
          out[g].events.push_back({ClassifyCpuEvent(name, false, Find(p, e, id_correlation_) != nullptr), span});
        }
      }
    }
  }

  // TPU core planes: the `Steps` line gives the steps, `XLA Ops` the device ops
  // (self time by nesting); every op counts as device compute.
  void AddTpuDevice(const XPlaneModel& p, OpMetricsDb& db, std::map<int64_t, GroupStepEvents>& out) {
    const LineModel* steps_line = nullptr;
    const LineModel* ops_line = nullptr;
    for (const LineModel& l : p.lines) {
      std::string_view n = space_.Str(l.name);
      if (n == "Steps") steps_line = &l;
      if (n == "XLA Ops") ops_line = &l;
    }
    std::vector<std::pair<int64_t, Span>> steps;
    if (steps_line) {
      for (uint32_t e : SortedLineEvents(p, *steps_line)) {
        std::string_view n = space_.Str(p.EventName(e));
        int64_t num = 0;
        bool numeric = !n.empty() && std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; });
        num = numeric ? std::stoll(std::string(n)) : static_cast<int64_t>(steps.size());
        steps.push_back({num, {p.events[e].begin_ps, p.events[e].end_ps()}});
        out[num].device_markers.push_back(steps.back().second);
        out[num].step_name = std::string(n);
      }
    }
    if (!ops_line) return;
    struct Open {
      uint32_t e;
      int64_t children;
    };
    std::vector<Open> stack;
    int64_t first = INT64_MAX, last = INT64_MIN;
    uint64_t op_time = 0;
    auto span_of = [&](uint32_t e) {
      const Stat* off = id_device_offset_ == kNoStr ? nullptr : p.FindStat(e, id_device_offset_);
      const Stat* dur = id_device_duration_ == kNoStr ? nullptr : p.FindStat(e, id_device_duration_);
      if (off && dur) return Span{off->IntValue(), off->IntValue() + dur->IntValue()};
      return Span{p.events[e].begin_ps, p.events[e].end_ps()};
    };
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
        const Stat* cat = Find(p, o.e, id_hlo_category_);
        if (!cat) cat = id_hlo_category_ == kNoStr ? nullptr : p.FindEventOrMetadataStat(o.e, id_hlo_category_);
        m.category = cat && cat->kind == StatKind::kStr ? std::string(space_.Str(cat->str)) : "";
        const Stat* tf = id_tf_op_ == kNoStr ? nullptr : p.FindEventOrMetadataStat(o.e, id_tf_op_);
        m.provenance = tf && tf->kind == StatKind::kStr ? std::string(space_.Str(tf->str)) : "";
        m.min_time_ps = ev.duration_ps;
      }
      uint64_t self = static_cast<uint64_t>(std::max<int64_t>(0, ev.duration_ps - o.children));
      m.occurrences += 1;
      m.time_ps += ev.duration_ps;
      m.self_time_ps += self;
      m.min_time_ps = std::min<uint64_t>(m.min_time_ps, ev.duration_ps);
      if (const Stat* f = id_flops_ == kNoStr ? nullptr : p.FindEventOrMetadataStat(o.e, id_flops_)) {
        m.flops += f->DoubleValue();
      }
      if (const Stat* b = id_bytes_ == kNoStr ? nullptr : p.FindEventOrMetadataStat(o.e, id_bytes_)) {
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
      // Top-level ops are the device-compute spans of their step.
      if (stack.size() == 1) {
        auto it = std::upper_bound(steps.begin(), steps.end(), ev.begin_ps,
                                   [](int64_t t, const auto& s) { return t < s.second.begin; });
        if (it != steps.begin()) {
          --it;
          out[it->first].events.push_back({DEVICE_COMPUTE_32, {ev.begin_ps, ev.end_ps()}});
        }
      }
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

  // ConvertStepEventsToStepDb + precision stats.
  void BuildSteps(std::map<int64_t, GroupStepEvents>& step_events, bool has_device, std::vector<StepInfo>& steps,
                  OpStats& s) {
    for (auto& [group, ge] : step_events) {
      if (has_device && ge.device_markers.empty()) continue;  // IntersectCombineStepEvents
      auto longest = [](const std::vector<Span>& v) {
        Span best{0, 0};
        bool found = false;
        for (const Span& sp : v) {
          if (!found || sp.duration() > best.duration()) best = sp;
          found = true;
        }
        return std::make_pair(found, best);
      };
      auto [has_h, h] = longest(ge.host_markers);
      auto [has_d, d] = longest(ge.device_markers);
      if (!has_h && !has_d) continue;
      Span step = !has_d ? h : (has_h && h.begin <= d.begin && d.end <= h.end ? h : d);
      bool well_formed = false;
      for (const TypedSpan& t : ge.events) {
        well_formed |= has_device ? (t.type == DEVICE_COMPUTE_16 || t.type == DEVICE_COMPUTE_32)
                                  : t.type == HOST_COMPUTE;
      }
      if (!well_formed) continue;
      StepInfo info;
      info.step_num = group;
      auto name_it = groups_.group_names.find(static_cast<int32_t>(group));
      info.step_name = !ge.step_name.empty() ? ge.step_name
                       : name_it != groups_.group_names.end() ? name_it->second
                                                               : std::to_string(group);
      info.begin_ps = step.begin;
      info.duration_ps = static_cast<uint64_t>(step.duration());
      uint64_t sum = 0;
      for (const TypedSpan& t : ToNonOverlapped(ge.events)) {
        uint64_t ov = static_cast<uint64_t>(Overlap(step, t.span));
        info.type_ps[t.type] += ov;
        sum += ov;
        if (t.type == DEVICE_COMPUTE_16) s.compute_16bit_ps += t.span.duration();
        if (t.type == DEVICE_COMPUTE_32) s.compute_32bit_ps += t.span.duration();
      }
      if (info.duration_ps > sum) info.type_ps[UNKNOWN_TIME] += info.duration_ps - sum;
      steps.push_back(std::move(info));
    }
  }

  StrId StrIdStat(const XPlaneModel& p, uint32_t e, StrId id) const {
    const Stat* s = Find(p, e, id);
    return s && s->kind == StatKind::kStr ? s->str : kNoStr;
  }

  const TfOp& ParsedTfOp(StrId s) {
    auto [it, fresh] = tf_ops_.try_emplace(s);
    if (fresh) it->second = ParseTfOpFullname(space_.Str(s));
    return it->second;
  }


  void SetRunEnvironment(RunEnvironment& env) const {
    env.hostnames.insert(Hostname());
    env.host_count = 1;
    env.task_count = 1;
    int gpus = 0, tpus = 0;
    const XPlaneModel* first_gpu = nullptr;
    for (const XPlaneModel& p : space_.planes) {
      std::string_view n = space_.Str(p.name);
      if (IsGpuPlane(n)) {
        ++gpus;
        if (!first_gpu) first_gpu = &p;
      }
      tpus += IsTpuCorePlane(n);
    }
    if (gpus > 0) {
      env.hardware_type = "GPU";
      env.device_core_count = gpus;
      env.device_type = "GPU";
      StrId major_id = space_.Find("compute_cap_major");
      const Stat* major = major_id == kNoStr ? nullptr : first_gpu->FindPlaneStat(major_id);
      StrId minor_id = space_.Find("compute_cap_minor");
      const Stat* minor = minor_id == kNoStr ? nullptr : first_gpu->FindPlaneStat(minor_id);
      StrId vendor_id = space_.Find("device_vendor");
      const Stat* vendor = vendor_id == kNoStr ? nullptr : first_gpu->FindPlaneStat(vendor_id);
      bool amd = vendor && vendor->kind == StatKind::kStr && space_.Str(vendor->str) == "AMD";
      if (amd) {
        env.device_type = "AMD GPU";
      } else if (major) {
        int mj = static_cast<int>(major->IntValue()), mn = minor ? static_cast<int>(minor->IntValue()) : 0;
        const char* arch = mj == 2 ? "Fermi" : mj == 3 ? "Kepler" : mj == 5 ? "Maxwell" : mj == 6 ? "Pascal"
                         : mj == 7 ? (mn < 5 ? "Volta" : "Turing") : mj == 8 ? (mn < 9 ? "Ampere" : "Ada Lovelace")
                         : mj == 9 ? "Hopper" : mj == 10 ? "Blackwell" : nullptr;
        env.device_type = arch ? std::string("Nvidia GPU (") + arch + ")" : "Nvidia GPU";
      }
    } else if (tpus > 0) {
      env.hardware_type = "TPU";
      env.device_type = "TPU";
      env.device_core_count = tpus;
    }
  }

 private:
  const XSpaceModel& space_;
  EventGroups groups_;
  StrId id_correlation_, id_tf_op_, id_hlo_op_, id_shape_, id_kernel_details_, id_equation_, id_is_eager_,
      id_hlo_category_, id_flops_, id_bytes_, id_name_, id_device_offset_, id_device_duration_;
  std::unordered_map<size_t, std::unordered_map<uint64_t, OpMetrics*>> device_ops_;
  std::unordered_map<uint64_t, int> gpu_event_types_;
  std::unordered_map<StrId, TfOp> tf_ops_;
};

void CombineOpMetricsDb(const OpMetricsDb& src, OpMetricsDb& dst) {
  for (const auto& [name, m] : src.ops) {
    OpMetrics& d = dst.ops[name];
    if (d.name.empty()) {
      d = m;
      continue;
    }
    d.occurrences += m.occurrences;
    d.time_ps += m.time_ps;
    d.self_time_ps += m.self_time_ps;
    d.min_time_ps = std::min(d.min_time_ps, m.min_time_ps);
    d.flops += m.flops;
    d.bytes_accessed += m.bytes_accessed;
    d.is_eager |= m.is_eager;
    if (d.category.empty()) d.category = m.category;
    if (d.provenance.empty()) d.provenance = m.provenance;
  }
  dst.total_time_ps += src.total_time_ps;
  dst.total_op_time_ps += src.total_op_time_ps;
}

}  // namespace

size_t OpStats::ApproxBytes() const {
  size_t bytes = sizeof(OpStats) + kernel_stats_db.SpaceUsedLong();
  for (const OpMetricsDb* db : {&host_op_metrics_db, &device_op_metrics_db, &device_tf_op_metrics_db}) {
    for (const auto& [k, m] : db->ops) bytes += 2 * k.size() + m.category.size() + m.provenance.size() + 160;
  }
  for (const HostSteps& h : steps) bytes += h.steps.size() * 200;
  return bytes;
}

OpStats ConvertXSpaceToOpStats(const XSpaceModel& space) { return OpStatsBuilder(space).Build(); }

OpStats CombineOpStats(const std::vector<std::shared_ptr<const OpStats>>& hosts) {
  OpStats out;
  if (hosts.empty()) return out;
  std::map<std::tuple<bool, bool, std::vector<uint32_t>, uint32_t, uint32_t, uint32_t, std::string, std::string>,
           KernelReport>
      kernels;
  std::set<int64_t> common;
  bool first = true;
  for (const auto& h : hosts) {
    CombineOpMetricsDb(h->host_op_metrics_db, out.host_op_metrics_db);
    CombineOpMetricsDb(h->device_op_metrics_db, out.device_op_metrics_db);
    out.compute_16bit_ps += h->compute_16bit_ps;
    out.compute_32bit_ps += h->compute_32bit_ps;
    out.errors.insert(out.errors.end(), h->errors.begin(), h->errors.end());
    out.warnings.insert(out.warnings.end(), h->warnings.begin(), h->warnings.end());
    const RunEnvironment& env = h->run_environment;
    out.run_environment.hostnames.insert(env.hostnames.begin(), env.hostnames.end());
    out.run_environment.task_count += env.task_count;
    out.run_environment.device_core_count += env.device_core_count;
    if (env.hardware_type != "CPU_ONLY") {
      out.run_environment.hardware_type = env.hardware_type;
      out.run_environment.device_type = env.device_type;
    }
    for (const KernelReport& r : h->kernel_stats_db.reports()) {
      std::vector<uint32_t> dims(r.block_dim().begin(), r.block_dim().end());
      dims.insert(dims.end(), r.grid_dim().begin(), r.grid_dim().end());
      auto key = std::make_tuple(r.is_kernel_using_tensor_core(), r.is_op_tensor_core_eligible(), dims,
                                 r.registers_per_thread(), r.static_shmem_bytes(), r.dynamic_shmem_bytes(), r.name(),
                                 r.op_name());
      auto [it, inserted] = kernels.try_emplace(key, r);
      if (inserted) continue;
      KernelReport& d = it->second;
      d.set_total_duration_ns(d.total_duration_ns() + r.total_duration_ns());
      d.set_min_duration_ns(std::min(d.min_duration_ns(), r.min_duration_ns()));
      d.set_max_duration_ns(std::max(d.max_duration_ns(), r.max_duration_ns()));
      d.set_occurrences(d.occurrences() + r.occurrences());
    }
    for (const HostSteps& hs : h->steps) {
      std::set<int64_t> nums;
      for (const StepInfo& s : hs.steps) nums.insert(s.step_num);
      if (first) {
        common = nums;
      } else {
        std::set<int64_t> keep;
        std::set_intersection(common.begin(), common.end(), nums.begin(), nums.end(),
                              std::inserter(keep, keep.begin()));
        common = std::move(keep);
      }
      first = false;
    }
  }
  out.run_environment.host_count = static_cast<int>(out.run_environment.hostnames.size());
  out.device_tf_op_metrics_db = DeviceTfOpMetricsDb(out.device_op_metrics_db, /*with_idle=*/true);
  for (const auto& h : hosts) {
    for (const HostSteps& hs : h->steps) {
      HostSteps kept;
      kept.hostname = hs.hostname;
      for (const StepInfo& s : hs.steps) {
        if (common.count(s.step_num)) kept.steps.push_back(s);
      }
      out.steps.push_back(std::move(kept));
    }
  }
  std::vector<KernelReport*> all;
  for (auto& [k, r] : kernels) all.push_back(&r);
  SortKernelReports(all);
  for (size_t i = 0; i < all.size() && i < kMaxCombinedKernels; ++i) *out.kernel_stats_db.add_reports() = *all[i];
  return out;
}

bool OpStatsReadsEventStat(std::string_view plane_name, std::string_view stat_name) {
  // Every name looked up on events by GroupEvents (StatIds, TfLoopRoots) and
  // AddHostOps: all that is read on /host:CPU...
  static constexpr std::string_view kHost[] = {"_r", "_a", "_pt", "_p", "_ct", "_c", "correlation_id", "group_id",
                                               "step_name", "iter_num", "step_num", "id", "is_eager"};
  // ...and on device planes also by KernelStatsCollector and the device op
  // and step code. A name missing here reads as an absent stat; OpsProjection
  // tests compare the tools against whole-model results.
  static constexpr std::string_view kDeviceOnly[] = {"tf_op", "hlo_op", "shape", "kernel_details", "equation",
                                                     "hlo_category", "flops", "bytes_accessed", "name",
                                                     "device_offset_ps", "device_duration_ps"};
  if (std::find(std::begin(kHost), std::end(kHost), stat_name) != std::end(kHost)) return true;
  return plane_name != "/host:CPU" &&
         std::find(std::begin(kDeviceOnly), std::end(kDeviceOnly), stat_name) != std::end(kDeviceOnly);
}

}  // namespace tbprof
