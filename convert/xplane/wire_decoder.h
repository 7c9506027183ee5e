// Protobuf wire-format decoding for the XSpace reader: varints, tags and
// lengths on inlined fast paths with out-of-line error reporting (the error
// names the source and the byte offset), plus a skim over length-delimited
// fields for the counting pass. Internal to convert/xplane.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "convert/base/json.h"
#include "convert/base/status.h"

namespace tbprof::xplane_detail {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

// Decoding stops at the first error; the message names the source and offset.
class Decoder {
 public:
  Decoder(const uint8_t* base, std::string_view source, void (*on_progress)(void*, const uint8_t*),
          void* progress_ctx)
      : base_(base), source_(source), on_progress_(on_progress), progress_ctx_(progress_ctx) {}

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  // Where the first error was found, from the start of the decoded bytes.
  uint64_t error_offset() const { return error_offset_; }

  // The memory the decoded model needs was refused (see memory_grant.h): the
  // load stops and reports that, not damage.
  [[gnu::noinline, gnu::cold]] void Refuse(const uint8_t* at, Status refusal) {
    if (!failed()) refusal_ = std::move(refusal);
    Fail(at, "the memory to decode it was refused");
  }
  const Status& refusal() const { return refusal_; }

  [[gnu::noinline, gnu::cold]] void Fail(const uint8_t* at, const std::string& what) {
    if (!failed()) {
      error_ = std::string(source_) + ": " + what + " at byte offset " + std::to_string(at - base_);
      error_offset_ = static_cast<uint64_t>(at - base_);
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

  // proto3 string fields must hold UTF-8 (libprotobuf rejects the message
  // otherwise). Checking the names and the space-level strings is cheap and is
  // what tells another message type (e.g. a legacy tool .pb, whose fields 2-4
  // hold binary) apart from an XSpace.
  bool ExpectUtf8(const uint8_t* at, std::string_view s, const char* what) {
    if (IsValidUtf8(s)) return true;
    Fail(at, std::string(what) + " is not valid UTF-8 (not an XSpace protobuf?)");
    return false;
  }

  // A known field with the wrong wire type means this is not an XSpace.
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
  uint64_t error_offset_ = 0;
  Status refusal_;
};

inline const uint8_t* U8(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }

inline bool SkimVarint(const uint8_t*& p, const uint8_t* end, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    uint8_t b = *p++;
    v |= uint64_t{b & 0x7fu} << shift;
    if (b < 0x80) return true;
  }
  return false;
}

// Calls on_field(field, wire_type, value, begin, end) for each field of a
// message: `value` is a varint's value (or a length-delimited field's
// length), [begin, end) a length-delimited field's bytes (empty otherwise).
// Stops quietly at damage: the full decode is what reports it.
template <typename F>
void SkimEveryField(const uint8_t* p, const uint8_t* end, F&& on_field) {
  while (p < end) {
    uint64_t tag, v = 0;
    if (!SkimVarint(p, end, tag)) return;
    const uint8_t* bytes = p;
    const uint8_t* bytes_end = p;
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
        bytes = p;
        bytes_end = p + v;
        p += v;
        break;
      default:
        return;
    }
    on_field(static_cast<uint32_t>(tag >> 3), static_cast<uint32_t>(tag & 7), v, bytes, bytes_end);
  }
}

// Calls on_len(field, begin, end) for each length-delimited field; skips the rest.
template <typename F>
void SkimFields(const uint8_t* p, const uint8_t* end, F&& on_len) {
  SkimEveryField(p, end, [&](uint32_t field, uint32_t wire, uint64_t, const uint8_t* b, const uint8_t* e) {
    if (wire == 2) on_len(field, b, e);
  });
}

}  // namespace tbprof::xplane_detail
