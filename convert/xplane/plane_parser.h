// Decoding of one XPlane (or a range of its lines) into the model, and the
// pass that counts a plane's events and stats before it is decoded, so the
// model's vectors are sized once. Internal to convert/xplane: the reader
// (xspace_reader.cc) drives it, on one thread or two.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "convert/base/cancellation.h"
#include "convert/base/memory_grant.h"
#include "convert/xplane/wire_decoder.h"
#include "convert/xplane/xplane_fields.h"
#include "convert/model/model_writer.h"
#include "convert/model/xspace_model.h"
#include "convert/model/load_options.h"

namespace tbprof::xplane_detail {

// The field numbers by name (kPlaneLines, kStatRef, ...).
using namespace xplane_field;  // NOLINT(google-build-using-namespace)

// Maps metadata ids to dense indices; most writers number them 1..N.
class IdMap {
 public:
  void Add(int64_t id, uint32_t index) {
    if (id >= 0 && id < kDenseLimit) {
      if (static_cast<size_t>(id) >= dense_.size()) dense_.resize(static_cast<size_t>(id) + 1, kAbsent);
      dense_[static_cast<size_t>(id)] = index;
    } else {
      sparse_[id] = index;
    }
  }
  uint32_t Get(int64_t id) const {
    if (id >= 0 && static_cast<uint64_t>(id) < dense_.size()) return dense_[static_cast<size_t>(id)];
    auto it = sparse_.find(id);
    return it == sparse_.end() ? kAbsent : it->second;
  }
  static constexpr uint32_t kAbsent = 0xffffffffu;

 private:
  static constexpr int64_t kDenseLimit = 1 << 22;
  std::vector<uint32_t> dense_;
  std::unordered_map<int64_t, uint32_t> sparse_;
};

// Counts a plane's events and event stats without decoding them, so the
// model's vectors are sized once: growing them by doubling would copy
// gigabytes and briefly hold both copies. Malformed input just stops the count
// (the decoding pass reports the error).
struct PlaneCounts {
  uint64_t events = 0, event_stats = 0;
};


// `kept(event_metadata_id, stat_begin, stat_end)` says whether the model will
// store that event stat (the id is -1 when not known before the stats).
// Counts of a plane's later lines, handed from the thread decoding them to
// the one decoding its first lines, which sizes the plane's vectors for all
// of them (the later lines' events are appended to it after both are done).
struct TailCounts {
  std::promise<PlaneCounts> promise;
  std::shared_future<PlaneCounts> counts = promise.get_future().share();
  std::atomic<bool> published{false};
  // Exactly once; the first call wins (the decoder may give up before counting).
  void Publish(PlaneCounts c) {
    if (!published.exchange(true)) promise.set_value(c);
  }
};

// Which of a plane's lines (by position among its XLine fields) one decoder
// takes; a large plane's lines can be shared out between two threads.
struct LineRange {
  uint32_t begin = 0, end = UINT32_MAX;
  TailCounts* tail = nullptr;  // set when the plane's lines are shared out
  bool Has(uint32_t i) const { return i >= begin && i < end; }
};

template <typename KeptStat>
PlaneCounts CountPlane(const uint8_t* p, const uint8_t* end, LineRange lines, bool read_event_metadata_ids,
                       KeptStat&& kept) {
  PlaneCounts c;
  uint32_t line = 0;
  SkimFields(p, end, [&](uint32_t field, const uint8_t* lb, const uint8_t* le) {
    if (field != kPlaneLines || !lines.Has(line++)) return;
    SkimFields(lb, le, [&](uint32_t lf, const uint8_t* eb, const uint8_t* ee) {
      if (lf != kLineEvents) return;
      ++c.events;
      // Writers put the metadata id first; where it is not, it reads as unknown.
      // Read only when some stat depends on it: this pass sees every event.
      int64_t metadata_id = -1;
      const uint8_t* q = eb;
      uint64_t tag, id;
      if (read_event_metadata_ids && SkimVarint(q, ee, tag) && tag == (uint64_t{kEventMetadataId} << 3) &&
          SkimVarint(q, ee, id)) {
        metadata_id = static_cast<int64_t>(id);
      }
      SkimFields(eb, ee, [&](uint32_t ef, const uint8_t* sb, const uint8_t* se) {
        c.event_stats += ef == kEventStats && kept(metadata_id, sb, se);
      });
    });
  });
  return c;
}

class SpaceParser {
 public:
  SpaceParser(Decoder& d, XSpaceModel& m, const LoadOptions& options)
      : d_(d),
        m_(m),
        keep_event_stat_(options.keep_event_stat),
        narrowed_event_stat_(options.narrowed_event_stat),
        keeps_narrowed_stats_(options.keeps_narrowed_stats) {}

