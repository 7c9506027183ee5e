// A plane's step groups as runs over its event indices. The events of a line
// mostly share their step, so a few runs stand for millions of events: the
// trace keeps groups this way instead of one per event.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace tbprof {

class GroupRuns {
 public:
  // Events from `first_event` on, up to the next call's, take `value`; calls
  // come in increasing `first_event`. A value equal to the run before extends it.
  void Add(uint32_t first_event, int32_t value) {
    if (runs_.empty() || runs_.back().value != value) runs_.push_back(Run{first_event, value});
  }
  // The value of `event`, or `none` before the first run.
  int32_t Find(uint32_t event, int32_t none) const {
    auto after = std::upper_bound(runs_.begin(), runs_.end(), event,
                                  [](uint32_t e, const Run& run) { return e < run.first_event; });
    return after == runs_.begin() ? none : std::prev(after)->value;
  }
  bool empty() const { return runs_.empty(); }
  size_t MemoryBytes() const { return runs_.capacity() * sizeof(Run); }

  // The runs of one value per event.
  template <typename T>
  static GroupRuns Of(const std::vector<T>& per_event) {
    GroupRuns runs;
    for (size_t e = 0; e < per_event.size(); ++e) runs.Add(static_cast<uint32_t>(e), static_cast<int32_t>(per_event[e]));
    runs.runs_.shrink_to_fit();
    return runs;
  }

 private:
  struct Run {
    uint32_t first_event;
    int32_t value;
  };
  std::vector<Run> runs_;
};

}  // namespace tbprof
