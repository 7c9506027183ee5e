// A TPU plane's step line ("Steps", or "Sparse Core Steps" on a SparseCore)
// as xprof's grouping rewrites it before its trace viewer reads the plane
// (GroupTpuXPlaneEvents: MergeHostSteps, then AddGroupMetadataToStepEvents).
// Used by derived_timeline.cc, whose derived line replaces the file's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "convert/base/string_table.h"
#include "convert/grouping/group_events.h"
#include "convert/model/xspace_model.h"

namespace tbprof::derived {

// One step after merging: the file event it keeps (its name and stats), over
// the span of the steps merged into it.
struct MergedTpuStep {
  uint32_t first_event = 0;
  int64_t begin_ps = 0, end_ps = 0;
  int32_t group = kNoGroup;
  // The kept event's stats (its metadata's, its own overriding), with the
  // merged device_offset_ps / device_duration_ps (over the steps' device
  // time, when the kept event has them) and step_idle_time_ps (summed), and
  // step_name, the group's name. Names interned in the `strings` given.
  std::vector<Stat> stats;
};

// The plane's step line, if it has one.
std::optional<uint32_t> TpuStepLine(const XSpaceModel& space, const XPlaneModel& plane);

// The steps of plane `plane_index` as grouping merged them
// (EventGroups::tpu_steps); empty when no step has a group, since xprof then
// leaves the line as it is.
std::vector<MergedTpuStep> MergeTpuSteps(const XSpaceModel& space, size_t plane_index, const EventGroups& groups,
                                         StringTable& strings);

}  // namespace tbprof::derived
