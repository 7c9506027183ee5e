#include "convert/xplane/xspace_reader.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <future>
#include <type_traits>
#include <unordered_map>

#include "convert/base/file_bytes.h"
#include "convert/base/run_both.h"

namespace tbprof {
namespace {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

// proto3 string fields must hold UTF-8 (libprotobuf rejects the message
// otherwise). Checking the names and the space-level strings is cheap and is
// what tells another message type (e.g. a legacy tool .pb, whose fields 2-4
// hold binary) apart from an XSpace.
bool IsUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    if (*p < 0x80) {
      ++p;
      continue;
    }
    int n;
    uint32_t cp;
    if ((*p & 0xe0) == 0xc0) {
      n = 1;
      cp = *p & 0x1f;
    } else if ((*p & 0xf0) == 0xe0) {
      n = 2;
      cp = *p & 0x0f;
    } else if ((*p & 0xf8) == 0xf0) {
      n = 3;
      cp = *p & 0x07;
    } else {
      return false;
    }
    if (end - p <= n) return false;
    for (int i = 1; i <= n; ++i) {
      if ((p[i] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3f);
    }
    // Overlong forms, surrogates and values past U+10FFFF are invalid.
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff)) {
      return false;
    }
    p += n + 1;
  }
  return true;
}

// Decoding stops at the first error; the message names the source and offset.
class Decoder {
 public:
  Decoder(const uint8_t* base, std::string_view source, void (*on_progress)(void*, const uint8_t*),
          void* progress_ctx)
      : base_(base), source_(source), on_progress_(on_progress), progress_ctx_(progress_ctx) {}

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

  [[gnu::noinline, gnu::cold]] void Fail(const uint8_t* at, const std::string& what) {
    if (!failed()) {
      error_ = std::string(source_) + ": " + what + " at byte offset " + std::to_string(at - base_);
    }
  }

  // One- and two-byte varints (tags, ids, most offsets) are decoded inline;
  // longer ones and errors take the out-of-line path.
  [[gnu::always_inline]] bool ReadVarint(const uint8_t*& p, const uint8_t* end, uint64_t& out) {
    if (end - p >= 2) [[likely]] {
      if (p[0] < 0x80) {
        out = *p++;
        return true;
      }
      if (p[1] < 0x80) {
        out = (p[0] & 0x7fu) | (uint64_t{p[1]} << 7);
        p += 2;
        return true;
      }
    }
    return ReadVarintSlow(p, end, out);
  }