  // Reads the top level of an XSpace: the space's strings go into the model
  // and each plane's bytes into `planes`, in file order, to be decoded later.
  bool OutlineSpace(const uint8_t* p, const uint8_t* end, std::vector<std::string_view>& planes) {
    uint32_t field, wire;
    while (d_.ReadTag(p, end, field, wire)) {
      const uint8_t* at = p;
      if (field >= kSpacePlanes && field <= kSpaceHostnames) {
        if (!d_.Expect(at, field, wire, kLen, "XSpace")) return false;
        std::string_view s;
        if (!d_.ReadLen(p, end, s)) return false;
        if (field != kSpacePlanes && !d_.ExpectUtf8(at, s, "an XSpace error/warning/hostname string")) return false;
        if (field == kSpacePlanes) {
          planes.push_back(s);
        } else {
          auto& list = field == kSpaceErrors ? m_.errors : field == kSpaceWarnings ? m_.warnings : m_.hostnames;
          list.emplace_back(s);
        }
      } else if (!d_.Skip(p, end, wire)) {
        return false;
      }
    }
    return !d_.failed();
  }

  // Decodes one XPlane (the bytes of XSpace field 1), or only some of its lines.
  bool ParsePlaneBytes(std::string_view plane, LineRange lines = {}) {
    return ParsePlane(U8(plane), U8(plane) + plane.size(), lines);
  }

 private:
  struct StatMeta {
    StrId name = kNoStr;
    bool keep_in_events = true;  // false: LoadOptions::keep_event_stat leaves it out
    bool narrowed = false;       // kept only on events that keep narrowed stats
    StrId last_str = kNoStr;     // the last str_value interned for this stat
  };

  // Whether an event stat with this stat metadata index is stored (a stat
  // naming no metadata is left out of a projection).
  bool KeptInEvents(uint32_t meta_index, bool event_keeps_narrowed) const {
    if (!keep_event_stat_) return true;
    if (meta_index == IdMap::kAbsent) return false;
    const StatMeta& meta = stat_meta_[meta_index];
    return meta.keep_in_events && (!meta.narrowed || event_keeps_narrowed);
  }

  // Whether the event with this metadata id keeps narrowed stats; an id the
  // plane's metadata lacks (or -1, not known) keeps them.
  bool EventKeepsNarrowed(int64_t metadata_id) const {
    if (event_keeps_narrowed_.empty() || metadata_id < 0) return true;
    uint32_t idx = event_ids_.Get(metadata_id);
    return idx >= event_keeps_narrowed_.size() || event_keeps_narrowed_[idx] != 0;
  }

  // Most string stats repeat their previous value (allocator names, data
  // types, op names of a run of kernels), so one compare often saves a hash.
  StrId InternStatString(uint32_t meta_index, std::string_view s) {
    if (meta_index == IdMap::kAbsent) return m_.strings.Intern(s);
    StatMeta& meta = stat_meta_[meta_index];
    if (meta.last_str != kNoStr && m_.strings.View(meta.last_str) == s) return meta.last_str;
    meta.last_str = m_.strings.Intern(s);
    return meta.last_str;
  }

