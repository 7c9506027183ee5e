// Which planes step grouping takes, and the groups a file already carries
// (group_id and step_name stats: xprof then leaves them as they are).
#pragma once

#include <string_view>

#include "convert/grouping/event_groups.h"
#include "convert/model/schema.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

// The TPU planes that group by their steps: TensorCores and SparseCores.
inline bool IsTpuPlaneName(std::string_view name) {
  return schema::IsTpuCorePlane(name) || schema::IsSparseCorePlane(name);
}

inline bool IsTpuStepLineName(std::string_view name) {
  return name == schema::kStepLine || name == schema::kSparseCoreStepLine;
}

// xprof's grouping takes every plane of the space; a TPU-prefixed plane that
// is neither a TensorCore nor a SparseCore is skipped (it has no core id).
inline bool IsGroupedPlaneName(std::string_view name) {
  return !name.starts_with(schema::kTpuPlanePrefix) || IsTpuPlaneName(name);
}

// True if any plane declares a `group_id` stat (xprof then leaves the
// file's groups as they are).
bool IsXSpaceGrouped(const XSpaceModel& space);

// The groups the file's own stats give every grouped plane's events, and the
// TPU step lines' steps one by one.
EventGroups ReadExistingGroups(const XSpaceModel& space);

}  // namespace tbprof
