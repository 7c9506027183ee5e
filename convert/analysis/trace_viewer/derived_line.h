// One derived timeline under construction (xprof's DerivedXLineBuilder): per
// nesting depth the last event grows while the source events repeat it, and
// is replaced when they do not. Used by derived_timeline.cc for every kind of
// derived line (steps, per-stream annotation lines, the TPU framework lines).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "convert/grouping/group_events.h"
#include "convert/model/xspace_model.h"

namespace tbprof::derived {

// A source event without a `scope_range_id` stat.
inline constexpr int64_t kNoScopeRange = INT64_MIN;

struct PendingEvent {
  int64_t begin_ps = 0, end_ps = 0;
  uint32_t metadata = 0;
  int32_t group = kNoGroup;
  uint32_t extra = 0;  // 1 + index into the line's extra stats; 0: none
};
// Millions of these are pending at once on a big GPU profile.
static_assert(sizeof(PendingEvent) == 32);

// When a repeat grows the last event: on GPU planes over any gap; on other
// planes, if neither event has a group, only when the new one begins within
// twice the last one's length after its end.
enum class Growth { kOverAnyGap, kOverShortGaps };

class DerivedLine {
 public:
  explicit DerivedLine(Growth growth, std::vector<DerivedLine*> dependents = {})
      : growth_(growth), dependents_(std::move(dependents)) {}

  std::vector<PendingEvent>& events() { return events_; }
  // Stats beyond group_id, per event that has some (PendingEvent::extra).
  std::vector<std::vector<Stat>>& extras() { return extras_; }

  void ExpandOrAdd(uint32_t metadata, int64_t begin, int64_t end, int32_t group, int64_t scope = kNoScopeRange) {
    ExpandOrAddLevel(metadata, begin, end, group, scope, 0);
  }
  // One event per depth (outermost first); deeper events of the previous call
  // end. `scopes`, when as long as `per_level`, are the depths' scope range ids.
  void ExpandOrAddLevels(const std::vector<uint32_t>& per_level, int64_t begin, int64_t end, int32_t group,
                         std::span<const int64_t> scopes = {});
  // Events at `level` and deeper can no longer grow; at level 0 neither can
  // the dependent lines' events.
  void ResetLastEvents(size_t level);
  // Sets (replacing one of the same name) a stat of the open event at `level`.
  void SetStatOfLastEvent(size_t level, const Stat& stat);
  // Appends an event that never grows, with `stats` beyond its group.
  void AddEvent(uint32_t metadata, int64_t begin, int64_t end, int32_t group, std::vector<Stat> stats);

 private:
  void ExpandOrAddLevel(uint32_t metadata, int64_t begin, int64_t end, int32_t group, int64_t scope, size_t level);
  // Events stacked from `level` down with identical spans would be drawn in an
  // arbitrary order: each one deeper ends 1 ns earlier than the one above it,
  // as long as the innermost keeps at least 1 ns.
  void ShortenStackedEvents(size_t level);

  static constexpr size_t kNoEvent = SIZE_MAX;
  Growth growth_;
  std::vector<PendingEvent> events_;
  std::vector<std::vector<Stat>> extras_;
  std::vector<size_t> last_;  // per depth: index into events_, or kNoEvent
  // Per depth: the open event's scope range (its first source event's, if any);
  // kept here, not per event, since only the open events are compared.
  std::vector<int64_t> last_scope_;
  std::vector<DerivedLine*> dependents_;
};

}  // namespace tbprof::derived