  // Stat values: the id is resolved against the plane's stat metadata (which may
  // come later on the wire, so planes are decoded metadata-first). Every stat is
  // decoded, and so validated; `keep` is false for an event stat that
  // LoadOptions::keep_event_stat leaves out, whose strings are then not interned.
  bool ParseStat(const uint8_t* p, const uint8_t* end, Stat& out, bool is_event_stat, bool& keep) {
    uint32_t field, wire;
    int64_t metadata_id = 0;
    std::string_view str_value;
    bool has_str_value = false;
    while (d_.ReadTag(p, end, field, wire)) {
      const uint8_t* at = p;
      uint64_t v;
      std::string_view s;
      switch (field) {
        case kStatMetadataId:
          if (!d_.Expect(at, field, wire, kVarint, "XStat") || !d_.ReadVarint(p, end, v)) return false;
          metadata_id = static_cast<int64_t>(v);
          break;
        case kStatDouble:
          if (!d_.Expect(at, field, wire, kFixed64, "XStat") || !d_.ReadFixed64(p, end, v)) return false;
          out.kind = StatKind::kDouble;
          std::memcpy(&out.f64, &v, 8);
          break;
        case kStatUint64:
        case kStatInt64:
        case kStatRef:
          if (!d_.Expect(at, field, wire, kVarint, "XStat") || !d_.ReadVarint(p, end, v)) return false;
          if (field == kStatRef) {
            uint32_t idx = stat_ids_.Get(static_cast<int64_t>(v));
            out.kind = StatKind::kStr;
            out.str = idx == IdMap::kAbsent ? kNoStr : stat_meta_[idx].name;
            has_str_value = false;  // a ref_value after a str_value wins (oneof)
          } else {
            out.kind = field == kStatUint64 ? StatKind::kUint64 : StatKind::kInt64;
            out.u64 = v;
          }
          break;
        case kStatStr:
          if (!d_.Expect(at, field, wire, kLen, "XStat") || !d_.ReadLen(p, end, s)) return false;
          out.kind = StatKind::kStr;
          str_value = s;
          has_str_value = true;
          break;
        case kStatBytes:
          if (!d_.Expect(at, field, wire, kLen, "XStat") || !d_.ReadLen(p, end, s)) return false;
          out.kind = StatKind::kBytes;
          str_value = s;
          has_str_value = false;
          break;
        default:
          if (!d_.Skip(p, end, wire)) return false;
      }
    }
    if (d_.failed()) return false;
    uint32_t idx = stat_ids_.Get(metadata_id);
    keep = !is_event_stat || KeptInEvents(idx, event_keeps_narrowed_now_);
    if (!keep) return true;
    out.name = idx == IdMap::kAbsent ? kNoStr : stat_meta_[idx].name;
    if (out.kind == StatKind::kStr && has_str_value) {
      out.str = InternStatString(idx, str_value);
    } else if (out.kind == StatKind::kBytes) {
      out.blob = static_cast<uint32_t>(m_.blobs.size());
      m_.blobs.emplace_back(str_value);
    }
    return true;
  }

  // Inlined by force here and in ParseEvent: run once per stat and event,
  // left as calls they cost 7 % more instructions over a whole load.
  enum class StatOwner { kEvent, kEventMetadata, kPlane };
  template <StatOwner kOwner>
  [[gnu::always_inline]] bool ParseStats(std::string_view s) {
    Stat st;
    bool keep = true;
    if (!ParseStat(U8(s), U8(s) + s.size(), st, kOwner == StatOwner::kEvent, keep)) return false;
    if (!keep) return true;
    if constexpr (kOwner == StatOwner::kEvent) {
      w_.AddEventStat(st);
    } else if constexpr (kOwner == StatOwner::kEventMetadata) {
      w_.AddMetadataStat(st);
    } else {
      w_.AddPlaneStat(st);
    }
    return true;
  }

