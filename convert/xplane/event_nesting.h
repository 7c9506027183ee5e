// How events of one thread nest: the one containment rule that step grouping
// (group_events) and the tf.data event forest (event_forest) both build on,
// as xla's EventForest does for both.
#pragma once

#include <cstdint>
#include <vector>

#include "convert/xplane/group_events.h"
#include "convert/xplane/xspace_model.h"

namespace tbprof {

// Walks one line's events in SortedLineEvents order (begin ascending, longer
// first) and calls on_nest(parent, child) for every event that an earlier
// event contains: its parent is the innermost such event. An event ends the
// candidates it outlives (a partial overlap is no nesting). Events marked
// async (`async_stat` non-zero, on the event or its metadata) neither nest
// nor contain.
template <typename OnNest>
void NestLineEvents(const XPlaneModel& plane, const std::vector<uint32_t>& sorted_line, StrId async_stat,
                    OnNest&& on_nest) {
  std::vector<uint32_t> open;
  for (uint32_t e : sorted_line) {
    if (async_stat != kNoStr) {
      const Stat* async = plane.FindEventOrMetadataStat(e, async_stat);
      if (async != nullptr && async->IntValue() != 0) continue;
    }
    const int64_t end = plane.events[e].end_ps();
    while (!open.empty() && plane.events[open.back()].end_ps() < end) open.pop_back();
    if (!open.empty()) on_nest(open.back(), e);
    open.push_back(e);
  }
}

}  // namespace tbprof
