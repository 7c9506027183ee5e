#include "convert/grouping/existing_groups.h"

#include "convert/model/event_nesting.h"

namespace tbprof {

EventGroups ReadExistingGroups(const XSpaceModel& space) {
  EventGroups out;
  out.was_grouped = true;
  out.group_of.resize(space.planes.size());
  out.has_step_name.resize(space.planes.size());
  out.tpu_steps.resize(space.planes.size());
  StrId group_id = space.Find(schema::kGroupId), step_name = space.Find(schema::kStepName);
  for (size_t i = 0; i < space.planes.size(); ++i) {
    const XPlaneModel& p = space.planes[i];
    if (!IsGroupedPlaneName(space.Str(p.name))) continue;
    auto& g = out.group_of[i];
    g.assign(p.events.size(), kNoGroup);
    for (uint32_t e = 0; e < p.events.size(); ++e) {
      const Stat* s = group_id == kNoStr ? nullptr : p.FindStat(e, group_id);
      if (!s || !s->IsInteger()) continue;
      g[e] = static_cast<int32_t>(s->IntValue());
      const Stat* n = step_name == kNoStr ? nullptr : p.FindStat(e, step_name);
      if (n && n->kind == StatKind::kStr) {
        if (out.has_step_name[i].empty()) out.has_step_name[i].assign(p.events.size(), 0);
        out.has_step_name[i][e] = 1;
        out.group_names.emplace(g[e], std::string(space.Str(n->str)));
      }
    }
    if (!IsTpuPlaneName(space.Str(p.name))) continue;
    for (const LineModel& line : p.lines) {
      if (!IsTpuStepLineName(space.Str(line.name))) continue;
      for (uint32_t e : SortedLineEvents(p, line)) out.tpu_steps[i].push_back({g[e], {e}});
    }
  }
  return out;
}

bool IsXSpaceGrouped(const XSpaceModel& space) {
  StrId group_id = space.Find(schema::kGroupId);
  if (group_id == kNoStr) return false;
  for (const XPlaneModel& p : space.planes) {
    for (const auto& [name, id] : p.stat_metadata) {
      if (name == group_id) return true;
    }
  }
  return false;
}

}  // namespace tbprof
