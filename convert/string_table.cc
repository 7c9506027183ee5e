#include "convert/string_table.h"

#include <algorithm>
#include <cstring>

namespace tbprof {
namespace {
constexpr size_t kChunkBytes = 1 << 20;
}

StringTable::StringTable() {
  views_.emplace_back();
  index_.emplace(std::string_view(), kNoStr);
}

std::string_view StringTable::Store(std::string_view s) {
  if (s.size() > kChunkBytes / 4) {  // big strings get a chunk of their own
    chunks_.emplace_back(new char[s.size()]);
    std::memcpy(chunks_.back().get(), s.data(), s.size());
    stored_bytes_ += s.size();
    // Keep filling the previous small-string chunk: move the big one behind it.
    if (chunks_.size() >= 2) std::swap(chunks_[chunks_.size() - 1], chunks_[chunks_.size() - 2]);
    const char* p = chunks_.size() >= 2 ? chunks_[chunks_.size() - 2].get() : chunks_.back().get();
    return std::string_view(p, s.size());
  }
  if (chunks_.empty() || chunk_used_ + s.size() > chunk_size_) {
    chunks_.emplace_back(new char[kChunkBytes]);
    chunk_size_ = kChunkBytes;
    chunk_used_ = 0;
  }
  char* dst = chunks_.back().get() + chunk_used_;
  std::memcpy(dst, s.data(), s.size());
  chunk_used_ += s.size();
  stored_bytes_ += s.size();
  return std::string_view(dst, s.size());
}

StrId StringTable::Intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  std::string_view stored = Store(s);
  StrId id = static_cast<StrId>(views_.size());
  views_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

StrId StringTable::Find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? kNoStr : it->second;
}

size_t StringTable::MemoryBytes() const {
  return chunks_.size() * kChunkBytes + views_.capacity() * sizeof(std::string_view) +
         index_.size() * (sizeof(std::string_view) + sizeof(StrId) + 2 * sizeof(void*));
}

}  // namespace tbprof
