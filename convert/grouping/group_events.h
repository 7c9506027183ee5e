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

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "convert/model/xspace_model.h"

namespace tbprof {

inline constexpr int32_t kNoGroup = -1;

struct EventGroups {
  // group_of[plane][event]: group id of the event, kNoGroup if none.
  std::vector<std::vector<int32_t>> group_of;
  // has_step_name[plane][event]: the event is a named (non-implicit) step root.
  std::vector<std::vector<uint8_t>> has_step_name;
  std::map<int32_t, std::string> group_names;
  bool was_grouped = false;  // the file already carried group_id stats

  // A TPU step: the events of a "Steps" (or "Sparse Core Steps") line that
  // make it up. xprof's MergeHostSteps makes one step of consecutive steps of
  // one group (a step of several modules) and drops the ungrouped ones,
  // unless no step has a group. Files that come grouped keep every step.
  struct TpuStep {
    int32_t group = kNoGroup;
    std::vector<uint32_t> events;  // in time order
  };
  // tpu_steps[plane]: the plane's steps in time order (empty for other planes).
  std::vector<std::vector<TpuStep>> tpu_steps;

  // Eager execution (xprof's MarkEagerlyExecutedGpuKernels and …CpuTfOps):
  // an event runs eagerly when the nearest EagerKernelExecute above it (by
  // nesting, launch or producer/consumer link; itself included) ran a single
  // op (`is_func` 0). A function call (`is_func` 1, or no `is_func`, as TF
  // wrote before it had the stat) is not eager. xprof writes the answer as
  // an `is_eager` stat on TF ops ("name:Type" events) and on launched kernels
  // only; readers apply it to those. is_eager[plane] is empty when no event
  // of the plane runs eagerly.
  std::vector<std::vector<uint8_t>> is_eager;
  // The grouping was computed (not read from the file, not skipped for TF
  // loops): xprof then writes is_eager, 0 or 1, on every such event.
  bool computed = false;

  int32_t Group(size_t plane, uint32_t event) const {
    return plane < group_of.size() && event < group_of[plane].size() ? group_of[plane][event] : kNoGroup;
  }
  bool IsEager(size_t plane, uint32_t event) const {
    return plane < is_eager.size() && event < is_eager[plane].size() && is_eager[plane][event] != 0;
  }
  bool IsEagerPlane(size_t plane) const { return plane < is_eager.size() && !is_eager[plane].empty(); }
};

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
