#include "convert/analysis/trace_viewer/derived_line.h"

#include <algorithm>

namespace tbprof::derived {

void DerivedLine::ExpandOrAddLevels(const std::vector<uint32_t>& per_level, int64_t begin, int64_t end,
                                    int32_t group, std::span<const int64_t> scopes) {
  if (per_level.empty()) return;
  const bool scoped = scopes.size() == per_level.size();
  for (size_t level = 0; level < per_level.size(); ++level) {
    ExpandOrAddLevel(per_level[level], begin, end, group, scoped ? scopes[level] : kNoScopeRange, level);
  }
  ResetLastEvents(per_level.size());
}

void DerivedLine::ResetLastEvents(size_t level) {
  ShortenStackedEvents(level);
  for (size_t i = level; i < last_.size(); ++i) last_[i] = kNoEvent;
  if (level == 0) {
    for (DerivedLine* d : dependents_) d->ResetLastEvents(0);
  }
}

void DerivedLine::SetStatOfLastEvent(size_t level, const Stat& stat) {
  if (level >= last_.size() || last_[level] == kNoEvent) return;
  PendingEvent& e = events_[last_[level]];
  if (e.extra == 0) {
    extras_.emplace_back();
    e.extra = static_cast<uint32_t>(extras_.size());
  }
  std::vector<Stat>& stats = extras_[e.extra - 1];
  auto same = std::find_if(stats.begin(), stats.end(), [&](const Stat& s) { return s.name == stat.name; });
  if (same != stats.end()) {
    *same = stat;
  } else {
    stats.push_back(stat);
  }
}

void DerivedLine::AddEvent(uint32_t metadata, int64_t begin, int64_t end, int32_t group, std::vector<Stat> stats) {
  PendingEvent e{begin, end, metadata, group};
  if (!stats.empty()) {
    extras_.push_back(std::move(stats));
    e.extra = static_cast<uint32_t>(extras_.size());
  }
  events_.push_back(e);
}

void DerivedLine::ExpandOrAddLevel(uint32_t metadata, int64_t begin, int64_t end, int32_t group, int64_t scope,
                                   size_t level) {
  if (level >= last_.size()) {
    last_.resize(level + 1, kNoEvent);
    last_scope_.resize(level + 1, kNoScopeRange);
  }
  if (last_[level] != kNoEvent) {
    PendingEvent& last = events_[last_[level]];
    const bool same = last.metadata == metadata && last.group == group &&
                      (scope == kNoScopeRange || last_scope_[level] == kNoScopeRange || scope == last_scope_[level]);
    const bool near = growth_ == Growth::kOverAnyGap || group != kNoGroup ||
                      last.end_ps + 2 * (last.end_ps - last.begin_ps) >= begin;
    if (same && near) {
      last.begin_ps = std::min(last.begin_ps, begin);
      last.end_ps = std::max(last.end_ps, end);
      return;
    }
  }
  ResetLastEvents(level);
  last_[level] = events_.size();
  last_scope_[level] = scope;
  events_.push_back(PendingEvent{begin, end, metadata, group});
}

void DerivedLine::ShortenStackedEvents(size_t level) {
  if (level >= last_.size() || last_[level] == kNoEvent) return;
  size_t deepest = level;
  while (deepest + 1 < last_.size() && last_[deepest + 1] != kNoEvent) ++deepest;
  if (deepest == level) return;
  const PendingEvent& top = events_[last_[deepest]];
  const int64_t max_shrink_ns = (top.end_ps - top.begin_ps) / 1000 - 1;
  int64_t shrink_ns = 0;
  bool has_previous = false;
  int64_t previous_begin = 0, previous_end = 0;
  for (size_t i = level; i <= deepest; ++i) {
    PendingEvent& e = events_[last_[i]];
    if (shrink_ns < max_shrink_ns && has_previous && previous_begin == e.begin_ps && previous_end == e.end_ps) {
      ++shrink_ns;
    }
    has_previous = true;
    previous_begin = e.begin_ps;
    previous_end = e.end_ps;
    e.end_ps -= 1000 * shrink_ns;
  }
}

}  // namespace tbprof::derived
