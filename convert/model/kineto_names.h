// Names the Kineto importer writes into the model and the analyses of
// PyTorch traces read: each event's `cat` as written (a metadata stat), and
// the kernel figures torch-tb-profiler's GPU summary reads, under Kineto's
// own names.
#pragma once

#include <string_view>

#include "convert/model/xspace_model.h"

namespace tbprof::schema {

inline constexpr std::string_view kKinetoCategory = "kineto_category";
inline constexpr std::string_view kKinetoBlocksPerSm = "blocks per SM";
inline constexpr std::string_view kKinetoOccupancy = "est. achieved occupancy %";
// An op's id its launches and device ops carry, and the dtypes of its inputs.
inline constexpr std::string_view kKinetoExternalId = "External id";
inline constexpr std::string_view kKinetoInputType = "Input type";

// Whether the model was imported from a PyTorch (Kineto) trace: the importer
// writes each event's category, which no XSpace holds.
inline bool IsKinetoTrace(const XSpaceModel& space) { return space.Find(kKinetoCategory) != kNoStr; }

}  // namespace tbprof::schema