  bool ParseStatMetadataEntry(const uint8_t* p, const uint8_t* end) {
    uint32_t field, wire;
    int64_t key = 0, id = 0;
    bool has_id = false;
    std::string_view name;
    while (d_.ReadTag(p, end, field, wire)) {
      const uint8_t* at = p;
      uint64_t v;
      std::string_view s;
      if (field == kMapKey) {  // map key
        if (!d_.Expect(at, field, wire, kVarint, "stat_metadata entry") || !d_.ReadVarint(p, end, v)) return false;
        key = static_cast<int64_t>(v);
      } else if (field == kMapValue) {  // XStatMetadata
        if (!d_.Expect(at, field, wire, kLen, "stat_metadata entry") || !d_.ReadLen(p, end, s)) return false;
        const uint8_t* q = U8(s);
        const uint8_t* qe = q + s.size();
        uint32_t f2, w2;
        while (d_.ReadTag(q, qe, f2, w2)) {
          const uint8_t* at2 = q;
          std::string_view s2;
          if (f2 == kStatMetaId) {
            if (!d_.Expect(at2, f2, w2, kVarint, "XStatMetadata") || !d_.ReadVarint(q, qe, v)) return false;
            id = static_cast<int64_t>(v);
            has_id = true;
          } else if (f2 == kStatMetaName) {
            if (!d_.Expect(at2, f2, w2, kLen, "XStatMetadata") || !d_.ReadLen(q, qe, name)) return false;
            if (!d_.ExpectUtf8(at2, name, "an XStatMetadata name")) return false;
          } else if (!d_.Skip(q, qe, w2)) {
            return false;
          }
        }
        if (d_.failed()) return false;
      } else if (!d_.Skip(p, end, wire)) {
        return false;
      }
    }
    if (d_.failed()) return false;
    (void)has_id;
    StrId n = m_.strings.Intern(name);
    stat_ids_.Add(key, static_cast<uint32_t>(stat_meta_.size()));
    stat_meta_.push_back({n, true, kNoStr});  // keep_in_events is settled once the plane's name is known
    w_.AddStatMetadata(n, has_id ? id : key);
    return true;
  }

  bool ParseEventMetadataEntry(const uint8_t* p, const uint8_t* end) {
    uint32_t field, wire;
    int64_t key = 0;
    EventMetadata md;
    w_.BeginEventMetadata();
    while (d_.ReadTag(p, end, field, wire)) {
      const uint8_t* at = p;
      uint64_t v;
      std::string_view s;
      if (field == kMapKey) {
        if (!d_.Expect(at, field, wire, kVarint, "event_metadata entry") || !d_.ReadVarint(p, end, v)) return false;
        key = static_cast<int64_t>(v);
      } else if (field == kMapValue) {
        if (!d_.Expect(at, field, wire, kLen, "event_metadata entry") || !d_.ReadLen(p, end, s)) return false;
        if (!ParseEventMetadata(U8(s), U8(s) + s.size(), md)) return false;
      } else if (!d_.Skip(p, end, wire)) {
        return false;
      }
    }
    if (d_.failed()) return false;
    event_ids_.Add(key, w_.EndEventMetadata(std::move(md)));
    return true;
  }

