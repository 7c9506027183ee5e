// The step grouping as xprof's trace viewer shows it on a file's events, which
// xprof's grouping writes into them before converting: `group_id` on every
// grouped event; on a named root the group's name as `step_name`, which the
// viewer shows as the event's name; `is_eager` (0 or 1) on TF ops ("name:Type"
// events) and on kernels with a correlation_id. Only for a grouping computed
// here: a file that comes grouped shows its own stats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "convert/grouping/group_events.h"
#include "convert/grouping/group_runs.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

struct FileGroupArgs {
  bool present = false;
  std::vector<GroupRuns> group;                    // per file plane
  std::vector<std::vector<uint32_t>> named_roots;  // per file plane, sorted
  std::vector<GroupRuns> eager;                    // per file plane: 1 eager, else 0
  std::map<int32_t, std::string> names;            // by group

  // The step name of a named root, or null.
  const std::string* StepName(size_t plane, uint32_t event) const;
  size_t MemoryBytes() const;
};

// What the trace shows of `groups` (empty unless they were computed here).
FileGroupArgs MakeFileGroupArgs(const XSpaceModel& space, const EventGroups& groups);

}  // namespace tbprof
