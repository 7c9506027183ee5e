// Step events -> step table (xprof step_events_to_steps_db.cc): each step's
// span from its markers, and the time of each event type inside it with
// overlaps resolved by type priority.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/analysis/op_stats/xplane_to_step_events.h"

namespace tbprof {

// `has_device`: steps need a device marker and device compute to count
// (xprof drops steps the device took no part in). Adds the device compute of
// the kept steps to the 16/32-bit precision totals.
std::vector<StepInfo> ConvertStepEventsToStepDb(const StepEvents& step_events, bool has_device,
                                                const std::map<int32_t, std::string>& group_names,
                                                uint64_t& compute_16bit_ps, uint64_t& compute_32bit_ps);

// TPU steps (xprof StepEventsToPerCoreStepInfo): in step-number order, each
// core's part of the step with its own step time and its ops' self time by
// HLO category, the rest IDLE; the cores' all-reduces.
std::vector<PerCoreStepInfo> ConvertTpuStepEventsToStepDb(const StepEvents& step_events);

// ToNonOverlappedEvents: at every instant the highest-priority type wins.
std::vector<TypedSpan> ToNonOverlapped(const std::vector<TypedSpan>& events);

}  // namespace tbprof
