// The byte layout of the payloads a profile's summary carries (its OpStats,
// its trace_analysis sections): integers as LEB128 varints (signed ones
// zigzagged), doubles as their 8 bytes (so what is read back is bit for bit
// what was written), strings and containers prefixed by their length.
//
// The reader never trusts its bytes: a read past the end, a varint too long
// or a count larger than what is left fails the reader for good (every later
// read gives 0 / empty), so a cut-short or garbled payload is an error the
// caller sees at its end, never a crash nor an allocation it did not pay for.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tbprof {

class VarintWriter {
 public:
  void U(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void I(int64_t v) { U((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void B(bool v) { U(v ? 1 : 0); }
  void D(double v) {
    const uint64_t bits = std::bit_cast<uint64_t>(v);
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>(bits >> (8 * i)));
  }
  void S(std::string_view s) {
    U(s.size());
    out_.append(s);
  }
  void OptD(const std::optional<double>& v) {
    B(v.has_value());
    if (v) D(*v);
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class VarintReader {
 public:
  explicit VarintReader(std::string_view in) : rest_(in) {}
  bool ok() const { return ok_; }
  bool done() const { return rest_.empty(); }
  uint64_t U() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (rest_.empty()) return Fail();
      const auto byte = static_cast<uint8_t>(rest_.front());
      rest_.remove_prefix(1);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return v;
    }
    return Fail();
  }
  int64_t I() {
    const uint64_t z = U();
    return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  bool B() {
    const uint64_t v = U();
    if (v > 1) Fail();
    return v == 1;
  }
  double D() {
    if (rest_.size() < 8) return static_cast<double>(Fail());
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits |= static_cast<uint64_t>(static_cast<uint8_t>(rest_[i])) << (8 * i);
    rest_.remove_prefix(8);
    return std::bit_cast<double>(bits);
  }
  std::string S() {
    const uint64_t n = U();
    if (!ok_ || n > rest_.size()) return Fail(), std::string();
    std::string s(rest_.substr(0, n));
    rest_.remove_prefix(n);
    return s;
  }
  // A length-prefixed run of bytes as a view into the input (a nested payload).
  std::string_view View() {
    const uint64_t n = U();
    if (!ok_ || n > rest_.size()) return Fail(), std::string_view();
    const std::string_view v = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return v;
  }
  std::optional<double> OptD() {
    if (!B()) return std::nullopt;
    return D();
  }
  // An integer that must fit the narrower type it is read into.
  uint32_t U32() {
    const uint64_t v = U();
    if (v > UINT32_MAX) Fail();
    return static_cast<uint32_t>(v);
  }
  int Int() {
    const int64_t v = I();
    if (v < INT32_MIN || v > INT32_MAX) Fail();
    return static_cast<int>(v);
  }
  // A value below `end` (an enum's count), else the reader fails.
  uint64_t Below(uint64_t end) {
    const uint64_t v = U();
    if (v >= end) Fail();
    return ok_ ? v : 0;
  }
  // A count of items each taking at least one byte: never more than what is
  // left, so no container grows past the payload's size.
  uint64_t Count() {
    const uint64_t n = U();
    if (!ok_ || n > rest_.size()) return Fail();
    return n;
  }
  uint64_t Fail() {
    ok_ = false;
    rest_ = {};
    return 0;
  }

 private:
  std::string_view rest_;
  bool ok_ = true;
};

// Containers, element by element through `put` / `get`.
template <typename C, typename F>
void PutSeq(VarintWriter& s, const C& c, F put) {
  s.U(c.size());
  for (const auto& e : c) put(s, e);
}
// Reserved up to a bound only: an element may be far larger than the one
// byte a count is checked against, and a garbled count must not allocate.
inline constexpr uint64_t kMaxReservedElements = 4096;
template <typename T, typename F>
void GetVec(VarintReader& s, std::vector<T>& v, F get) {
  const uint64_t n = s.Count();
  v.clear();
  v.reserve(n < kMaxReservedElements ? n : kMaxReservedElements);
  for (uint64_t i = 0; i < n && s.ok(); ++i) v.push_back(get(s));
}
// A map was written in its order, so each key goes at the end: no key
// comparisons down the tree (a pod's summaries hold millions of op names).
template <typename M, typename FK, typename FV>
void GetMap(VarintReader& s, M& m, FK key, FV value) {
  const uint64_t n = s.Count();
  m.clear();
  for (uint64_t i = 0; i < n && s.ok(); ++i) {
    auto k = key(s);
    m.insert_or_assign(m.end(), std::move(k), value(s));
  }
}

}  // namespace tbprof
