// A rank's trace_analysis sections (rank_sections.h) as bytes and back: the
// second payload of a profile file's summary (convert/tools/op_stats_summary),
// so trace_analysis answers a host, or ALL_HOSTS of a pod, without loading a
// model. Every figure the answer writes is kept, doubles as their bits, so the
// answer from the bytes is byte-identical to the answer from the model; the
// rank number and host are not (AssignRank sets them for the request).
//
// The bytes are never trusted (convert/base/varint_codec.h): a count larger
// than what is left, an index past its table, an enum out of range or bytes
// left over make a DataLoss, never a crash nor an allocation past the payload.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "convert/analysis/trace_analysis/rank_sections.h"
#include "convert/base/status.h"

namespace tbprof::trace_analysis {

// Changes whenever the layout below changes (a field added to a section's
// rows): a summary of another layout's sections has its sections ignored.
inline constexpr uint32_t kRankSectionsSerialVersion = 1;

std::string SerializeRankSections(const RankSections& sections);
// DataLoss when `bytes` are not exactly one rank's serialized sections.
StatusOr<RankSections> DeserializeRankSections(std::string_view bytes);

}  // namespace tbprof::trace_analysis