  bool ParseEventMetadata(const uint8_t* p, const uint8_t* end, EventMetadata& md) {
    uint32_t field, wire;
    while (d_.ReadTag(p, end, field, wire)) {
      const uint8_t* at = p;
      uint64_t v;
      std::string_view s;
      switch (field) {
        case kEventMetaId:
          if (!d_.Expect(at, field, wire, kVarint, "XEventMetadata") || !d_.ReadVarint(p, end, v)) return false;
          md.id = static_cast<int64_t>(v);
          break;
        case kEventMetaName:
        case kEventMetaDisplayName:
          if (!d_.Expect(at, field, wire, kLen, "XEventMetadata") || !d_.ReadLen(p, end, s)) return false;
          if (!d_.ExpectUtf8(at, s, "an XEventMetadata name")) return false;
          (field == kEventMetaName ? md.name : md.display_name) = m_.strings.Intern(s);
          break;
        case kEventMetaMetadata:
          if (!d_.Expect(at, field, wire, kLen, "XEventMetadata") || !d_.ReadLen(p, end, s)) return false;
          md.metadata_blob = static_cast<uint32_t>(m_.blobs.size());
          m_.blobs.emplace_back(s);
          break;
        case kEventMetaStats:
          if (!d_.Expect(at, field, wire, kLen, "XEventMetadata") || !d_.ReadLen(p, end, s)) return false;
          if (!ParseStats<StatOwner::kEventMetadata>(s)) return false;
          break;
        case kEventMetaChildId:
          if (wire == kVarint) {
            if (!d_.ReadVarint(p, end, v)) return false;
            md.child_ids.push_back(static_cast<int64_t>(v));
          } else {  // packed
            if (!d_.Expect(at, field, wire, kLen, "XEventMetadata") || !d_.ReadLen(p, end, s)) return false;
            const uint8_t* q = U8(s);
            while (q < U8(s) + s.size()) {
              if (!d_.ReadVarint(q, U8(s) + s.size(), v)) return false;
              md.child_ids.push_back(static_cast<int64_t>(v));
            }
          }
          break;
        default:
          if (!d_.Skip(p, end, wire)) return false;
      }
    }
    return !d_.failed();
  }

  [[gnu::always_inline]] bool ParseEvent(const uint8_t* p, const uint8_t* end) {
    uint32_t field, wire;
    int64_t begin_ps = 0, duration_ps = 0;
    w_.BeginEvent();
    int64_t metadata_id = 0;
    event_keeps_narrowed_now_ = true;  // until the metadata id says otherwise
    int64_t occurrences = -1;
    while (d_.ReadTag(p, end, field, wire)) {
      const uint8_t* at = p;
      uint64_t v;
      std::string_view s;
      if (field == kEventStats) {
        if (!d_.Expect(at, field, wire, kLen, "XEvent") || !d_.ReadLen(p, end, s)) return false;
        if (!ParseStats<StatOwner::kEvent>(s)) return false;
      } else if (field == kEventMetadataId || field == kEventOffsetPs || field == kEventDurationPs ||
                 field == kEventNumOccurrences) {
        if (!d_.Expect(at, field, wire, kVarint, "XEvent") || !d_.ReadVarint(p, end, v)) return false;
        int64_t x = static_cast<int64_t>(v);
        if (field == kEventMetadataId) {
          metadata_id = x;
          if (!event_keeps_narrowed_.empty()) event_keeps_narrowed_now_ = EventKeepsNarrowed(x);
        } else if (field == kEventOffsetPs) {
          begin_ps = x;
          occurrences = -1;
        } else if (field == kEventDurationPs) {
          duration_ps = x;
        } else {
          occurrences = x;
          begin_ps = 0;
        }
      } else if (!d_.Skip(p, end, wire)) {
        return false;
      }
    }
    if (d_.failed()) return false;
    uint32_t idx = event_ids_.Get(metadata_id);
    if (idx == IdMap::kAbsent) idx = MissingMetadata(metadata_id);
    if (occurrences >= 0) {
      w_.EndAggregatedEvent(occurrences, duration_ps, idx);
    } else {
      w_.EndEvent(begin_ps, duration_ps, idx);
    }
    return true;
  }

  // An event naming metadata that the plane lacks gets an empty name, as in xprof's visitor.
  uint32_t MissingMetadata(int64_t id) {
    EventMetadata md;
    md.id = id;
    const uint32_t idx = w_.AddEventMetadata(std::move(md));
    event_ids_.Add(id, idx);
    return idx;
  }

