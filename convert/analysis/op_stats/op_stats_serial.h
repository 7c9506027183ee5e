// OpStats as bytes and back: the payload of a profile file's summary on disk
// (convert/tools/op_stats_summary), so a host's OpStats computed once (by
// `tbprof summarize`, possibly on another machine) answers every page that
// starts from it without the profile being read again. Every field of OpStats
// and of its parts is written; doubles as their bits, so pages computed from
// the bytes are byte-identical to pages computed from the profile.
//
// The bytes are never trusted: every length and count is checked against
// what is left, so a cut-short or garbled payload is an error, never a crash
// nor an allocation it did not pay for.
#pragma once

#include <string>
#include <string_view>

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/base/status.h"

namespace tbprof {

// Changes whenever the layout below changes (a field added to OpStats or to
// one of its parts): a summary of another layout version is ignored.
inline constexpr uint32_t kOpStatsSerialVersion = 3;  // 2: the GPU's name (its datasheet); 3: the op tables and kernels behind their lengths

std::string SerializeOpStats(const OpStats& stats);
// DataLoss when `bytes` is not exactly one serialized OpStats.
StatusOr<OpStats> DeserializeOpStats(std::string_view bytes);

}  // namespace tbprof
