// The host side of the "Launch Stats" derived line: per GPU and step, the
// kernel launches the host made (xprof's DeriveEventsFromHostTrace reading).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "convert/grouping/group_events.h"
#include "convert/model/schema.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

// One GPU's kernel launches of one step.
struct LaunchGroup {
  int64_t begin_ps = INT64_MAX, end_ps = INT64_MIN;
  int64_t count = 0;
  uint64_t max_ps = 0;
  double sum_ps = 0;
};
// Per GPU plane (file order among the GPU planes), the launches by group.
using LaunchesPerGpu = std::vector<std::map<int32_t, LaunchGroup>>;

// A kernel launch is a host event with `device_id` and `correlation_id`
// (CUDA API calls, named "cu…", left out as xprof does; the allocator's
// events too, unread), counted in its step group.
LaunchesPerGpu CollectLaunches(const XSpaceModel& space, const schema::StatIds& names, const EventGroups& groups,
                               size_t num_gpus);

}  // namespace tbprof
