// Step grouping of an XSpace (xla group_events.cc):
// finds step roots (`_r`, TraceContext), connects nested events, host kernel
// launches to their GPU activity (correlation_id) and producers to consumers
// (`_p`/`_c`, and the links xprof's preprocessing implies: see
// implied_contexts.h; work inside a thread pool's closure region takes the
// region's link: threadpool_regions.h), and gives every reachable event the
// group of its first root. Every plane takes part, as in xprof (the
// process's own host plane, its sub-processes' and custom planes; GPU planes
// for their kernels); a link joins only events of one process (`process_id`,
// `_pid`). TPU planes group by their steps (GroupTpuEventsOSS): a step
// joins the host step that launched a module it holds; when no step of any
// TensorCore does, the cores' steps are numbered in lock step; every other
// TPU event takes the group of the step it overlaps.
// The model stays immutable: groups are returned as side tables.
#pragma once

#include <span>
#include <string_view>

#include "convert/grouping/event_groups.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

// Reads existing group_id/step_name stats when the space is already grouped
// (and leaves them as they are, as xprof does), otherwise computes the groups;
// then GPU events left ungrouped inherit the group of the latest earlier event
// on their plane (ProcessUngroupedEvents, device_groups.h). Spaces with TF
// loop ops (WhileOp-EvalCond, ForOp, …) are left ungrouped, as in xla.
EventGroups GroupEvents(const XSpaceModel& space);

// Every event stat GroupEvents reads, on any plane: a model loaded without
// one of them groups differently.
std::span<const std::string_view> GroupingStatNames();

}  // namespace tbprof
