#include "convert/analysis/op_stats/step_events_to_steps_db.h"

#include <algorithm>

namespace tbprof {
namespace {

int64_t Overlap(const Span& a, const Span& b) {
  if (!(a.begin <= b.end && b.begin <= a.end)) return 0;
  return std::min(a.end, b.end) - std::max(a.begin, b.begin);
}

std::pair<bool, Span> Longest(const std::vector<Span>& v) {
  Span best{0, 0};
  bool found = false;
  for (const Span& sp : v) {
    if (!found || sp.duration() > best.duration()) best = sp;
    found = true;
  }
  return {found, best};
}

}  // namespace

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

std::vector<StepInfo> ConvertStepEventsToStepDb(const StepEvents& step_events, bool has_device,
                                                const std::map<int32_t, std::string>& group_names,
                                                uint64_t& compute_16bit_ps, uint64_t& compute_32bit_ps) {
  std::vector<StepInfo> steps;
  for (const auto& [group, ge] : step_events) {
    if (has_device && ge.device_markers.empty()) continue;
    auto [has_h, h] = Longest(ge.host_markers);
    auto [has_d, d] = Longest(ge.device_markers);
    if (!has_h && !has_d) continue;
    Span step = !has_d ? h : (has_h && h.begin <= d.begin && d.end <= h.end ? h : d);
    bool well_formed = false;
    for (const TypedSpan& t : ge.events) {
      well_formed |= has_device ? (t.type == DEVICE_COMPUTE_16 || t.type == DEVICE_COMPUTE_32) : t.type == HOST_COMPUTE;
    }
    if (!well_formed) continue;
    StepInfo info;
    info.step_num = group;
    auto name_it = group_names.find(static_cast<int32_t>(group));
    info.step_name = !ge.step_name.empty()          ? ge.step_name
                     : name_it != group_names.end() ? name_it->second
                                                    : std::to_string(group);
    info.begin_ps = step.begin;
    info.duration_ps = static_cast<uint64_t>(step.duration());
    uint64_t sum = 0;
    for (const TypedSpan& t : ToNonOverlapped(ge.events)) {
      uint64_t ov = static_cast<uint64_t>(Overlap(step, t.span));
      info.type_ps[t.type] += ov;
      sum += ov;
      if (t.type == DEVICE_COMPUTE_16) compute_16bit_ps += t.span.duration();
      if (t.type == DEVICE_COMPUTE_32) compute_32bit_ps += t.span.duration();
    }
    if (info.duration_ps > sum) info.type_ps[UNKNOWN_TIME] += info.duration_ps - sum;
    steps.push_back(std::move(info));
  }
  return steps;
}

std::vector<PerCoreStepInfo> ConvertTpuStepEventsToStepDb(const StepEvents& step_events) {
  std::vector<PerCoreStepInfo> db;
  for (const auto& [step_num, ge] : step_events) {
    PerCoreStepInfo& step = db.emplace_back();
    step.step_num = step_num;
    for (const auto& [core, category_ps] : ge.core_category_ps) {
      auto marker = ge.core_markers.find(core);
      if (marker == ge.core_markers.end() || marker->second.duration() <= 0) continue;  // no step time on this core
      StepInfo& info = step.step_info_per_core[core];
      info.step_num = step_num;
      info.step_name = ge.step_name;
      info.begin_ps = marker->second.begin;
      info.duration_ps = static_cast<uint64_t>(marker->second.duration());
      info.category_ps = category_ps;
      uint64_t op_ps = 0;
      for (const auto& [category, ps] : category_ps) op_ps += ps;
      info.category_ps[kIdleCategory] += info.duration_ps - op_ps;
    }
    for (const auto& [core, all_reduces] : ge.core_all_reduces) step.all_reduce_per_core[core] = all_reduces;
  }
  return db;
}

}  // namespace tbprof
