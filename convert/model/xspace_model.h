// Compact in-memory model of one XSpace (one host's .xplane.pb).
//
// Design: strings are interned once per space (StrId), events/stats live in flat
// per-plane vectors, and every event/stat reference a name by StrId. An event is
// 24 bytes and a stat 16 bytes, so 10^7 events with three stats each fit in
// ~720 MB. Stat metadata ids are resolved to stat *names* at load time; both
// str_value and ref_value become StatKind::kStr.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/base/string_table.h"

namespace tbprof {

enum class StatKind : uint8_t { kNone = 0, kInt64, kUint64, kDouble, kStr, kBytes };

struct Stat {
  StrId name = kNoStr;  // the stat's name (from XStatMetadata)
  StatKind kind = StatKind::kNone;
  union {
    int64_t i64;
    uint64_t u64;
    double f64;
    StrId str;      // kStr: interned string
    uint32_t blob;  // kBytes: index into XSpaceModel::blobs
  };
  Stat() : u64(0) {}

  // IntOrUintValue semantics of xplane_visitor: works for both integer kinds.
  int64_t IntValue() const {
    if (kind == StatKind::kInt64) return i64;
    if (kind == StatKind::kUint64) return static_cast<int64_t>(u64);
    if (kind == StatKind::kDouble) return static_cast<int64_t>(f64);
    return 0;
  }
  uint64_t UintValue() const { return static_cast<uint64_t>(IntValue()); }
  double DoubleValue() const {
    if (kind == StatKind::kDouble) return f64;
    if (kind == StatKind::kUint64) return static_cast<double>(u64);
    if (kind == StatKind::kInt64) return static_cast<double>(i64);
    return 0.0;
  }
  bool IsInteger() const { return kind == StatKind::kInt64 || kind == StatKind::kUint64; }
};
static_assert(sizeof(Stat) == 16);

struct EventMetadata {
  int64_t id = 0;
  StrId name = kNoStr;
  StrId display_name = kNoStr;
  uint32_t metadata_blob = kNoBlob;  // XEventMetadata.metadata bytes, if any
  uint32_t first_stat = 0;           // into XPlaneModel::metadata_stats
  uint32_t num_stats = 0;
  std::vector<int64_t> child_ids;
};

// One XEvent. num_stats is implied by the next event's first_stat, keeping this at 24 bytes.
struct Event {
  int64_t begin_ps = 0;  // line.timestamp_ns * 1000 + offset_ps (0 for aggregated events)
  int64_t duration_ps = 0;
  uint32_t metadata = 0;    // index into XPlaneModel::event_metadata
  uint32_t first_stat = 0;  // into XPlaneModel::event_stats
  int64_t end_ps() const { return begin_ps + duration_ps; }
};
static_assert(sizeof(Event) == 24);

// Events in time order, each before the events it encloses: begin ascending,
// then longer first. xla orders events so (its Timespan order) wherever it
// walks a line or a plane in time.
inline bool OuterFirst(const Event& a, const Event& b) {
  return a.begin_ps != b.begin_ps ? a.begin_ps < b.begin_ps : a.duration_ps > b.duration_ps;
}

struct LineModel {
  int64_t id = 0;
  int64_t display_id = 0;
  StrId name = kNoStr;
  StrId display_name = kNoStr;
  int64_t timestamp_ns = 0;
  int64_t duration_ps = 0;
  uint32_t first_event = 0;  // into XPlaneModel::events
  uint32_t num_events = 0;
};

struct XPlaneModel {
  int64_t id = 0;
  StrId name = kNoStr;
  std::vector<LineModel> lines;
  std::vector<Event> events;  // all lines' events, line by line, in file order
  std::vector<Stat> event_stats;
  std::vector<EventMetadata> event_metadata;  // index 0 is a nameless placeholder
  std::vector<Stat> metadata_stats;
  std::vector<Stat> plane_stats;
  std::vector<std::pair<StrId, int64_t>> stat_metadata;  // (name, id), for inspect/round trip
  // Aggregated events (oneof num_occurrences): event index -> count. Rare (TPU).
  std::vector<std::pair<uint32_t, int64_t>> occurrences;

  // Stats of event `e` (its own, not its metadata's).
  std::pair<const Stat*, const Stat*> StatsOf(uint32_t e) const {
    uint32_t end = e + 1 < events.size() ? events[e + 1].first_stat
                                         : static_cast<uint32_t>(event_stats.size());
    return {event_stats.data() + events[e].first_stat, event_stats.data() + end};
  }
  std::pair<const Stat*, const Stat*> MetadataStatsOf(uint32_t md) const {
    const EventMetadata& m = event_metadata[md];
    return {metadata_stats.data() + m.first_stat, metadata_stats.data() + m.first_stat + m.num_stats};
  }
  // The event's own stat named `name`; nullptr if absent. Inline: analyses call it per event.
  const Stat* FindStat(uint32_t e, StrId name) const {
    if (name == kNoStr) return nullptr;
    auto [b, end] = StatsOf(e);
    for (const Stat* s = b; s != end; ++s) {
      if (s->name == name) return s;
    }
    return nullptr;
  }
  // Own stat first, then the event metadata's (GetEventOrMetadataStat).
  const Stat* FindEventOrMetadataStat(uint32_t e, StrId name) const;
  const Stat* FindPlaneStat(StrId name) const;
  // num_occurrences of an aggregated event, or 0 if the event carries an offset.
  int64_t NumOccurrences(uint32_t e) const;
  StrId EventName(uint32_t e) const { return event_metadata[events[e].metadata].name; }
};

struct XSpaceModel {
  StringTable strings;
  std::vector<std::string> blobs;  // bytes_value and XEventMetadata.metadata payloads
  std::vector<XPlaneModel> planes;
  std::vector<std::string> errors, warnings, hostnames;

  std::string_view Str(StrId id) const { return strings.View(id); }
  std::string_view Blob(uint32_t id) const {
    return id == kNoBlob ? std::string_view() : std::string_view(blobs[id]);
  }
  // Looks up an already-interned string; kNoStr when no stat/event uses it.
  StrId Find(std::string_view s) const { return strings.Find(s); }
  const XPlaneModel* FindPlane(std::string_view name) const;
  std::vector<const XPlaneModel*> FindPlanesWithPrefix(std::string_view prefix) const;
  // Renders a stat value as text (str, number, or "<N bytes>").
  std::string StatToString(const Stat& s) const;
  size_t NumEvents() const;
  size_t MemoryBytes() const;  // approximate heap bytes held by the model
};

}  // namespace tbprof
