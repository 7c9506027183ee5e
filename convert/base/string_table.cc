#include "convert/base/string_table.h"

#include <algorithm>
#include <cstring>

namespace tbprof {
namespace {
// Chunks grow from 256 bytes to 1 MiB (and the slots from 16): a profile of
// 200,000 devices makes a table per device while it derives their lines, and
// a first chunk of 1 MiB each took gigabytes for a few names apiece.
constexpr size_t kFirstChunkBytes = 256;
constexpr size_t kChunkBytes = 1 << 20;
constexpr size_t kFirstSlots = 16;

// What `chunks` chunks of growing size hold at most (a big string's own chunk
// counted as a full one: MemoryBytes takes the larger of this and the strings).
size_t ChunkBytes(size_t chunks) {
  size_t bytes = 0;
  for (size_t i = 0, size = kFirstChunkBytes; i < chunks; ++i, size = std::min(size * 2, kChunkBytes)) {
    if (size == kChunkBytes) return bytes + (chunks - i) * kChunkBytes;
    bytes += size;
  }
  return bytes;
}

}  // namespace

StringTable::StringTable() : slots_(kFirstSlots) { views_.emplace_back(); }

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
    chunk_size_ = std::max(chunk_size_ == 0 ? kFirstChunkBytes : std::min(chunk_size_ * 2, kChunkBytes), s.size());
    chunks_.emplace_back(new char[chunk_size_]);
    chunk_used_ = 0;
  }
  char* dst = chunks_.back().get() + chunk_used_;
  std::memcpy(dst, s.data(), s.size());
  chunk_used_ += s.size();
  stored_bytes_ += s.size();
  return std::string_view(dst, s.size());
}

StrId StringTable::Intern(std::string_view s) {
  if (s.empty()) return kNoStr;
  const uint32_t h = Hash(s);
  const size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  for (; slots_[i].id != kNoStr; i = (i + 1) & mask) {
    if (slots_[i].hash == h && views_[slots_[i].id] == s) return slots_[i].id;
  }
  StrId id = static_cast<StrId>(views_.size());
  views_.push_back(Store(s));
  slots_[i] = {h, id};
  if (views_.size() * 2 > slots_.size()) Grow();  // at most half full
  return id;
}

void StringTable::Grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.id == kNoStr) continue;
    size_t i = s.hash & mask;
    while (slots_[i].id != kNoStr) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

StrId StringTable::Find(std::string_view s) const {
  if (s.empty()) return kNoStr;
  const uint32_t h = Hash(s);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask; slots_[i].id != kNoStr; i = (i + 1) & mask) {
    if (slots_[i].hash == h && views_[slots_[i].id] == s) return slots_[i].id;
  }
  return kNoStr;
}

size_t StringTable::MemoryBytes() const {
  // A big string's chunk is its own size (Store): count the chunks or the
  // strings, whichever is more.
  return std::max(ChunkBytes(chunks_.size()), stored_bytes_) + views_.capacity() * sizeof(std::string_view) +
         slots_.capacity() * sizeof(Slot);
}

}  // namespace tbprof
