// Hand-written protobuf wire encoder for XSpace, independent of libprotobuf, so
// that huge synthetic profiles can be streamed to disk line by line and so that
// round-trip tests compare two independent codecs (libprotobuf parses what this
// writes). Field numbers are those of TSL's xplane.proto.
#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tbprof::wire {

enum : uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2 };

// Appends protobuf primitives to a byte string.
class Encoder {
 public:
  std::string& bytes() { return buf_; }
  size_t size() const { return buf_.size(); }
  void clear() { buf_.clear(); }

  void Varint(uint64_t v) {
    while (v >= 0x80) {
      buf_.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    buf_.push_back(static_cast<char>(v));
  }
  void Tag(uint32_t field, uint32_t wire) { Varint((uint64_t{field} << 3) | wire); }
  // proto3 scalars: zero is the default and is not written.
  void Int(uint32_t field, int64_t v) {
    if (v == 0) return;
    Tag(field, kVarint);
    Varint(static_cast<uint64_t>(v));
  }
  // oneof members are written even when zero (presence matters).
  void IntAlways(uint32_t field, int64_t v) {
    Tag(field, kVarint);
    Varint(static_cast<uint64_t>(v));
  }
  void Double(uint32_t field, double v);
  void Bytes(uint32_t field, std::string_view s) {
    if (s.empty()) return;
    BytesAlways(field, s);
  }
  void BytesAlways(uint32_t field, std::string_view s) {
    Tag(field, kLen);
    Varint(s.size());
    buf_.append(s);
  }
  // Length-prefixed nested message (even when empty).
  void Message(uint32_t field, const Encoder& m) { BytesAlways(field, m.buf_); }

  static size_t VarintSize(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
      v >>= 7;
      ++n;
    }
    return n;
  }

 private:
  std::string buf_;
};

// Interns event / stat metadata names of one plane (ids 1..N, like TSL's XPlaneBuilder).
class NameIds {
 public:
  int64_t Id(std::string_view name);
  const std::deque<std::string>& names() const { return names_; }  // id i+1 = names_[i]

 private:
  std::unordered_map<std::string_view, int64_t> ids_;  // views into names_ (a deque: stable)
  std::deque<std::string> names_;
};

class PlaneWriter;

// Encodes one XEvent's stats; stat names are interned in the plane's stat metadata.
class StatsEncoder {
 public:
  StatsEncoder(PlaneWriter* plane, Encoder* out, uint32_t field) : plane_(plane), out_(out), field_(field) {}
  // By stat metadata id (from PlaneWriter::StatId, for hot loops) or by name.
  StatsEncoder& Int(int64_t stat_id, int64_t v);
  StatsEncoder& Uint(int64_t stat_id, uint64_t v);
  StatsEncoder& Double(int64_t stat_id, double v);
  StatsEncoder& Str(int64_t stat_id, std::string_view v);
  // ref_value: `value_id` is the stat metadata id whose name is the string (as CUPTI does).
  StatsEncoder& RefId(int64_t stat_id, int64_t value_id);
  StatsEncoder& Int(std::string_view name, int64_t v);
  StatsEncoder& Uint(std::string_view name, uint64_t v);
  StatsEncoder& Double(std::string_view name, double v);
  StatsEncoder& Str(std::string_view name, std::string_view v);
  StatsEncoder& Ref(std::string_view name, std::string_view v);

 private:
  void Emit(int64_t stat_id, uint32_t value_field, uint64_t v);
  PlaneWriter* plane_;
  Encoder* out_;
  uint32_t field_;
  Encoder stat_;
};

// Streams one XPlane: events are encoded one at a time and spilled to a
// temporary file in 64 MB pieces; Finish() writes the length-prefixed plane
// (as XSpace field 1) to `out`, followed by its metadata maps.
class PlaneWriter {
 public:
  // Encoded lines beyond `spill_bytes` go to a temporary file.
  PlaneWriter(int64_t id, std::string_view name, uint64_t spill_bytes = uint64_t{64} << 20);
  ~PlaneWriter();
  PlaneWriter(const PlaneWriter&) = delete;
  PlaneWriter& operator=(const PlaneWriter&) = delete;

  NameIds& event_names() { return event_names_; }
  NameIds& stat_names() { return stat_names_; }

  // Plane-level stats (device capabilities, profile times).
  StatsEncoder PlaneStats() { return StatsEncoder(this, &plane_stats_, 6); }

  // Writes one XLine whose events `emit()` adds with AddEvent (+ stats).
  // `emit` runs twice and must add the same events both times: the first run
  // only measures the line, so its length prefix can be written before its
  // events stream out (and spill to a temporary file), holding no line in memory.
  template <typename Emit>
  void Line(int64_t id, std::string_view name, int64_t timestamp_ns, int64_t duration_ps, Emit&& emit) {
    Encoder head;
    head.Int(1, id);
    head.Bytes(2, name);
    head.Int(3, timestamp_ns);
    head.Int(9, duration_ps);
    measuring_ = true;
    measured_ = 0;
    emit();
    FlushEvent();
    measuring_ = false;
    const uint64_t events_bytes = measured_;
    lines_.Tag(3, kLen);
    lines_.Varint(head.size() + events_bytes);
    lines_.bytes().append(head.bytes());
    written_ = 0;
    emit();
    FlushEvent();
    if (written_ != events_bytes && spill_error_.empty()) {
      spill_error_ = "line " + std::to_string(id) + " was emitted differently in its two passes";
    }
  }
  StatsEncoder AddEvent(std::string_view name, int64_t offset_ps, int64_t duration_ps);
  StatsEncoder AddEventById(int64_t metadata_id, int64_t offset_ps, int64_t duration_ps);
  int64_t EventId(std::string_view name) { return event_names_.Id(name); }
  int64_t StatId(std::string_view name) { return stat_names_.Id(name); }
  // XEventMetadata.display_name (e.g. the op type of a TF op event).
  void SetDisplayName(int64_t event_id, std::string_view display_name);

  // Writes the plane; returns false on an I/O error (errno-style message in `error`).
  bool Finish(std::ostream& out, std::string& error);

 private:
  void FlushEvent();
  bool Spill(std::string& error);

  int64_t id_;
  std::string name_;
  NameIds event_names_, stat_names_;
  Encoder plane_stats_;
  std::unordered_map<int64_t, std::string> display_names_;
  Encoder event_;  // current event (stats appended by StatsEncoder)
  bool in_event_ = false;
  bool measuring_ = false;
  uint64_t measured_ = 0, written_ = 0;
  Encoder lines_;  // line bytes not yet spilled
  std::FILE* spill_ = nullptr;
  uint64_t spilled_bytes_ = 0;
  uint64_t spill_threshold_;
  std::string spill_error_;
};

// XSpace-level fields written after the planes.
void WriteHostnames(std::ostream& out, const std::vector<std::string>& hostnames);

}  // namespace tbprof::wire