  [[gnu::noinline]] bool ReadVarintSlow(const uint8_t*& p, const uint8_t* end, uint64_t& out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= end) {
        Fail(p, "truncated varint");
        return false;
      }
      uint8_t b = *p++;
      v |= uint64_t{b & 0x7fu} << shift;
      if (b < 0x80) {
        out = v;
        return true;
      }
    }
    Fail(p, "malformed varint (more than 10 bytes)");
    return false;
  }

  // Reads a tag; returns false at the end of the range or on error.
  [[gnu::always_inline]] bool ReadTag(const uint8_t*& p, const uint8_t* end, uint32_t& field, uint32_t& wire) {
    if (p >= end) return false;
    const uint8_t* at = p;
    uint64_t tag;
    if (!ReadVarint(p, end, tag)) return false;
    field = static_cast<uint32_t>(tag >> 3);
    wire = static_cast<uint32_t>(tag & 7);
    if (field == 0 || tag > 0xffffffffu) [[unlikely]] {
      Fail(at, "invalid field number 0 in tag");
      return false;
    }
    return true;
  }

  [[gnu::always_inline]] bool ReadLen(const uint8_t*& p, const uint8_t* end, std::string_view& out) {
    const uint8_t* at = p;
    uint64_t len;
    if (!ReadVarint(p, end, len)) return false;
    if (len > static_cast<uint64_t>(end - p)) [[unlikely]] return FailLength(at, len, end - p);
    out = std::string_view(reinterpret_cast<const char*>(p), len);
    p += len;
    return true;
  }

  [[gnu::noinline]] bool FailLength(const uint8_t* at, uint64_t len, ptrdiff_t left) {
    Fail(at, "length " + std::to_string(len) + " exceeds the " + std::to_string(left) +
                 " bytes left in the enclosing message");
    return false;
  }

  bool Skip(const uint8_t*& p, const uint8_t* end, uint32_t wire) {
    uint64_t v;
    std::string_view s;
    switch (wire) {
      case kVarint:
        return ReadVarint(p, end, v);
      case kFixed64:
        if (end - p < 8) break;
        p += 8;
        return true;
      case kFixed32:
        if (end - p < 4) break;
        p += 4;
        return true;
      case kLen:
        return ReadLen(p, end, s);
      default:
        Fail(p, "unsupported wire type " + std::to_string(wire) + " (not an XSpace protobuf?)");
        return false;
    }
    Fail(p, "truncated fixed-width field");
    return false;
  }

  // A known field with the wrong wire type means this is not an XSpace.
  bool ExpectUtf8(const uint8_t* at, std::string_view s, const char* what) {
    if (IsUtf8(s)) return true;
    Fail(at, std::string(what) + " is not valid UTF-8 (not an XSpace protobuf?)");
    return false;
  }

  [[gnu::always_inline]] bool Expect(const uint8_t* at, uint32_t field, uint32_t wire, uint32_t want,
                                     const char* msg) {
    if (wire == want) [[likely]] return true;
    return FailWireType(at, field, wire, want, msg);
  }

  [[gnu::noinline]] bool FailWireType(const uint8_t* at, uint32_t field, uint32_t wire, uint32_t want,
                                      const char* msg) {
    Fail(at, std::string("field ") + std::to_string(field) + " of " + msg + " has wire type " +
                 std::to_string(wire) + ", expected " + std::to_string(want) +
                 " (not an XSpace protobuf?)");
    return false;
  }

  bool ReadFixed64(const uint8_t*& p, const uint8_t* end, uint64_t& out) {
    if (end - p < 8) {
      Fail(p, "truncated fixed64");
      return false;
    }
    std::memcpy(&out, p, 8);
    p += 8;
    return true;
  }

  void Progress(const uint8_t* p) {
    if (on_progress_) on_progress_(progress_ctx_, p);
  }

  const uint8_t* base() const { return base_; }

 private:
  const uint8_t* base_;
  std::string_view source_;
  void (*on_progress_)(void*, const uint8_t*);
  void* progress_ctx_;
  std::string error_;
};

const uint8_t* U8(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }


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

bool SkimVarint(const uint8_t*& p, const uint8_t* end, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    uint8_t b = *p++;
    v |= uint64_t{b & 0x7fu} << shift;
    if (b < 0x80) return true;
  }
  return false;
}

// Calls on_len(field, begin, end) for each length-delimited field; skips the rest.
template <typename F>
void SkimFields(const uint8_t* p, const uint8_t* end, F&& on_len) {
  while (p < end) {
    uint64_t tag, v;
    if (!SkimVarint(p, end, tag)) return;
    switch (tag & 7) {
      case 0:
        if (!SkimVarint(p, end, v)) return;
        break;
      case 1:
        if (end - p < 8) return;
        p += 8;
        break;
      case 5:
        if (end - p < 4) return;
        p += 4;
        break;
      case 2:
        if (!SkimVarint(p, end, v) || v > static_cast<uint64_t>(end - p)) return;
        on_len(static_cast<uint32_t>(tag >> 3), p, p + v);
        p += v;
        break;
      default:
        return;
    }
  }
}

// `kept(stat_begin, stat_end)` says whether the model will store that event stat.
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
PlaneCounts CountPlane(const uint8_t* p, const uint8_t* end, LineRange lines, KeptStat&& kept) {
  PlaneCounts c;
  uint32_t line = 0;
  SkimFields(p, end, [&](uint32_t field, const uint8_t* lb, const uint8_t* le) {
    if (field != 3 || !lines.Has(line++)) return;
    SkimFields(lb, le, [&](uint32_t lf, const uint8_t* eb, const uint8_t* ee) {
      if (lf != 4) return;
      ++c.events;
      SkimFields(eb, ee, [&](uint32_t ef, const uint8_t* sb, const uint8_t* se) {
        c.event_stats += ef == 4 && kept(sb, se);
      });
    });
  });
  return c;
}

class SpaceParser {
 public:
  SpaceParser(Decoder& d, XSpaceModel& m, const LoadOptions::KeepEventStat& keep_event_stat)
      : d_(d), m_(m), keep_event_stat_(keep_event_stat) {}

