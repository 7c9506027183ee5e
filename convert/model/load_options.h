// What a caller asks of any importer that fills XSpaceModel (an xplane
// file, a PyTorch trace): size limits, page release and which event stats to
// keep. It lives with the model so importers stay siblings that share it.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace tbprof {

// Files past this size are rejected with a clear error rather than decoded
// (event indices are 32-bit, and libprotobuf itself stops at 2 GiB).
inline constexpr uint64_t kMaxXSpaceBytes = uint64_t{4} << 30;
// A PyTorch trace's JSON may be larger: its model holds a fraction of the
// text. At 16 GiB every index stays within 32 bits (an event takes at least
// 30 bytes of JSON and a stat 6: 0.6G events, 2.9G stats at most).
inline constexpr uint64_t kMaxKinetoTraceBytes = uint64_t{16} << 30;

struct LoadOptions {
  // Return already-decoded pages of the mapped file to the kernel while
  // decoding, so the peak footprint is the model plus a small window.
  bool release_decoded_pages = true;
  // The largest file (inflated, when gzip'ed) the importer reads; 0: its
  // own bound (kMaxXSpaceBytes for an xplane, kMaxKinetoTraceBytes for a trace).
  uint64_t max_bytes = 0;
  // When set, events keep only the stats it accepts, asked once for each plane
  // (by name) and stat name; plane and metadata stats are always kept. An
  // analysis that reads a known set of event stats loads with it and skips
  // storing and interning the rest (e.g. a memory profile's dozen stats per
  // allocation when computing op statistics). Every stat is still decoded.
  using KeepEventStat = std::function<bool(std::string_view plane_name, std::string_view stat_name)>;
  KeepEventStat keep_event_stat;
  // Narrows keep_event_stat by event name, for a stat that many events carry
  // but only some kinds of event are read for: a stat that keep_event_stat
  // keeps and `narrowed_event_stat` accepts is stored only on the events whose
  // metadata name `keeps_narrowed_stats` accepts (asked once per plane and
  // event name). Both or neither are set.
  KeepEventStat narrowed_event_stat;
  using KeepOnEvent = std::function<bool(std::string_view plane_name, std::string_view event_name)>;
  KeepOnEvent keeps_narrowed_stats;
  // Files of at least this size are decoded by two threads (an xplane's
  // planes, a trace's events split between them); the model is the same either way.
  uint64_t parallel_min_bytes = uint64_t{32} << 20;
};

}  // namespace tbprof