  bool ParseLine(const uint8_t* p, const uint8_t* end) {
    uint32_t field, wire;
    LineModel line;
    w_.BeginLine();
    while (d_.ReadTag(p, end, field, wire)) {
      const uint8_t* at = p;
      uint64_t v;
      std::string_view s;
      switch (field) {
        case kLineId:
        case kLineTimestampNs:
        case kLineDurationPs:
        case kLineDisplayId:
          if (!d_.Expect(at, field, wire, kVarint, "XLine") || !d_.ReadVarint(p, end, v)) return false;
          (field == kLineId            ? line.id
           : field == kLineTimestampNs ? line.timestamp_ns
           : field == kLineDurationPs  ? line.duration_ps
                                       : line.display_id) = static_cast<int64_t>(v);
          break;
        case kLineName:
        case kLineDisplayName:
          if (!d_.Expect(at, field, wire, kLen, "XLine") || !d_.ReadLen(p, end, s)) return false;
          if (!d_.ExpectUtf8(at, s, "an XLine name")) return false;
          (field == kLineName ? line.name : line.display_name) = m_.strings.Intern(s);
          break;
        case kLineEvents:
          if (!d_.Expect(at, field, wire, kLen, "XLine") || !d_.ReadLen(p, end, s)) return false;
          if (w_.NumEvents() >= 0xfffffff0u) {
            d_.Fail(at, "more than 4 billion events in one plane");
            return false;
          }
          if (!ParseEvent(U8(s), U8(s) + s.size())) return false;
          if ((++events_since_progress_ & 0xffff) == 0) {
            d_.Progress(p);
            // Decode errors stop a load the same way; Decode reports it as cancelled.
            if (CancelRequested()) {
              d_.Fail(at, "cancelled");
              return false;
            }
          }
          break;
        default:
          if (!d_.Skip(p, end, wire)) return false;
      }
    }
    if (d_.failed()) return false;
    w_.EndLine(line);
    return true;
  }

