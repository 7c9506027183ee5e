// XSpace -> step events (xprof xplane_to_step_events.cc): per step (group),
// the step markers the host and the devices left, and the typed spans of
// what ran in it, from which step_events_to_steps_db builds the step table.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "convert/analysis/self_time/op_self_time.h"
#include "convert/analysis/op_stats/op_stats.h"
#include "convert/grouping/group_events.h"
#include "convert/model/schema.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

struct TypedSpan {
  int type;  // EventType
  Span span;
};

// Step events of one step: markers and typed spans (xprof StepDetails).
struct GroupStepEvents {
  std::vector<Span> device_markers, host_markers;
  std::vector<TypedSpan> events;
  std::string step_name;
  // TPU, by core id: the core's longest step marker (xprof StepTimeOnCore),
  // the self time of its ops in the step by HLO category (xprof's per-core
  // op metrics db), and its all-reduces.
  std::map<uint32_t, Span> core_markers;
  std::map<uint32_t, std::map<std::string, uint64_t>> core_category_ps;
  std::map<uint32_t, std::vector<AllReduceInfo>> core_all_reduces;
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

// TPU plane `plane_index` as core `core_id` (xprof
// ConvertDeviceTraceXPlaneToStepEvents): its grouped steps give the markers
// (a merged step spans its events' device time), its op line each step's ops
// (by their group) by category and self time. Ungrouped steps and ops count
// nowhere, as in xprof. Only steps with both are kept.
StepEvents TpuPlaneStepEvents(const XSpaceModel& space, const schema::StatIds& ids, const EventGroups& groups,
                              size_t plane_index, uint32_t core_id);

// The core id xprof gives a TPU plane: TensorCores their plane id,
// SparseCores kSparseCoreIndexStart + their plane id.
uint32_t TpuCoreId(const XSpaceModel& space, const XPlaneModel& plane);

// Keeps the steps both have (xprof IntersectCombineStepEvents), merging their
// markers and events.
void IntersectCombineStepEvents(StepEvents src, StepEvents& dst, bool dst_is_empty_set);


}  // namespace tbprof
