#include "convert/analysis/trace_analysis/critical_path.h"

#include <algorithm>
#include <array>
#include <unordered_map>

#include "convert/analysis/trace_analysis/host_category.h"
#include "convert/analysis/trace_analysis/step_spans.h"
#include "convert/base/json.h"
#include "convert/model/kineto_names.h"
#include "convert/model/schema.h"

namespace tbprof::trace_analysis {
namespace {

// Calls that wait for the GPU (HTA's blocking sync calls, and HIP's alike).
bool IsBlockingCall(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kCalls = {"DeviceSynchronize", "StreamSynchronize",
                                                             "EventSynchronize",  "EventQuery",
                                                             "Memcpy",            "MemcpyAsync"};
  std::string_view rest;
  if (name.starts_with("cuda")) {
    rest = name.substr(4);
  } else if (name.starts_with("hip")) {
    rest = name.substr(3);
  } else {
    return false;
  }
  return std::find(kCalls.begin(), kCalls.end(), rest) != kCalls.end();
}

// The window's events as the graph takes them, with where each lives.
struct Window {
  std::vector<CpEvent> events;
  std::vector<CriticalPathEventRef> where;
};

// What a host event is, by its metadata, resolved once per plane.
struct HostKinds {
  std::vector<char> skipped, runtime, blocking;
};

HostKinds HostKindsOf(const XSpaceModel& space, const XPlaneModel& host) {
  HostKinds k;
  const size_t n = host.event_metadata.size();
  k.skipped.assign(n, 0);
  k.runtime.assign(n, 0);
  k.blocking.assign(n, 0);
  const StrId category = space.Find(schema::kKinetoCategory);
  for (uint32_t m = 0; m < n; ++m) {
    auto [b, end] = host.MetadataStatsOf(m);
    for (const Stat* s = b; s != end; ++s) {
      if (s->name != category || s->kind != StatKind::kStr || s->str == kNoStr) continue;
      const HostCategory c = HostCategoryOf(space.Str(s->str));
      k.skipped[m] = c == HostCategory::kPython;
      k.runtime[m] = c == HostCategory::kRuntime;
    }
    k.blocking[m] = IsBlockingCall(space.Str(host.event_metadata[m].name));
  }
  return k;
}

Window BuildWindow(const XSpaceModel& space, const StepSpan& step) {
  Window w;
  const StrId correlation = space.Find(schema::kCorrelationId);
  std::unordered_map<int64_t, uint32_t> launch_of;  // correlation id → window event
  uint32_t lanes = 0;
  for (uint32_t p = 0; p < space.planes.size(); ++p) {
    const XPlaneModel& plane = space.planes[p];
    if (space.Str(plane.name) != schema::kHostPlane) continue;
    const HostKinds kinds = HostKindsOf(space, plane);
    for (const LineModel& line : plane.lines) {
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
        const Event& ev = plane.events[e];
        if (ev.begin_ps < step.begin_ps || ev.end_ps() > step.end_ps || kinds.skipped[ev.metadata]) continue;
        CpEvent c;
        c.begin_ps = ev.begin_ps;
        c.end_ps = ev.end_ps();
        c.lane = lanes;
        c.blocking = kinds.blocking[ev.metadata];
        const Stat* corr = correlation == kNoStr ? nullptr : plane.FindStat(e, correlation);
        c.runtime = kinds.runtime[ev.metadata] || corr != nullptr;
        if (corr != nullptr) launch_of.try_emplace(corr->IntValue(), static_cast<uint32_t>(w.events.size()));
        w.events.push_back(c);
        w.where.push_back({p, e});
      }
      ++lanes;
    }
  }
  lanes = 0;
  std::vector<int64_t> outside_ends;  // of the device ops launched outside the window
  for (uint32_t p = 0; p < space.planes.size(); ++p) {
    const XPlaneModel& plane = space.planes[p];
    if (!schema::IsGpuPlane(space.Str(plane.name))) continue;
    for (const LineModel& line : plane.lines) {
      bool used = false;
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
        const Stat* corr = correlation == kNoStr ? nullptr : plane.FindStat(e, correlation);
        if (corr == nullptr) continue;
        auto launch = launch_of.find(corr->IntValue());
        if (launch == launch_of.end()) {
          outside_ends.push_back(plane.events[e].end_ps());
          continue;
        }
        CpEvent c;
        c.gpu = true;
        c.begin_ps = plane.events[e].begin_ps;
        c.end_ps = plane.events[e].end_ps();
        c.lane = lanes;
        c.launch = launch->second;
        w.events.push_back(c);
        w.where.push_back({p, e});
        used = true;
      }
      lanes += used;
    }
  }
  std::sort(outside_ends.begin(), outside_ends.end());
  for (CpEvent& c : w.events) {
    if (c.gpu || !c.blocking) continue;
    auto it = std::lower_bound(outside_ends.begin(), outside_ends.end(), c.begin_ps);
    c.waits_outside = it != outside_ends.end() && *it <= c.end_ps;
  }
  return w;
}

}  // namespace

namespace {

// The span of every host event: the window of a profile that marks no steps.
std::optional<StepSpan> WholeProfile(const XSpaceModel& space) {
  const XPlaneModel* host = space.FindPlane(schema::kHostPlane);
  if (host == nullptr || host->events.empty()) return std::nullopt;
  StepSpan all{0, host->events[0].begin_ps, host->events[0].end_ps()};
  for (const Event& e : host->events) {
    all.begin_ps = std::min(all.begin_ps, e.begin_ps);
    all.end_ps = std::max(all.end_ps, e.end_ps());
  }
  return all;
}

}  // namespace

