// How busy a device was (xprof DutyCycleTracker): intervals in which it was
// active (an XLA op, a SparseCore op, a GPU kernel) and intervals in which it
// was only present (an XLA module, an off-duty infeed/outfeed op, the span of
// the device's trace). Active time is the union of the active intervals, the
// duration runs from the first interval's begin to the last one's end, and the
// device is idle for the rest.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace tbprof {

class DutyCycleTracker {
 public:
  void AddInterval(int64_t begin_ps, int64_t end_ps, bool active);
  // Busy time already merged elsewhere (a GPU's kernels, merged in order as
  // they are read, so that millions of them are never stored): `active_ps`
  // within [first_ps, last_ps], overlapping no other interval of this tracker.
  void AddMergedActive(uint64_t active_ps, int64_t first_ps, int64_t last_ps);
  // Merges another device's intervals into this one (cores of one chip).
  void Union(const DutyCycleTracker& other);

  bool empty() const { return first_ps_ > last_ps_; }
  uint64_t ActivePs() const;
  uint64_t DurationPs() const { return empty() ? 0 : static_cast<uint64_t>(last_ps_ - first_ps_); }
  uint64_t IdlePs() const { return DurationPs() - ActivePs(); }

 private:
  std::vector<std::pair<int64_t, int64_t>> active_;
  uint64_t merged_active_ps_ = 0;
  int64_t first_ps_ = INT64_MAX, last_ps_ = INT64_MIN;
};

}  // namespace tbprof
