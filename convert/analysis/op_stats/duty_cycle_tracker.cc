#include "convert/analysis/op_stats/duty_cycle_tracker.h"

#include <algorithm>

namespace tbprof {

void DutyCycleTracker::AddInterval(int64_t begin_ps, int64_t end_ps, bool active) {
  if (end_ps < begin_ps) return;
  first_ps_ = std::min(first_ps_, begin_ps);
  last_ps_ = std::max(last_ps_, end_ps);
  if (active && end_ps > begin_ps) active_.emplace_back(begin_ps, end_ps);
}

void DutyCycleTracker::AddMergedActive(uint64_t active_ps, int64_t first_ps, int64_t last_ps) {
  if (last_ps < first_ps) return;
  first_ps_ = std::min(first_ps_, first_ps);
  last_ps_ = std::max(last_ps_, last_ps);
  merged_active_ps_ += active_ps;
}

void DutyCycleTracker::Union(const DutyCycleTracker& other) {
  if (other.empty()) return;
  first_ps_ = std::min(first_ps_, other.first_ps_);
  last_ps_ = std::max(last_ps_, other.last_ps_);
  active_.insert(active_.end(), other.active_.begin(), other.active_.end());
  merged_active_ps_ += other.merged_active_ps_;
}

uint64_t DutyCycleTracker::ActivePs() const {
  std::vector<std::pair<int64_t, int64_t>> spans = active_;
  std::sort(spans.begin(), spans.end());
  uint64_t total = merged_active_ps_;
  int64_t open_begin = 0, open_end = INT64_MIN;
  for (const auto& [b, e] : spans) {
    if (b > open_end) {
      if (open_end != INT64_MIN) total += static_cast<uint64_t>(open_end - open_begin);
      open_begin = b;
      open_end = e;
    } else {
      open_end = std::max(open_end, e);
    }
  }
  if (open_end != INT64_MIN) total += static_cast<uint64_t>(open_end - open_begin);
  return total;
}

}  // namespace tbprof
