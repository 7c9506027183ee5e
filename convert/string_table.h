// Interned strings: each distinct string is stored once in chunked storage and
// named by a 32-bit id. Views stay valid for the table's lifetime.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
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
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, StrId> index_;
  size_t stored_bytes_ = 0;
};

}  // namespace tbprof