  bool ParsePlane(const uint8_t* p, const uint8_t* end, LineRange lines) {
    w_ = PlaneWriter(m_.planes.emplace_back());
    stat_ids_ = IdMap();
    event_ids_ = IdMap();
    stat_meta_.clear();
    // Pass 1: metadata maps (they follow the lines on the wire).
    const uint8_t* q = p;
    uint32_t field, wire;
    std::string_view plane_name;  // checked in pass 2
    while (d_.ReadTag(q, end, field, wire)) {
      const uint8_t* at = q;
      std::string_view s;
      if (field == kPlaneStatMetadata) {
        if (!d_.Expect(at, field, wire, kLen, "XPlane") || !d_.ReadLen(q, end, s)) return false;
        if (!ParseStatMetadataEntry(U8(s), U8(s) + s.size())) return false;
      } else if (field == kPlaneName && wire == kLen) {
        if (!d_.ReadLen(q, end, plane_name)) return false;
      } else if (!d_.Skip(q, end, wire)) {
        return false;
      }
    }
    if (d_.failed()) return false;
    bool any_narrowed = false;
    if (keep_event_stat_) {
      for (StatMeta& meta : stat_meta_) {
        std::string_view stat_name = m_.strings.View(meta.name);
        meta.keep_in_events = keep_event_stat_(plane_name, stat_name);
        meta.narrowed = meta.keep_in_events && narrowed_event_stat_ && narrowed_event_stat_(plane_name, stat_name);
        any_narrowed |= meta.narrowed;
      }
    }
    q = p;
    while (d_.ReadTag(q, end, field, wire)) {
      const uint8_t* at = q;
      std::string_view s;
      if (field == kPlaneEventMetadata) {
        if (!d_.Expect(at, field, wire, kLen, "XPlane") || !d_.ReadLen(q, end, s)) return false;
        if (!ParseEventMetadataEntry(U8(s), U8(s) + s.size())) return false;
      } else if (!d_.Skip(q, end, wire)) {
        return false;
      }
    }
    if (d_.failed()) return false;
    event_keeps_narrowed_.clear();
    if (any_narrowed) {
      event_keeps_narrowed_.reserve(w_.NumEventMetadata());
      for (const EventMetadata& md : w_.plane().event_metadata) {
        event_keeps_narrowed_.push_back(keeps_narrowed_stats_(plane_name, m_.strings.View(md.name)) ? 1 : 0);
      }
    }
    // With a projection, a stat whose metadata id comes first (as every
    // writer puts it) is counted only if kept; others are counted anyway.
    auto kept = [&](int64_t event_metadata_id, const uint8_t* sb, const uint8_t* se) {
      uint64_t id;
      if (!keep_event_stat_ || sb == se || *sb != 0x08 || !SkimVarint(++sb, se, id)) return true;
      return KeptInEvents(stat_ids_.Get(static_cast<int64_t>(id)), EventKeepsNarrowed(event_metadata_id));
    };
    // Without a projection every stat counts: a pass of its own, which the
    // compiler reduces to counting (this pass reads every byte of the plane).
    auto every_stat = [](int64_t, const uint8_t*, const uint8_t*) { return true; };
    PlaneCounts counts = keep_event_stat_ ? CountPlane(p, end, lines, any_narrowed, kept)
                                          : CountPlane(p, end, lines, false, every_stat);
    if (lines.tail != nullptr && lines.begin > 0) {
      lines.tail->Publish(counts);
    } else if (lines.tail != nullptr) {
      const PlaneCounts later = lines.tail->counts.get();
      counts.events += later.events;
      counts.event_stats += later.event_stats;
    }
    // Small pages here (no ReserveLarge): a fresh process's first huge pages
    // cost more than they save on a VM whose memory the host backs on first
    // touch, and loading is what a fresh process does first.
    // Claimed first: the counts, not the file's size, say what these hold (a
    // file of tiny events needs many times its size).
    if (Status s = ClaimMemory(counts.events * sizeof(Event) + counts.event_stats * sizeof(Stat), "loading the profile");
        !s.ok()) {
      d_.Refuse(p, std::move(s));
      return false;
    }
    w_.Reserve(counts.events, counts.event_stats);
    // Pass 2: everything else.
    uint32_t line_index = 0;
    while (d_.ReadTag(p, end, field, wire)) {
      const uint8_t* at = p;
      uint64_t v;
      std::string_view s;
      switch (field) {
        case kPlaneId:
          if (!d_.Expect(at, field, wire, kVarint, "XPlane") || !d_.ReadVarint(p, end, v)) return false;
          w_.SetId(static_cast<int64_t>(v));
          break;
        case kPlaneName:
          if (!d_.Expect(at, field, wire, kLen, "XPlane") || !d_.ReadLen(p, end, s)) return false;
          if (!d_.ExpectUtf8(at, s, "an XPlane name")) return false;
          w_.SetName(m_.strings.Intern(s));
          break;
        case kPlaneLines:
          if (!d_.Expect(at, field, wire, kLen, "XPlane") || !d_.ReadLen(p, end, s)) return false;
          if (lines.Has(line_index++) && !ParseLine(U8(s), U8(s) + s.size())) return false;
          break;
        case kPlaneStats:
          if (!d_.Expect(at, field, wire, kLen, "XPlane") || !d_.ReadLen(p, end, s)) return false;
          if (!ParseStats<StatOwner::kPlane>(s)) return false;
          break;
        default:
          if (!d_.Skip(p, end, wire)) return false;
      }
    }
    if (d_.failed()) return false;
    if (lines.tail == nullptr || lines.begin > 0) {  // a plane's first lines leave room for the rest
      w_.ShrinkToFit();
    }
    return true;
  }

  Decoder& d_;
  XSpaceModel& m_;
  const LoadOptions::KeepEventStat& keep_event_stat_;
  const LoadOptions::KeepEventStat& narrowed_event_stat_;
  const LoadOptions::KeepOnEvent& keeps_narrowed_stats_;
  std::vector<uint8_t> event_keeps_narrowed_;  // by event metadata index; empty: all keep
  bool event_keeps_narrowed_now_ = true;        // for the event being decoded
  PlaneWriter w_;  // the plane being decoded
  IdMap stat_ids_, event_ids_;
  std::vector<StatMeta> stat_meta_;
  uint64_t events_since_progress_ = 0;
};

}  // namespace tbprof::xplane_detail
