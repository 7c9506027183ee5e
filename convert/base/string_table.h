// Interned strings: each distinct string is stored once in chunked storage and
// named by a 32-bit id. Views stay valid for the table's lifetime.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <functional>
#include <vector>

namespace tbprof {

using StrId = uint32_t;
inline constexpr StrId kNoStr = 0;  // id 0 is always the empty string
inline constexpr uint32_t kNoBlob = 0xffffffffu;

class StringTable {
 public:
  StringTable();
  StringTable(StringTable&&) noexcept = default;
  StringTable& operator=(StringTable&&) noexcept = default;

  StrId Intern(std::string_view s);
  StrId Find(std::string_view s) const;  // kNoStr if absent (or empty)
  std::string_view View(StrId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }
  size_t MemoryBytes() const;

 private:
  std::string_view Store(std::string_view s);

  std::vector<std::unique_ptr<char[]>> chunks_;
  size_t chunk_used_ = 0;
  size_t chunk_size_ = 0;
  // Open addressing over ids (kNoStr marks a free slot), with each string's
  // hash kept beside its id: one flat array, no node per string, and most
  // probes settle without touching the string. The empty string is id 0 and
  // never stored here.
  struct Slot {
    uint32_t hash = 0;
    StrId id = kNoStr;
  };
  static uint32_t Hash(std::string_view s) { return static_cast<uint32_t>(std::hash<std::string_view>{}(s)); }
  void Grow();

  std::vector<std::string_view> views_;
  std::vector<Slot> slots_;
  size_t stored_bytes_ = 0;
};

}  // namespace tbprof
