// The part of a profile that began inside a time window: every plane, line,
// metadata and string of the source, with only the events whose begin falls
// in [begin_ps, end_ps). Analyses run on it unchanged, so a figure "for one
// step" is the whole-profile figure's own code applied to that step's events.
#pragma once

#include <cstdint>

#include "convert/base/status.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

// Fails (InvalidArgument) when the profile has aggregated events: they carry
// a count instead of a time, so no window can say which of them it holds.
StatusOr<XSpaceModel> EventsInWindow(const XSpaceModel& space, int64_t begin_ps, int64_t end_ps);

}  // namespace tbprof
