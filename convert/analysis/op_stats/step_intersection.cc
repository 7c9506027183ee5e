#include "convert/analysis/op_stats/step_intersection.h"

#include <algorithm>
#include <limits>

namespace tbprof {
namespace {

uint64_t Overlap(const StepSpan& a, const StepSpan& b) {
  uint64_t begin = std::max(a.begin_ps, b.begin_ps), end = std::min(a.end_ps, b.end_ps);
  return end > begin ? end - begin : 0;
}

struct Candidate {
  uint32_t begin_sub, begin_chief, num;
  double similarity;
};

// Aligns sub[sub_anchor] with chief[chief_anchor] and extends both ways as
// far as both sequences go; the similarity is the summed overlap.
Candidate AlignAt(const std::vector<StepSpan>& sub, uint32_t sub_anchor, const std::vector<StepSpan>& chief,
                  uint32_t chief_anchor) {
  uint32_t before = std::min(sub_anchor, chief_anchor);
  uint32_t after = std::min(static_cast<uint32_t>(sub.size()) - sub_anchor,
                            static_cast<uint32_t>(chief.size()) - chief_anchor);
  Candidate c{sub_anchor - before, chief_anchor - before, before + after, 0};
  for (uint32_t i = 0; i < c.num; ++i) {
    c.similarity += static_cast<double>(Overlap(sub[c.begin_sub + i], chief[c.begin_chief + i]));
  }
  return c;
}

}  // namespace

StepIntersection::StepIntersection(uint32_t max_steps, const std::vector<std::vector<StepSpan>>& hosts) {
  if (hosts.empty()) return;
  // The chief: the host whose steps span the least time (the first of equals).
  uint64_t shortest = std::numeric_limits<uint64_t>::max();
  for (size_t h = 0; h < hosts.size(); ++h) {
    uint64_t lo = std::numeric_limits<uint64_t>::max(), hi = 0;
    for (const StepSpan& s : hosts[h]) {
      lo = std::min(lo, s.begin_ps);
      hi = std::max(hi, s.end_ps);
    }
    uint64_t span = lo < hi ? hi - lo : 0;
    if (span < shortest) {
      shortest = span;
      chief_ = h;
    }
  }
  const std::vector<StepSpan>& chief = hosts[chief_];
  alignment_.resize(hosts.size());
  uint32_t max_begin = 0, min_end = std::numeric_limits<uint32_t>::max();
  for (size_t h = 0; h < hosts.size(); ++h) {
    const std::vector<StepSpan>& sub = hosts[h];
    Alignment& a = alignment_[h];
    if (h == chief_) {
      a = {0, 0, static_cast<uint32_t>(sub.size())};
    } else if (!sub.empty() && !chief.empty()) {
      // Every offset: the sub's first step against each chief step, then each
      // later sub step against the chief's first; the most overlap wins.
      double best = -1;
      auto consider = [&](const Candidate& c) {
        if (c.similarity <= best) return;
        best = c.similarity;
        a = {c.begin_sub, c.begin_chief, c.num};
      };
      for (uint32_t c = 0; c < chief.size(); ++c) consider(AlignAt(sub, 0, chief, c));
      for (uint32_t s = 1; s < sub.size(); ++s) consider(AlignAt(sub, s, chief, 0));
    }
    max_begin = std::max(max_begin, a.begin_chief_idx);
    min_end = std::min(min_end, a.begin_chief_idx + a.num_steps);
  }
  if (max_begin > min_end) {
    empty_intersect_ = true;
    return;
  }
  begin_chief_idx_ = max_begin;
  uint32_t num = min_end - max_begin;
  steps_dropped_ = num > max_steps ? num - max_steps : 0;
  end_chief_idx_ = max_begin + std::min(num, max_steps);
}

uint32_t StepIntersection::FirstStepIndex(size_t host) const {
  if (host >= alignment_.size()) return 0;
  const Alignment& a = alignment_[host];
  return a.begin_subordinate_idx + (begin_chief_idx_ - a.begin_chief_idx);
}

}  // namespace tbprof
