#include "convert/grouping/device_groups.h"

#include <algorithm>
#include <cstddef>

#include "convert/model/event_nesting.h"
#include "convert/model/schema.h"

namespace tbprof {

void InheritGroupsOnDevice(const XPlaneModel& p, std::vector<int32_t>& g) {
  // Begin ties go to the longer event, as xla's sort of the plane puts them:
  // an ungrouped event that begins with a shorter grouped one on another
  // stream does not take that one's group.
  std::vector<std::vector<uint32_t>> lines;
  for (const LineModel& line : p.lines) {
    if (!schema::IsDerivedThreadId(line.id)) lines.push_back(SortedLineEvents(p, line));
  }
  InheritGroupsInOrder(MergeSortedLines(p, lines), g);
}

void InheritGroupsInOrder(const std::vector<uint32_t>& order, std::vector<int32_t>& g) {
  int32_t last = kNoGroup;
  for (uint32_t e : order) {
    if (g[e] == kNoGroup) {
      g[e] = last;
    } else {
      last = g[e];
    }
  }
}

void GroupTpuPlane(const XPlaneModel& p, const LineModel* step_line, const std::vector<uint32_t>& grouping,
                   std::vector<int32_t>& g, std::vector<EventGroups::TpuStep>& steps) {
  if (step_line != nullptr) {
    const std::vector<uint32_t> order = SortedLineEvents(p, *step_line);
    const bool any = std::any_of(order.begin(), order.end(), [&](uint32_t e) { return g[e] != kNoGroup; });
    bool extending = false;
    for (uint32_t e : order) {
      if (!any) {
        steps.push_back({kNoGroup, {e}});
      } else if (g[e] == kNoGroup) {
        extending = false;  // dropped: the host ran ahead of the device
      } else if (extending && steps.back().group == g[e]) {
        steps.back().events.push_back(e);
      } else {
        steps.push_back({g[e], {e}});
        extending = true;
      }
    }
  }
  if (grouping.empty()) return;
  struct Holder {
    int64_t begin, end;
    int32_t group;
  };
  std::vector<Holder> holders;  // the grouping line as merging left it
  if (step_line != nullptr && step_line->num_events > 0) {
    for (const EventGroups::TpuStep& step : steps) {
      holders.push_back({p.events[step.events.front()].begin_ps, p.events[step.events.back()].end_ps(), step.group});
    }
  } else {
    for (uint32_t e : grouping) holders.push_back({p.events[e].begin_ps, p.events[e].end_ps(), g[e]});
  }
  for (const LineModel& line : p.lines) {
    if (&line == step_line || schema::IsDerivedThreadId(line.id)) continue;
    // XEventContextTracker::GetOverlappingEvent, asked in time order.
    size_t current = SIZE_MAX;
    for (uint32_t e : SortedLineEvents(p, line)) {
      const int64_t begin = p.events[e].begin_ps, end = p.events[e].end_ps();
      auto overlaps = [&](const Holder& h) { return h.begin <= end && begin <= h.end; };
      const Holder* found = nullptr;
      if (current != SIZE_MAX && overlaps(holders[current])) {
        found = &holders[current];
      } else {
        for (size_t i = current == SIZE_MAX ? 0 : current + 1; i < holders.size(); ++i) {
          if (holders[i].begin > end) break;
          if (holders[i].end < begin) continue;
          current = i;
          if (overlaps(holders[i])) found = &holders[i];
          break;
        }
      }
      if (found != nullptr && found->group != kNoGroup && g[e] == kNoGroup) g[e] = found->group;
    }
  }
}

}  // namespace tbprof
