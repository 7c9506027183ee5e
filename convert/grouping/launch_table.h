// Launch events by correlation id, for linking host kernel launches to the
// device activity that carries the same id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "convert/base/huge_pages.h"

namespace tbprof::grouping {

// Where a launch is: a plane of the grouping and an event of it.
struct EdgeRef {
  uint32_t plane;  // index into the planes being grouped
  uint32_t event;
};

// Launch events by correlation id, the first launch of an id winning. CUPTI
// numbers its calls from a counter, so the ids usually fill a range densely:
// then a slot per id of the range, filled and read almost in order. Otherwise
// open addressing in one allocation, since a large GPU profile has millions
// of launches (a node per entry costs more than the lookups).
class LaunchTable {
 public:
  LaunchTable(size_t count, int64_t min_id, int64_t max_id) {
    const uint64_t range = static_cast<uint64_t>(max_id) - static_cast<uint64_t>(min_id);
    dense_ = count > 0 && range < 2 * count + 64;
    base_ = min_id;
    size_t n = 16;
    if (dense_) {
      n = static_cast<size_t>(range) + 1;
    } else {
      while (n < count + count / 2) n <<= 1;  // at most 2/3 full
    }
    AssignLarge(slots_, n, Slot{0, {kEmpty, 0}});
  }
  void Insert(int64_t id, EdgeRef ref) {
    if (dense_) {
      Slot& s = slots_[static_cast<uint64_t>(id) - static_cast<uint64_t>(base_)];
      if (s.ref.plane == kEmpty) s = {id, ref};
      return;
    }
    for (size_t i = Hash(id);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.ref.plane == kEmpty) {
        s = {id, ref};
        return;
      }
      if (s.id == id) return;
    }
  }
  // A hashed table is far larger than the caches: callers name the slot of an
  // id some lookups ahead so that its line is loaded by the time they get there.
  void Prefetch(int64_t id) const {
    if (!dense_) __builtin_prefetch(&slots_[Hash(id)]);
  }
  const EdgeRef* Find(int64_t id) const {
    if (dense_) {
      const uint64_t at = static_cast<uint64_t>(id) - static_cast<uint64_t>(base_);
      if (at >= slots_.size() || slots_[at].ref.plane == kEmpty) return nullptr;
      return &slots_[at].ref;
    }
    for (size_t i = Hash(id);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (s.ref.plane == kEmpty) return nullptr;
      if (s.id == id) return &s.ref;
    }
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;  // no plane has this index
  struct Slot {
    int64_t id;
    EdgeRef ref;
  };
  size_t Hash(int64_t id) const {
    uint64_t x = static_cast<uint64_t>(id) * 0x9e3779b97f4a7c15ull;
    return static_cast<size_t>(x ^ (x >> 29)) & (slots_.size() - 1);
  }
  bool dense_ = false;
  int64_t base_ = 0;
  std::vector<Slot> slots_;
};

}  // namespace tbprof::grouping
