// Which steps of several hosts are the same steps (xprof StepIntersection).
// Hosts number their steps independently, so steps are matched by time: the
// host whose steps span the shortest time is the chief, every other host's
// step sequence is slid along the chief's to the offset where the steps
// overlap most, and the steps all hosts have in common are kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tbprof {

struct StepSpan {
  uint64_t begin_ps = 0, end_ps = 0;
};

class StepIntersection {
 public:
  // `hosts[h]` is host h's steps in order; at most `max_steps` are kept.
  StepIntersection(uint32_t max_steps, const std::vector<std::vector<StepSpan>>& hosts);

  uint32_t NumSteps() const { return end_chief_idx_ - begin_chief_idx_; }
  uint32_t StepsDropped() const { return steps_dropped_; }
  // The hosts' step ranges overlap nowhere.
  bool EmptyIntersect() const { return empty_intersect_; }
  // Index in host h's steps of the first common step.
  uint32_t FirstStepIndex(size_t host) const;
  size_t ChiefHost() const { return chief_; }
  // Index in the chief's steps of the first common step.
  uint32_t FirstChiefIndex() const { return begin_chief_idx_; }

 private:
  struct Alignment {
    uint32_t begin_subordinate_idx = 0, begin_chief_idx = 0, num_steps = 0;
  };
  std::vector<Alignment> alignment_;
  size_t chief_ = 0;
  uint32_t begin_chief_idx_ = 0, end_chief_idx_ = 0, steps_dropped_ = 0;
  bool empty_intersect_ = false;
};

}  // namespace tbprof
