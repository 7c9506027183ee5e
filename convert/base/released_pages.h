// Handing pages of a large array back to the kernel once they are done with.
//
// A step that turns one large array into another (pending events into a
// model, a file into events) holds both whole unless the first's pages are
// handed back behind its cursor: then the step's peak is about the larger
// array, not the sum. The pages handed back are private anonymous memory or
// a file mapping: touched again they read as zeros (or the file's bytes), so
// only pages never read again may be handed back.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tbprof {

// Hands back the whole pages of [begin, end); a partial page at either end
// (which the allocator may share with another block) is kept.
void ReleasePagesWithin(const void* begin, const void* end);

// Releases an array's pages behind a cursor moving front to back, in batches
// of 8 MiB (a system call per batch, not per element).
class PagesReleasedBehind {
 public:
  PagesReleasedBehind() = default;
  PagesReleasedBehind(const void* begin, size_t bytes)
      : released_(reinterpret_cast<uintptr_t>(begin)), end_(released_ + bytes) {}
  // Nothing before `p` will be read again.
  void ReleaseBefore(const void* p) {
    const uintptr_t to = std::min(reinterpret_cast<uintptr_t>(p), end_);
    if (to < released_ + kBatch) return;
    ReleasePagesWithin(reinterpret_cast<const void*>(released_), reinterpret_cast<const void*>(to));
    released_ = to - kPageMax;  // the partial page kept is handed back with the next batch
  }

 private:
  static constexpr uintptr_t kBatch = uintptr_t{8} << 20;
  static constexpr uintptr_t kPageMax = uintptr_t{64} << 10;  // the largest base page Linux uses
  uintptr_t released_ = 0, end_ = 0;
};

// v.resize(n) for a vector whose new elements are all overwritten before any
// is read (filled out of order): the default values are written a step at a
// time and each step's pages handed back, so a page is kept only once it is
// written for real. Reserves exactly n.
template <typename T>
void ResizeUnresident(std::vector<T>& v, size_t n) {
  constexpr size_t kStep = (size_t{32} << 20) / sizeof(T);
  if (n <= v.size()) return v.resize(n);
  v.reserve(n);
  while (v.size() < n) {
    const size_t from = v.size();
    v.resize(std::min(n, from + kStep));
    ReleasePagesWithin(v.data() + from, v.data() + v.size());
  }
}

}  // namespace tbprof