StatusOr<CriticalPath> ComputeCriticalPath(const XSpaceModel& space, std::optional<int64_t> step) {
  const std::vector<StepSpan> steps = HostSteps(space);
  constexpr std::string_view kNoSteps =
      "the profile marks no steps (no host event carries a step number, as PyTorch's ProfilerStep#N does)";
  std::optional<StepSpan> whole;
  if (steps.empty()) {
    if (step) return NotFound("critical_path: no step " + std::to_string(*step) + ": " + std::string(kNoSteps));
    whole = WholeProfile(space);
    if (!whole) return NotFound("critical_path: the profile has no host events");
  }
  const StepSpan* chosen = whole ? &*whole : &steps[0];
  if (step) {
    auto it = std::find_if(steps.begin(), steps.end(), [&](const StepSpan& s) { return s.number == *step; });
    if (it == steps.end()) {
      std::string known;
      for (const StepSpan& s : steps) known += (known.empty() ? "" : ", ") + std::to_string(s.number);
      return NotFound("critical_path: no step " + std::to_string(*step) + " in this profile; its steps: " + known);
    }
    chosen = &*it;
  }
  const Window w = BuildWindow(space, *chosen);
  ASSIGN_OR_RETURN(CpResult r, LongestCriticalPath(w.events));
  CriticalPath out;
  for (const StepSpan& s : steps) out.steps.push_back(s.number);
  out.step = chosen->number;
  out.whole_profile = whole.has_value();
  out.step_begin_ps = chosen->begin_ps;
  out.step_end_ps = chosen->end_ps;
  out.window_end_ps = chosen->end_ps;
  for (const CpEvent& e : w.events) out.window_end_ps = std::max(out.window_end_ps, e.end_ps);
  out.length_ps = r.length_ps;
  for (const CpSegment& s : r.segments) {
    const CriticalPathEventRef at = w.where[s.event];
    out.segments.push_back({s.kind, std::string(space.Str(space.planes[at.plane].EventName(at.event))), at,
                            s.start_ps, s.duration_ps});
  }
  for (const CpVisit& v : r.visits) out.visits.push_back({w.where[v.event], v.enter_ps, v.leave_ps});
  return out;
}

void AppendCriticalPathJson(const std::vector<RankCriticalPath>& ranks, std::string& out) {
  const CriticalPath* longest = nullptr;
  const RankCriticalPath* failed = nullptr;
  for (const RankCriticalPath& r : ranks) {
    if (!r.path && failed == nullptr) failed = &r;
    if (r.path && (longest == nullptr || r.path->length_ps > longest->length_ps)) longest = &*r.path;
  }
  auto us = [&](int64_t ps) { AppendJsonDouble(out, static_cast<double>(ps) / 1e6); };
  out.append("\"critical_path\":{\"step\":");
  out.append(longest && !longest->whole_profile ? std::to_string(longest->step) : "null");
  out.append(",\"whole_profile\":").append(longest && longest->whole_profile ? "true" : "false");
  out.append(",\"steps\":[");
  for (size_t i = 0; longest && i < longest->steps.size(); ++i) {
    if (i > 0) out.push_back(',');
    out.append(std::to_string(longest->steps[i]));
  }
  out.append("],\"length_us\":");
  if (longest) {
    us(longest->length_ps);
  } else {
    out.append("null");
  }
  out.append(",\"reason\":");
  if (failed) {
    AppendJsonString(out, failed->reason);
  } else {
    out.append("null");
  }
  out.append(",\"per_rank\":[");
  for (size_t i = 0; i < ranks.size(); ++i) {
    out.append(i > 0 ? ",{\"rank\":" : "{\"rank\":").append(std::to_string(ranks[i].rank));
    AppendJsonStringMember(out, ",\"host\":", ranks[i].host);
    if (!ranks[i].path) {
      AppendJsonStringMember(out, ",\"reason\":", ranks[i].reason);
      out.push_back('}');
      continue;
    }
    const CriticalPath& p = *ranks[i].path;
    out.append(",\"step\":").append(p.whole_profile ? "null" : std::to_string(p.step)).append(",\"length_us\":");
    us(p.length_ps);
    out.append(",\"step_start_us\":");
    us(p.step_begin_ps);
    out.append(",\"step_span_us\":");
    us(p.step_end_ps - p.step_begin_ps);
    out.append(",\"window_span_us\":");
    us(p.window_end_ps - p.step_begin_ps);
    out.push_back('}');
  }
  out.append("],\"segments\":[");
  bool first = true;
  for (const RankCriticalPath& r : ranks) {
    if (!r.path) continue;
    for (const CriticalPathSegment& s : r.path->segments) {
      out.append(first ? "{\"kind\":\"" : ",{\"kind\":\"").append(CpSegmentKindName(s.kind)).append("\"");
      first = false;
      AppendJsonStringMember(out, ",\"name\":", s.name);
      out.append(",\"rank\":").append(std::to_string(r.rank));
      AppendJsonStringMember(out, ",\"host\":", r.host);
      out.append(",\"start_us\":");
      us(s.start_ps);
      out.append(",\"duration_us\":");
      us(s.duration_ps);
      out.append(",\"share_pctg\":");
      if (r.path->length_ps > 0) {
        AppendJsonDouble(out, 100.0 * static_cast<double>(s.duration_ps) / static_cast<double>(r.path->length_ps));
      } else {
        out.append("null");
      }
      out.push_back('}');
    }
  }
  out.append("]}");
}

}  // namespace tbprof::trace_analysis
