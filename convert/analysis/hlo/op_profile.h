// op_profile: xprof's op_profile.Profile as JSON (protobuf's JSON mapping with
// every primitive field printed), built from the HLO op table. One request
// gives one grouping, with and without the IDLE op, plus `deviceType`:
//   by program (the default): program → category → deduplication group → op;
//   by category:              category → deduplication group → op;
//   by provenance:            program → framework-op path → category → group → op.
// IDLE is a child of the root. An op that contains other ops (its time exceeds
// its self time) adds its self time to the root and its program only; the ops
// it contains stand for it below that. Children are sorted by
// time (the fused instructions of a fusion by FLOPs) and cut to the top 100
// below the grouping levels; `numChildren` keeps the count before the cut. A
// node's `flops` is its FLOP utilisation, capped at 1, times its share of the
// total time (`uncappedFlops` the same without the cap), `bandwidthUtils`
// [HBM, on-chip read, on-chip write] utilisations, capped at 1,
// `rawBytesAccessedArray` the bytes behind them; arrays are left empty
// where the op's bytes (or, for utilisations, the device's HBM peak) are
// unknown. Without a memory breakdown (GPU) all bytes count as HBM. Fused
// instructions of a fusion come from its HLO computation with the cost
// model's FLOPs, nested fusions opened in turn.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "convert/analysis/hlo/op_profile_tree.h"
#include "convert/analysis/hlo/xspace_to_hlo_stats.h"

namespace tbprof {

inline constexpr int kOpProfileChildrenPerNode = 100;

// The request's `group_by` ("category", "provenance"; anything else, or none,
// is by program, as the xprof frontend's default).
OpProfileGrouping OpProfileGroupingFromParam(std::string_view group_by);

std::string ConvertHloOpDbToOpProfileJson(const HloOpDb& db, OpProfileGrouping group_by = OpProfileGrouping::kByProgram,
                                          int children_per_node = kOpProfileChildrenPerNode);

}  // namespace tbprof
