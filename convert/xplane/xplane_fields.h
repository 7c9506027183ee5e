// Field numbers of TSL's xplane.proto (package tensorflow.profiler), which
// the zero-copy decoder reads without generated code. They are part of the
// wire format and never change; proto/xplane.proto declares the same numbers
// for libprotobuf, and the decoder's tests compare the two readers.
#pragma once

#include <cstdint>

namespace tbprof::xplane_field {

// XSpace
inline constexpr uint32_t kSpacePlanes = 1;     // repeated XPlane
inline constexpr uint32_t kSpaceErrors = 2;     // repeated string
inline constexpr uint32_t kSpaceWarnings = 3;   // repeated string
inline constexpr uint32_t kSpaceHostnames = 4;  // repeated string

// XPlane
inline constexpr uint32_t kPlaneId = 1;
inline constexpr uint32_t kPlaneName = 2;
inline constexpr uint32_t kPlaneLines = 3;          // repeated XLine
inline constexpr uint32_t kPlaneEventMetadata = 4;  // map<int64, XEventMetadata>
inline constexpr uint32_t kPlaneStatMetadata = 5;   // map<int64, XStatMetadata>
inline constexpr uint32_t kPlaneStats = 6;          // repeated XStat

// A map entry on the wire: key = 1, value = 2.
inline constexpr uint32_t kMapKey = 1;
inline constexpr uint32_t kMapValue = 2;

// XLine
inline constexpr uint32_t kLineId = 1;
inline constexpr uint32_t kLineName = 2;
inline constexpr uint32_t kLineTimestampNs = 3;
inline constexpr uint32_t kLineEvents = 4;  // repeated XEvent
inline constexpr uint32_t kLineDurationPs = 9;
inline constexpr uint32_t kLineDisplayId = 10;
inline constexpr uint32_t kLineDisplayName = 11;

// XEvent
inline constexpr uint32_t kEventMetadataId = 1;
inline constexpr uint32_t kEventOffsetPs = 2;  // oneof data
inline constexpr uint32_t kEventDurationPs = 3;
inline constexpr uint32_t kEventStats = 4;  // repeated XStat
inline constexpr uint32_t kEventNumOccurrences = 5;  // oneof data

// XStat
inline constexpr uint32_t kStatMetadataId = 1;
inline constexpr uint32_t kStatDouble = 2;  // oneof value, fixed64
inline constexpr uint32_t kStatUint64 = 3;
inline constexpr uint32_t kStatInt64 = 4;
inline constexpr uint32_t kStatStr = 5;
inline constexpr uint32_t kStatBytes = 6;
inline constexpr uint32_t kStatRef = 7;  // id of the stat metadata whose name is the value

// XEventMetadata
inline constexpr uint32_t kEventMetaId = 1;
inline constexpr uint32_t kEventMetaName = 2;
inline constexpr uint32_t kEventMetaMetadata = 3;  // bytes
inline constexpr uint32_t kEventMetaDisplayName = 4;
inline constexpr uint32_t kEventMetaStats = 5;    // repeated XStat
inline constexpr uint32_t kEventMetaChildId = 6;  // repeated int64

// XStatMetadata
inline constexpr uint32_t kStatMetaId = 1;
inline constexpr uint32_t kStatMetaName = 2;
inline constexpr uint32_t kStatMetaDescription = 3;

}  // namespace tbprof::xplane_field
