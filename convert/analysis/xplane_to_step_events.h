// XSpace -> step events (xprof xplane_to_step_events.cc): per step (group),
// the step markers the host and the devices left, and the typed spans of
// what ran in it, from which step_events_to_steps_db builds the step table.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "convert/xplane/group_events.h"
#include "convert/xplane/schema.h"
#include "convert/xplane/xspace_model.h"

namespace tbprof {

struct Span {
  int64_t begin = 0, end = 0;
  int64_t duration() const { return end - begin; }
};

struct TypedSpan {
  int type;  // EventType
  Span span;
};

// Step events of one step: markers and typed spans (xprof StepDetails).
struct GroupStepEvents {
  std::vector<Span> device_markers, host_markers;
  // A TPU SparseCore's own step markers: the step is one that every core took
  // part in, but its time is the TensorCores' (xprof's step-time summary
  // leaves SparseCores out).
  std::vector<Span> sparse_core_markers;
  std::vector<TypedSpan> events;
  std::string step_name;
};

// Keyed by step number (the group id, or a TPU step's number).
using StepEvents = std::map<int64_t, GroupStepEvents>;

// GPU plane: device markers (consecutive events of a group) and the typed
// kernel and memcpy events of each group.
void AddGpuStepEvents(const XSpaceModel& space, const schema::StatIds& ids, const EventGroups& groups,
                      size_t plane_index, StepEvents& out);

// CPU-only profiles: host markers (named step roots) and classified host events.
void AddHostStepEvents(const XSpaceModel& space, const schema::StatIds& ids, const EventGroups& groups,
                       size_t plane_index, StepEvents& out);

// A TPU TensorCore or SparseCore plane: its step line gives the markers, its
// top-level ops the device compute of the step they start in.
StepEvents TpuPlaneStepEvents(const XSpaceModel& space, const schema::StatIds& ids, const XPlaneModel& plane);

// Keeps the steps both have (xprof IntersectCombineStepEvents), merging their
// markers and events.
void IntersectCombineStepEvents(StepEvents src, StepEvents& dst, bool dst_is_empty_set);

// The span of a TPU op: device_offset_ps/device_duration_ps when present.
Span DeviceEventSpan(const XPlaneModel& p, uint32_t e, const schema::StatIds& ids);

}  // namespace tbprof