  // Reads the top level of an XSpace: the space's strings go into the model
  // and each plane's bytes into `planes`, in file order, to be decoded later.
  bool OutlineSpace(const uint8_t* p, const uint8_t* end, std::vector<std::string_view>& planes) {
    uint32_t field, wire;
    while (d_.ReadTag(p, end, field, wire)) {
      const uint8_t* at = p;
      if (field >= 1 && field <= 4) {
        if (!d_.Expect(at, field, wire, kLen, "XSpace")) return false;
        std::string_view s;
        if (!d_.ReadLen(p, end, s)) return false;
        if (field != 1 && !d_.ExpectUtf8(at, s, "an XSpace error/warning/hostname string")) return false;
        if (field == 1) {
          planes.push_back(s);
        } else {
          auto& list = field == 2 ? m_.errors : field == 3 ? m_.warnings : m_.hostnames;
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
    StrId last_str = kNoStr;     // the last str_value interned for this stat
  };

  // Whether an event stat with this stat metadata index is stored (a stat
  // naming no metadata is left out of a projection).
  bool KeptInEvents(uint32_t meta_index) const {
    return !keep_event_stat_ || (meta_index != IdMap::kAbsent && stat_meta_[meta_index].keep_in_events);
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
        case 1:
          if (!d_.Expect(at, field, wire, kVarint, "XStat") || !d_.ReadVarint(p, end, v)) return false;
          metadata_id = static_cast<int64_t>(v);
          break;
        case 2:
          if (!d_.Expect(at, field, wire, kFixed64, "XStat") || !d_.ReadFixed64(p, end, v)) return false;
          out.kind = StatKind::kDouble;
          std::memcpy(&out.f64, &v, 8);
          break;
        case 3:
        case 4:
        case 7:
          if (!d_.Expect(at, field, wire, kVarint, "XStat") || !d_.ReadVarint(p, end, v)) return false;
          if (field == 7) {
            uint32_t idx = stat_ids_.Get(static_cast<int64_t>(v));
            out.kind = StatKind::kStr;
            out.str = idx == IdMap::kAbsent ? kNoStr : stat_meta_[idx].name;
            has_str_value = false;  // a ref_value after a str_value wins (oneof)
          } else {
            out.kind = field == 3 ? StatKind::kUint64 : StatKind::kInt64;
            out.u64 = v;
          }
          break;
        case 5:
          if (!d_.Expect(at, field, wire, kLen, "XStat") || !d_.ReadLen(p, end, s)) return false;
          out.kind = StatKind::kStr;
          str_value = s;
          has_str_value = true;
          break;
        case 6:
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
    keep = !is_event_stat || KeptInEvents(idx);
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

  bool ParseStats(std::string_view s, std::vector<Stat>& into, bool is_event_stat = false) {
    Stat st;
    bool keep = true;
    if (!ParseStat(U8(s), U8(s) + s.size(), st, is_event_stat, keep)) return false;
    if (keep) into.push_back(st);
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
      if (field == 1) {  // map key
        if (!d_.Expect(at, field, wire, kVarint, "stat_metadata entry") || !d_.ReadVarint(p, end, v)) return false;
        key = static_cast<int64_t>(v);
      } else if (field == 2) {  // XStatMetadata
        if (!d_.Expect(at, field, wire, kLen, "stat_metadata entry") || !d_.ReadLen(p, end, s)) return false;
        const uint8_t* q = U8(s);
        const uint8_t* qe = q + s.size();
        uint32_t f2, w2;
        while (d_.ReadTag(q, qe, f2, w2)) {
          const uint8_t* at2 = q;
          std::string_view s2;
          if (f2 == 1) {
            if (!d_.Expect(at2, f2, w2, kVarint, "XStatMetadata") || !d_.ReadVarint(q, qe, v)) return false;
            id = static_cast<int64_t>(v);
            has_id = true;
          } else if (f2 == 2) {
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
    plane_->stat_metadata.emplace_back(n, has_id ? id : key);
    return true;
  }

  bool ParseEventMetadataEntry(const uint8_t* p, const uint8_t* end) {
    uint32_t field, wire;
    int64_t key = 0;
    EventMetadata md;
    while (d_.ReadTag(p, end, field, wire)) {
      const uint8_t* at = p;
      uint64_t v;
      std::string_view s;
      if (field == 1) {
        if (!d_.Expect(at, field, wire, kVarint, "event_metadata entry") || !d_.ReadVarint(p, end, v)) return false;
        key = static_cast<int64_t>(v);
      } else if (field == 2) {
        if (!d_.Expect(at, field, wire, kLen, "event_metadata entry") || !d_.ReadLen(p, end, s)) return false;
        if (!ParseEventMetadata(U8(s), U8(s) + s.size(), md)) return false;
      } else if (!d_.Skip(p, end, wire)) {
        return false;
      }
    }
    if (d_.failed()) return false;
    event_ids_.Add(key, static_cast<uint32_t>(plane_->event_metadata.size()));
    plane_->event_metadata.push_back(std::move(md));
    return true;
  }

  bool ParseEventMetadata(const uint8_t* p, const uint8_t* end, EventMetadata& md) {
    uint32_t field, wire;
    md.first_stat = static_cast<uint32_t>(plane_->metadata_stats.size());
    while (d_.ReadTag(p, end, field, wire)) {
      const uint8_t* at = p;
      uint64_t v;
      std::string_view s;
      switch (field) {
        case 1:
          if (!d_.Expect(at, field, wire, kVarint, "XEventMetadata") || !d_.ReadVarint(p, end, v)) return false;
          md.id = static_cast<int64_t>(v);
          break;
        case 2:
        case 4:
          if (!d_.Expect(at, field, wire, kLen, "XEventMetadata") || !d_.ReadLen(p, end, s)) return false;
          if (!d_.ExpectUtf8(at, s, "an XEventMetadata name")) return false;
          (field == 2 ? md.name : md.display_name) = m_.strings.Intern(s);
          break;
        case 3:
          if (!d_.Expect(at, field, wire, kLen, "XEventMetadata") || !d_.ReadLen(p, end, s)) return false;
          md.metadata_blob = static_cast<uint32_t>(m_.blobs.size());
          m_.blobs.emplace_back(s);
          break;
        case 5:
          if (!d_.Expect(at, field, wire, kLen, "XEventMetadata") || !d_.ReadLen(p, end, s)) return false;
          if (!ParseStats(s, plane_->metadata_stats)) return false;
          break;
        case 6:
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
    md.num_stats = static_cast<uint32_t>(plane_->metadata_stats.size()) - md.first_stat;
    return !d_.failed();
  }

  bool ParseEvent(const uint8_t* p, const uint8_t* end) {
    uint32_t field, wire;
    Event ev;
    ev.first_stat = static_cast<uint32_t>(plane_->event_stats.size());
    int64_t metadata_id = 0;
    int64_t occurrences = -1;
    while (d_.ReadTag(p, end, field, wire)) {
      const uint8_t* at = p;
      uint64_t v;
      std::string_view s;
      if (field == 4) {
        if (!d_.Expect(at, field, wire, kLen, "XEvent") || !d_.ReadLen(p, end, s)) return false;
        if (!ParseStats(s, plane_->event_stats, /*is_event_stat=*/true)) return false;
      } else if (field == 1 || field == 2 || field == 3 || field == 5) {
        if (!d_.Expect(at, field, wire, kVarint, "XEvent") || !d_.ReadVarint(p, end, v)) return false;
        int64_t x = static_cast<int64_t>(v);
        if (field == 1) {
          metadata_id = x;
        } else if (field == 2) {
          ev.begin_ps = x;
          occurrences = -1;
        } else if (field == 3) {
          ev.duration_ps = x;
        } else {
          occurrences = x;
          ev.begin_ps = 0;
        }
      } else if (!d_.Skip(p, end, wire)) {
        return false;
      }
    }
    if (d_.failed()) return false;
    uint32_t idx = event_ids_.Get(metadata_id);
    ev.metadata = idx == IdMap::kAbsent ? MissingMetadata(metadata_id) : idx;
    if (occurrences >= 0) {
      plane_->occurrences.emplace_back(static_cast<uint32_t>(plane_->events.size()), occurrences);
    }
    plane_->events.push_back(ev);
    return true;
  }

  // An event naming metadata that the plane lacks gets an empty name, as in xprof's visitor.
  uint32_t MissingMetadata(int64_t id) {
    uint32_t idx = static_cast<uint32_t>(plane_->event_metadata.size());
    EventMetadata md;
    md.id = id;
    md.first_stat = static_cast<uint32_t>(plane_->metadata_stats.size());
    plane_->event_metadata.push_back(std::move(md));
    event_ids_.Add(id, idx);
    return idx;
  }

  bool ParseLine(const uint8_t* p, const uint8_t* end) {
    uint32_t field, wire;
    LineModel line;
    line.first_event = static_cast<uint32_t>(plane_->events.size());
    while (d_.ReadTag(p, end, field, wire)) {
      const uint8_t* at = p;
      uint64_t v;
      std::string_view s;
      switch (field) {
        case 1:
        case 3:
        case 9:
        case 10:
          if (!d_.Expect(at, field, wire, kVarint, "XLine") || !d_.ReadVarint(p, end, v)) return false;
          (field == 1 ? line.id : field == 3 ? line.timestamp_ns : field == 9 ? line.duration_ps
                                                                              : line.display_id) =
              static_cast<int64_t>(v);
          break;
        case 2:
        case 11:
          if (!d_.Expect(at, field, wire, kLen, "XLine") || !d_.ReadLen(p, end, s)) return false;
          if (!d_.ExpectUtf8(at, s, "an XLine name")) return false;
          (field == 2 ? line.name : line.display_name) = m_.strings.Intern(s);
          break;
        case 4:
          if (!d_.Expect(at, field, wire, kLen, "XLine") || !d_.ReadLen(p, end, s)) return false;
          if (plane_->events.size() >= 0xfffffff0u) {
            d_.Fail(at, "more than 4 billion events in one plane");
            return false;
          }
          if (!ParseEvent(U8(s), U8(s) + s.size())) return false;
          if ((++events_since_progress_ & 0xffff) == 0) d_.Progress(p);
          break;
        default:
          if (!d_.Skip(p, end, wire)) return false;
      }
    }
    if (d_.failed()) return false;
    line.num_events = static_cast<uint32_t>(plane_->events.size()) - line.first_event;
    const int64_t base_ps = line.timestamp_ns * 1000;
    for (uint32_t i = line.first_event; i < line.first_event + line.num_events; ++i) {
      plane_->events[i].begin_ps += base_ps;
    }
    for (auto it = plane_->occurrences.rbegin();
         it != plane_->occurrences.rend() && it->first >= line.first_event; ++it) {
      plane_->events[it->first].begin_ps = 0;
    }
    plane_->lines.push_back(line);
    return true;
  }

  bool ParsePlane(const uint8_t* p, const uint8_t* end, LineRange lines) {
    m_.planes.emplace_back();
    plane_ = &m_.planes.back();
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
      if (field == 5) {
        if (!d_.Expect(at, field, wire, kLen, "XPlane") || !d_.ReadLen(q, end, s)) return false;
        if (!ParseStatMetadataEntry(U8(s), U8(s) + s.size())) return false;
      } else if (field == 2 && wire == kLen) {
        if (!d_.ReadLen(q, end, plane_name)) return false;
      } else if (!d_.Skip(q, end, wire)) {
        return false;
      }
    }
    if (d_.failed()) return false;
    if (keep_event_stat_) {
      for (StatMeta& meta : stat_meta_) meta.keep_in_events = keep_event_stat_(plane_name, m_.strings.View(meta.name));
    }
    q = p;
    while (d_.ReadTag(q, end, field, wire)) {
      const uint8_t* at = q;
      std::string_view s;
      if (field == 4) {
        if (!d_.Expect(at, field, wire, kLen, "XPlane") || !d_.ReadLen(q, end, s)) return false;
        if (!ParseEventMetadataEntry(U8(s), U8(s) + s.size())) return false;
      } else if (!d_.Skip(q, end, wire)) {
        return false;
      }
    }
    if (d_.failed()) return false;
    // With a projection, a stat whose metadata id comes first (as every
    // writer puts it) is counted only if kept; others are counted anyway.
    auto kept = [&](const uint8_t* sb, const uint8_t* se) {
      uint64_t id;
      if (!keep_event_stat_ || sb == se || *sb != 0x08 || !SkimVarint(++sb, se, id)) return true;
      return KeptInEvents(stat_ids_.Get(static_cast<int64_t>(id)));
    };
    PlaneCounts counts = CountPlane(p, end, lines, kept);
    if (lines.tail != nullptr && lines.begin > 0) {
      lines.tail->Publish(counts);
    } else if (lines.tail != nullptr) {
      const PlaneCounts later = lines.tail->counts.get();
      counts.events += later.events;
      counts.event_stats += later.event_stats;
    }
    plane_->events.reserve(counts.events);
    plane_->event_stats.reserve(counts.event_stats);
    // Pass 2: everything else.
    uint32_t line_index = 0;
    while (d_.ReadTag(p, end, field, wire)) {
      const uint8_t* at = p;
      uint64_t v;
      std::string_view s;
      switch (field) {
        case 1:
          if (!d_.Expect(at, field, wire, kVarint, "XPlane") || !d_.ReadVarint(p, end, v)) return false;
          plane_->id = static_cast<int64_t>(v);
          break;
        case 2:
          if (!d_.Expect(at, field, wire, kLen, "XPlane") || !d_.ReadLen(p, end, s)) return false;
          if (!d_.ExpectUtf8(at, s, "an XPlane name")) return false;
          plane_->name = m_.strings.Intern(s);
          break;
        case 3:
          if (!d_.Expect(at, field, wire, kLen, "XPlane") || !d_.ReadLen(p, end, s)) return false;
          if (lines.Has(line_index++) && !ParseLine(U8(s), U8(s) + s.size())) return false;
          break;
        case 6:
          if (!d_.Expect(at, field, wire, kLen, "XPlane") || !d_.ReadLen(p, end, s)) return false;
          if (!ParseStats(s, plane_->plane_stats)) return false;
          break;
        default:
          if (!d_.Skip(p, end, wire)) return false;
      }
    }
    if (d_.failed()) return false;
    if (lines.tail == nullptr || lines.begin > 0) {  // a plane's first lines leave room for the rest
      plane_->events.shrink_to_fit();
      plane_->event_stats.shrink_to_fit();
    }
    return true;
  }

  Decoder& d_;
  XSpaceModel& m_;
  const LoadOptions::KeepEventStat& keep_event_stat_;
  XPlaneModel* plane_ = nullptr;
  IdMap stat_ids_, event_ids_;
  std::vector<StatMeta> stat_meta_;
  uint64_t events_since_progress_ = 0;
};

struct PageReleaser {
  const uint8_t* released_to;
  static void Release(void* ctx, const uint8_t* p) {
    auto* self = static_cast<PageReleaser*>(ctx);
    const long page = sysconf(_SC_PAGESIZE);
    auto aligned = reinterpret_cast<const uint8_t*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t(page - 1));
    // Keep a margin: the current event may straddle the page boundary.
    aligned -= 4 * page;
    if (aligned > self->released_to + (8 << 20)) {
      madvise(const_cast<uint8_t*>(self->released_to), aligned - self->released_to, MADV_DONTNEED);
      self->released_to = aligned;
    }
  }
};

// Where the second decoding thread starts: at line `line` of plane `plane`
// (line 0: the whole plane); the first thread takes everything before.
struct SplitPoint {
  size_t plane = 0;
  uint32_t line = 0;
  const uint8_t* begin = nullptr;  // first byte the second thread decodes
};

// The most even split of the bytes, within a plane when one straddles the
// middle: a host plane often holds most of a file.
SplitPoint BalancedSplit(const std::vector<std::string_view>& planes) {
  uint64_t total = 0;
  for (std::string_view p : planes) total += p.size();
  const uint64_t half = total / 2;
  uint64_t before = 0;
  for (size_t i = 0; i < planes.size(); ++i) {
    if (before + planes[i].size() <= half) {
      before += planes[i].size();
      continue;
    }
    std::vector<std::string_view> lines;
    SkimFields(U8(planes[i]), U8(planes[i]) + planes[i].size(), [&](uint32_t f, const uint8_t* b, const uint8_t* e) {
      if (f == 3) lines.emplace_back(reinterpret_cast<const char*>(b), e - b);
    });
    uint32_t k = 0;
    while (k < lines.size() && before + lines[k].size() <= half) before += lines[k++].size();
    if (k < lines.size() && before + lines[k].size() - half < half - before) ++k;  // line k fits the first half better
    if (k == 0) return {i, 0, U8(planes[i])};
    if (k >= lines.size()) return i + 1 < planes.size() ? SplitPoint{i + 1, 0, U8(planes[i + 1])} : SplitPoint{planes.size()};
    return {i, k, U8(lines[k])};
  }
  return {planes.size()};
}

// Appends `from` to `to`, passing each element through `fix`, and hands the
// pages of `from` already copied back to the kernel as it goes, so the two
// copies are never both resident (the peak of a load stays that of one model).
template <typename T, typename Fix>
void AppendReleasing(std::vector<T>& to, std::vector<T>& from, Fix&& fix) {
  static_assert(std::is_trivially_copyable_v<T>);
  to.reserve(to.size() + from.size());
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const size_t chunk = (size_t{8} << 20) / sizeof(T);
  const auto begin = reinterpret_cast<uintptr_t>(from.data());
  uintptr_t released = (begin + page - 1) & ~(page - 1);  // never the page holding the allocator's header
  for (size_t i = 0; i < from.size(); i += chunk) {
    const size_t end = std::min(from.size(), i + chunk);
    for (size_t j = i; j < end; ++j) {
      T v = from[j];
      fix(v);
      to.push_back(v);
    }
    const uintptr_t copied = (begin + end * sizeof(T)) & ~(page - 1);
    if (copied > released) {
      madvise(reinterpret_cast<void*>(released), copied - released, MADV_DONTNEED);
      released = copied;
    }
  }
  std::vector<T>().swap(from);
}

// Appends the events of `tail` (the later lines of the same plane, decoded by
// another thread, its stats still to be passed through `fix_stat`) to `into`.
// False when the two decoders disagree on the plane's event metadata (only
// when events name metadata the plane lacks).
template <typename FixStat>
bool AppendPlaneTail(XPlaneModel& into, XPlaneModel&& tail, FixStat&& fix_stat) {
  if (into.event_metadata.size() != tail.event_metadata.size()) return false;
  for (size_t i = 0; i < into.event_metadata.size(); ++i) {
    if (into.event_metadata[i].id != tail.event_metadata[i].id) return false;
  }
  const auto event_base = static_cast<uint32_t>(into.events.size());
  const auto stat_base = static_cast<uint32_t>(into.event_stats.size());
  for (LineModel line : tail.lines) {
    line.first_event += event_base;
    into.lines.push_back(line);
  }
  AppendReleasing(into.events, tail.events, [&](Event& ev) { ev.first_stat += stat_base; });
  AppendReleasing(into.event_stats, tail.event_stats, fix_stat);
  into.events.shrink_to_fit();  // no-ops when the first decoder counted every line exactly
  into.event_stats.shrink_to_fit();
  for (const auto& [e, n] : tail.occurrences) into.occurrences.emplace_back(e + event_base, n);
  return true;
}

// Moves `from`'s planes behind `into`'s, re-interning its strings and
// renumbering its blobs. With `first_is_tail`, from's first plane holds the
// remaining lines of into's last plane. False when that plane cannot be joined.
bool MergeModel(XSpaceModel& into, XSpaceModel&& from, bool first_is_tail) {
  std::vector<StrId> remap(from.strings.size());
  for (size_t i = 0; i < remap.size(); ++i) remap[i] = into.strings.Intern(from.strings.View(static_cast<StrId>(i)));
  const auto blob_base = static_cast<uint32_t>(into.blobs.size());
  auto fix_stat = [&](Stat& st) {
    st.name = remap[st.name];
    if (st.kind == StatKind::kStr) st.str = remap[st.str];
    if (st.kind == StatKind::kBytes) st.blob += blob_base;
  };
  auto fix_stats = [&](std::vector<Stat>& stats) {
    for (Stat& st : stats) fix_stat(st);
  };
  for (size_t pi = 0; pi < from.planes.size(); ++pi) {
    XPlaneModel& p = from.planes[pi];
    for (LineModel& l : p.lines) l.name = remap[l.name], l.display_name = remap[l.display_name];
    if (pi == 0 && first_is_tail) {  // its name, metadata and plane stats are into's already
      if (into.planes.empty() || !AppendPlaneTail(into.planes.back(), std::move(p), fix_stat)) return false;
      continue;
    }
    p.name = remap[p.name];
    for (EventMetadata& md : p.event_metadata) {
      md.name = remap[md.name];
      md.display_name = remap[md.display_name];
      if (md.metadata_blob != kNoBlob) md.metadata_blob += blob_base;
    }
    fix_stats(p.event_stats);
    fix_stats(p.metadata_stats);
    fix_stats(p.plane_stats);
    for (auto& [name, id] : p.stat_metadata) name = remap[name];
    into.planes.push_back(std::move(p));
  }
  for (std::string& b : from.blobs) into.blobs.push_back(std::move(b));
  return true;
}

// A large file is decoded by two threads, each into a model of its own, over
// one contiguous half of the bytes each (so each releases only pages it has
// read): whole planes, and the lines of the plane at the middle shared out.
// The second model is then merged in.
StatusOr<std::unique_ptr<XSpaceModel>> Decode(std::string_view bytes, std::string_view source, bool release_pages,
                                              const LoadOptions& options) {
  auto model = std::make_unique<XSpaceModel>();
  const uint8_t* base = U8(bytes);
  std::vector<std::string_view> planes;
  Decoder outline_decoder(base, source, nullptr, nullptr);
  const bool outlined =
      SpaceParser(outline_decoder, *model, options.keep_event_stat).OutlineSpace(base, base + bytes.size(), planes);
  const SplitPoint split = outlined && bytes.size() >= options.parallel_min_bytes ? BalancedSplit(planes)
                                                                                  : SplitPoint{planes.size()};

  PageReleaser releaser{base};
  Decoder d(base, source, release_pages ? &PageReleaser::Release : nullptr, &releaser);
  SpaceParser parser(d, *model, options.keep_event_stat);
  TailCounts tail_counts;
  auto decode_front = [&] {
    bool ok = true;
    for (size_t i = 0; i < split.plane && ok; ++i) ok = parser.ParsePlaneBytes(planes[i]);
    if (ok && split.line > 0) parser.ParsePlaneBytes(planes[split.plane], LineRange{0, split.line, &tail_counts});
  };
  std::unique_ptr<XSpaceModel> back;
  std::string back_error;
  auto decode_back = [&] {
    try {
      back = std::make_unique<XSpaceModel>();
      PageReleaser back_releaser{split.begin};
      Decoder bd(base, source, release_pages ? &PageReleaser::Release : nullptr, &back_releaser);
      SpaceParser back_parser(bd, *back, options.keep_event_stat);
      for (size_t i = split.plane; i < planes.size(); ++i) {
        LineRange lines;
        if (i == split.plane && split.line > 0) lines = {split.line, UINT32_MAX, &tail_counts};
        if (!back_parser.ParsePlaneBytes(planes[i], lines)) break;
      }
      back_error = bd.error();
    } catch (...) {
      tail_counts.Publish({});
      throw;
    }
    tail_counts.Publish({});  // unblocks the front if the back stopped before counting
  };
  if (split.plane < planes.size()) {
    RunBoth(decode_front, decode_back);
  } else {
    decode_front();
  }
  // The first error in file order: the front planes, the back planes, then the top level.
  if (d.failed()) return DataLoss(d.error());
  if (!back_error.empty()) return DataLoss(back_error);
  if (!outlined) return DataLoss(outline_decoder.error());
  if (back && !MergeModel(*model, std::move(*back), split.line > 0)) {
    LoadOptions serial = options;
    serial.parallel_min_bytes = UINT64_MAX;
    return Decode(bytes, source, release_pages, serial);
  }
  return model;
}

}  // namespace

StatusOr<std::unique_ptr<XSpaceModel>> ParseXSpace(std::string_view bytes, std::string_view source,
                                                   const LoadOptions& options) {
  // An XSpace with no field set serialises to zero bytes: an empty profile, as xprof reads it.
  if (bytes.empty()) return std::make_unique<XSpaceModel>();
  return Decode(bytes, source, /*release_pages=*/false, options);
}

StatusOr<std::string> ReadFileMaybeGzip(const std::string& path, uint64_t max_bytes) {
  MappedFile f;
  RETURN_IF_ERROR(f.Open(path, max_bytes));
  if (HasGzipMagic(f.view())) return Inflate(f.view(), path, max_bytes);
  return std::string(f.view());
}

StatusOr<std::unique_ptr<XSpaceModel>> LoadXSpaceFile(const std::string& path, const LoadOptions& options) {
  MappedFile f;
  RETURN_IF_ERROR(f.Open(path, options.max_bytes));
  if (f.view().empty()) return std::make_unique<XSpaceModel>();  // the empty XSpace (see ParseXSpace)
  if (HasGzipMagic(f.view())) {
    ASSIGN_OR_RETURN(auto inflated, Inflate(f.view(), path, options.max_bytes));
    return Decode(inflated, path, /*release_pages=*/false, options);
  }
  return Decode(f.view(), path, options.release_decoded_pages, options);
}

}  // namespace tbprof
