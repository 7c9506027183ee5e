#include "convert/analysis/trace_viewer/tpu_step_line.h"

#include <algorithm>
#include <climits>

#include "convert/grouping/existing_groups.h"
#include "convert/model/schema.h"

namespace tbprof::derived {

std::optional<uint32_t> TpuStepLine(const XSpaceModel& space, const XPlaneModel& plane) {
  std::optional<uint32_t> found;
  for (uint32_t l = 0; l < plane.lines.size(); ++l) {
    if (IsTpuStepLineName(space.Str(plane.lines[l].name))) found = l;
  }
  return found;
}

std::vector<MergedTpuStep> MergeTpuSteps(const XSpaceModel& space, size_t plane_index, const EventGroups& groups,
                                         StringTable& strings) {
  std::vector<MergedTpuStep> out;
  if (plane_index >= groups.tpu_steps.size()) return out;
  const std::vector<EventGroups::TpuStep>& steps = groups.tpu_steps[plane_index];
  if (std::none_of(steps.begin(), steps.end(), [](const EventGroups::TpuStep& s) { return s.group != kNoGroup; })) {
    return out;
  }
  const XPlaneModel& plane = space.planes[plane_index];
  const StrId offset_id = space.Find(schema::kDeviceOffsetPs), duration_id = space.Find(schema::kDeviceDurationPs),
              idle_id = space.Find(schema::kStepIdleTimePs);
  auto find = [&](uint32_t e, StrId id) { return id == kNoStr ? nullptr : plane.FindStat(e, id); };
  auto int_stat = [&](std::string_view name, int64_t value) {
    Stat s;
    s.name = strings.Intern(name);
    s.kind = StatKind::kInt64;
    s.i64 = value;
    return s;
  };
  for (const EventGroups::TpuStep& step : steps) {
    MergedTpuStep merged;
    merged.first_event = step.events.front();
    merged.group = step.group;
    const Event& first = plane.events[merged.first_event];
    merged.begin_ps = first.begin_ps;
    merged.end_ps = std::max(plane.events[step.events.back()].end_ps(), first.begin_ps);
    std::vector<Stat>& stats = merged.stats;
    auto copy = [&](const Stat* b, const Stat* end) {
      for (const Stat* st = b; st != end; ++st) {
        if (st->kind == StatKind::kNone || st->kind == StatKind::kBytes) continue;
        if (st->name == offset_id || st->name == duration_id || st->name == idle_id) continue;
        Stat c = *st;
        c.name = strings.Intern(space.Str(st->name));
        if (c.kind == StatKind::kStr) c.str = strings.Intern(space.Str(st->str));
        std::erase_if(stats, [&](const Stat& o) { return o.name == c.name; });
        stats.push_back(c);
      }
    };
    auto [mb, me] = plane.MetadataStatsOf(first.metadata);
    copy(mb, me);
    auto [eb, ee] = plane.StatsOf(merged.first_event);
    copy(eb, ee);
    if (find(merged.first_event, offset_id) != nullptr && find(merged.first_event, duration_id) != nullptr) {
      int64_t device_begin = INT64_MAX, device_end = INT64_MIN;
      for (uint32_t e : step.events) {
        const Stat *o = find(e, offset_id), *d = find(e, duration_id);
        if (o == nullptr || d == nullptr) continue;
        device_begin = std::min(device_begin, o->IntValue());
        device_end = std::max(device_end, o->IntValue() + d->IntValue());
      }
      stats.push_back(int_stat(schema::kDeviceOffsetPs, device_begin));
      stats.push_back(int_stat(schema::kDeviceDurationPs, device_end - device_begin));
    }
    // Grouping keeps only grouped steps once one has a group.
    int64_t idle = 0;
    for (uint32_t e : step.events) {
      if (const Stat* s = find(e, idle_id)) idle += s->IntValue();
    }
    stats.push_back(int_stat(schema::kStepIdleTimePs, idle));
    if (auto name = groups.group_names.find(step.group); name != groups.group_names.end()) {
      Stat step_name;
      step_name.name = strings.Intern(schema::kStepName);
      step_name.kind = StatKind::kStr;
      step_name.str = strings.Intern(name->second);
      stats.push_back(step_name);
    }
    out.push_back(std::move(merged));
  }
  return out;
}

}  // namespace tbprof::derived
