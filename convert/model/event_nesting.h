// How events of one thread nest: the one containment rule that step grouping
// (group_events) and the tf.data event forest (event_forest) both build on,
// as xla's EventForest does for both.
#pragma once

#include <cstdint>
#include <vector>

#include "convert/model/xspace_model.h"

namespace tbprof {

// An event that no other event of its line encloses has this parent.
inline constexpr uint32_t kNoEnclosingEvent = UINT32_MAX;

// Indices of a line's events sorted by (begin asc, duration desc).
std::vector<uint32_t> SortedLineEvents(const XPlaneModel& plane, const LineModel& line);

// The events of several lines, each given in SortedLineEvents order, merged
// into one time order (OuterFirst; events alike in both go by the order of
// their lines in `lines`). Empty lines are allowed.
std::vector<uint32_t> MergeSortedLines(const XPlaneModel& plane, const std::vector<std::vector<uint32_t>>& lines);

// Takes one line's events in SortedLineEvents order (begin ascending, longer
// first) and reports, for every event that an earlier one contains, its parent:
// the innermost such event. An event ends the candidates it outlives (a partial
// overlap is no nesting). Async events are not passed in at all.
class LineNester {
 public:
  template <typename OnNest>
  void Add(const XPlaneModel& plane, uint32_t e, OnNest&& on_nest) {
    const int64_t end = plane.events[e].end_ps();
    while (!open_.empty() && plane.events[open_.back()].end_ps() < end) open_.pop_back();
    if (!open_.empty()) on_nest(open_.back(), e);
    open_.push_back(e);
  }

 private:
  std::vector<uint32_t> open_;  // the enclosing candidates, outermost first
};

// Walks one line's events in SortedLineEvents order and calls
// on_nest(parent, child) as LineNester does. Events marked async
// (`async_stat` non-zero, on the event or its metadata) neither nest nor contain.
template <typename OnNest>
void NestLineEvents(const XPlaneModel& plane, const std::vector<uint32_t>& sorted_line, StrId async_stat,
                    OnNest&& on_nest) {
  LineNester nester;
  for (uint32_t e : sorted_line) {
    if (async_stat != kNoStr) {
      const Stat* async = plane.FindEventOrMetadataStat(e, async_stat);
      if (async != nullptr && async->IntValue() != 0) continue;
    }
    nester.Add(plane, e, on_nest);
  }
}

}  // namespace tbprof
