// How device events take groups once the host's are known: the last steps
// of grouping (group_events.h), as free functions of one plane each.
#pragma once

#include <cstdint>
#include <vector>

#include "convert/grouping/event_groups.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

// ProcessUngroupedEvents: a GPU event without a group takes the group of the
// latest earlier event of its plane, in OuterFirst order (events alike in both
// in line order, then in the order of their line). Derived lines are left out.
// `group[e]`: event e's group, kNoGroup if none; filled in place.
void InheritGroupsOnDevice(const XPlaneModel& plane, std::vector<int32_t>& group);

// The same, for a caller that has the plane's time order (MergeSortedLines
// of its non-derived lines) already: each event of `order` without a group
// takes the last group seen before it.
void InheritGroupsInOrder(const std::vector<uint32_t>& order, std::vector<int32_t>& group);

// GroupTpuXPlaneEvents. `step_line`: the plane's "Steps" line (nullptr if
// none); `grouping`: the events the plane grouped by (its steps, else its
// modules) in time order. The steps are merged by group into `steps`
// (MergeHostSteps: consecutive steps of one group are one step; ungrouped
// ones are dropped unless no step has a group), then every event off the
// steps line that has no group takes the group of the first grouping event
// (or merged step) it overlaps in time, both ends included.
void GroupTpuPlane(const XPlaneModel& plane, const LineModel* step_line, const std::vector<uint32_t>& grouping,
                   std::vector<int32_t>& group, std::vector<EventGroups::TpuStep>& steps);

}  // namespace tbprof
