// op_profile: xprof's op_profile.Profile as JSON (protobuf's JSON mapping with
// every primitive field printed), built from the HLO op table: `byCategory`
// (category → deduplication group → op) and `byProgram` (program → category →
// group → op), each also without the IDLE op (`…ExcludeIdle`), plus
// `deviceType`. Children are sorted by time (fused instructions by FLOPs) and
// cut to the top 100 below the grouping levels; `numChildren` keeps the count
// before the cut. A node's `flops` is its FLOP utilisation times its share of
// the total time, `bandwidthUtils` [HBM, on-chip read, on-chip write]
// utilisations, capped at 1; both are left out (empty array, 0) where the
// device peak or the op's bytes are unknown. Without a memory breakdown (GPU)
// all bytes count as HBM. Fused instructions of a fusion come from its HLO
// computation with the cost model's FLOPs.
#pragma once

#include <string>

#include "convert/analysis/xspace_to_hlo_stats.h"

namespace tbprof {

inline constexpr int kOpProfileChildrenPerNode = 100;

std::string ConvertHloOpDbToOpProfileJson(const HloOpDb& db, int children_per_node = kOpProfileChildrenPerNode);

}  // namespace tbprof
