// A compact per-host index of the trace viewer's events, built once per
// xplane file, that answers "which events are visible in [t0, t1] at
// resolution R" without visiting the events of the whole trace.
//
// Level of detail. Within a row (one line), events are ordered by begin (then
// longest first) and each gets a nesting depth. An event is a *representative
// at bucket width 2^k* when it is the first event of its depth to begin in its
// 2^k-aligned bucket, or lasts at least 2^k ps. That property only gets truer
// as k shrinks, so it is summed up by one number per event,
//   key = max(bitlen(begin XOR begin of the previous event at that depth),
//             bitlen(duration))         (64 for the first event of a depth),
// and the event represents every width 2^k with k < key. The index stores, per
// row, the event ids grouped by key, each group sorted by begin: 4 bytes per
// event. Events of a group below 64 last < 2^key ps, so the ones overlapping a
// window are found by one binary search per group.
//
// A query with resolution R over a span S has res = S/R ps (xprof's
// TraceVisibilityFilter); with 2^k >= res it takes the groups with key > k —
// at most about 2R events per depth and row however dense the trace — and
// then applies xprof's visibility rule (an event narrower than res that begins
// within res of the last visible event at its depth is dropped). Guarantees:
//   - every returned event overlaps the window;
//   - when the window holds at most R events, or R is 0, or the trace has
//     fewer than `min_events_to_filter` events, nothing is filtered: zooming
//     in always reaches every event;
//   - every region holding events shows at least one of them per depth and
//     bucket of width res.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/analysis/trace_viewer/derived_timeline.h"
#include "convert/analysis/trace_viewer/xspace_to_trace_events.h"
#include "convert/base/status.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

// xprof's kDisableStreamingThreshold: smaller traces are never down-sampled.
inline constexpr int64_t kTraceStreamingThreshold = 500000;

struct TraceQuery {
  int64_t start_ps = 0;  // start == end == 0 → the whole trace
  int64_t end_ps = 0;
  double resolution = 8000;  // bins across the window; 0 = no down-sampling
  int64_t min_events_to_filter = kTraceStreamingThreshold;
};

// One event: its row in the layout, its index in the plane, and a number
// unique within the index (the `uid` of event-details requests).
struct TraceHit {
  uint32_t row = 0;
  uint32_t event = 0;
  uint32_t uid = 0;
};

struct TraceQueryResult {
  std::vector<TraceHit> hits;  // row by row, each row in begin order
  bool filtered_by_visibility = false;  // whether this trace is down-sampled at all
  int64_t resolution_ps = 0;           // narrowest distinguishable duration used (0: none)
  int64_t window_begin_ps = 0, window_end_ps = 0;
  // Not OK when the calling thread's memory grant refused room for more hits
  // (or for the candidates they are chosen from): `hits` is then partial.
  Status status;
};

// An event a query may show: its span (end = begin + duration, at least
// begin), its position in the index (the hit's uid) and its key group.
struct TraceCandidate {
  int64_t begin = 0, end = 0;
  uint32_t pos = 0;
  uint32_t key = 0;
};
// The order the visibility rule reads a row's candidates in: by begin, the
// longer first, then by position. A total order, so any subset of a sorted
// row is sorted too.
bool ShownBefore(const TraceCandidate& a, const TraceCandidate& b);
// The lowest key group a query whose narrowest distinguishable duration is
// `res_ps` leaves out (groups above it are taken); -1 when every event is.
int MinKeyOfResolution(int64_t res_ps);

// xprof's visibility rule (TraceViewerVisibility::VisibleAtResolution, flows
// aside) at `res_ps` (0: every candidate shown) over one row's candidates in
// ShownBefore order: an event narrower than res_ps that begins within res_ps
// of the last shown event at its depth is left out. `shown(c)` takes each
// one kept and returns false to stop; `last_end` is scratch.
template <typename Shown>
void ForEachVisible(const std::vector<TraceCandidate>& cands, int64_t res_ps, std::vector<int64_t>& last_end,
                    Shown&& shown) {
  last_end.clear();
  for (const TraceCandidate& c : cands) {
    if (res_ps > 0) {
      bool visible = c.end - c.begin >= res_ps;
      size_t depth = 0;
      while (depth < last_end.size() && last_end[depth] > c.begin) ++depth;
      if (!visible) visible = depth >= last_end.size() || c.begin - last_end[depth] >= res_ps;
      if (!visible) continue;
      last_end.resize(depth);
      last_end.push_back(c.end);
    }
    if (!shown(c)) return;
  }
}

class TraceIndex {
 public:
  // `groups`: as for GenerateDerivedTimelines.
  static std::unique_ptr<TraceIndex> Build(std::shared_ptr<const XSpaceModel> space,
                                           std::shared_ptr<const EventGroups>* groups = nullptr);

  const XSpaceModel& space() const { return *space_; }
  // The derived timelines the index shows besides the file's lines.
  const DerivedTimelines& derived() const { return *derived_; }
  const TraceLayout& layout() const { return layout_; }
  const TraceEventRenderer& renderer() const { return *renderer_; }
  int64_t num_events() const { return static_cast<int64_t>(order_.size()); }
  // The event at position `pos` of the index (a candidate's), in its row's plane.
  uint32_t EventAt(uint32_t pos) const { return order_[pos]; }
  // Earliest begin and latest end of all indexed events (0, 0 when empty).
  int64_t min_ps() const { return min_ps_; }
  int64_t max_ps() const { return max_ps_; }

  TraceQueryResult Query(const TraceQuery& query) const;
  // Row `row`'s candidates of the key groups above `min_key` over the whole
  // trace, in ShownBefore order: what Query reads of that row for a whole-trace
  // query at that key (a trace's first picture kept apart, trace_preview.h).
  std::vector<TraceCandidate> WholeTraceCandidates(size_t row, int min_key) const;

  // Events whose shown or full name starts with `prefix`, ignoring ASCII case
  // (with `search_metadata`, also those with a string stat value starting with
  // it), over the whole trace, at most `max_hits` (`*truncated` says whether
  // more matched).
  std::vector<TraceHit> Search(std::string_view prefix, bool search_metadata, size_t max_hits,
                               bool* truncated) const;

  // The event named `name` that begins within `tolerance_ps` of `begin_ps`
  // (and, if duration_ps >= 0, lasts duration_ps within the tolerance);
  // `uid` >= 0 is tried first. The closest match wins.
  std::optional<TraceHit> FindEvent(std::string_view name, int64_t begin_ps, int64_t duration_ps,
                                    int64_t tolerance_ps, int64_t uid) const;

  // Heap bytes held by the index itself (not the model it points into).
  size_t MemoryBytes() const;

  // Where Build's time went: the step grouping (0 when it was given), the
  // derived lines, and indexing the rows.
  struct BuildTimes {
    double grouping_ms = 0, derivation_ms = 0, indexing_ms = 0;
  };
  const BuildTimes& build_times() const { return build_times_; }

 private:
  static constexpr int kGroups = 65;  // keys 0..64
  TraceIndex() = default;
  const std::vector<Event>& EventsOf(size_t row) const { return renderer_->Plane(layout_.rows[row]).events; }
  const Event& EventOf(uint32_t row, uint32_t event) const { return EventsOf(row)[event]; }
  // [first, last) positions in order_ of group `key` of `row`.
  std::pair<uint32_t, uint32_t> Group(size_t row, int key) const {
    size_t i = row * kGroups + key;
    return {group_offsets_[i], group_offsets_[i + 1]};
  }
  // First position in [first, last) whose event begins at or after `t`.
  uint32_t LowerBound(size_t row, uint32_t first, uint32_t last, int64_t t) const;
  // Appends row `row`'s events of the groups above `min_key` that overlap
  // [t0, t1] to `cands`, then sorts them ShownBefore; `room(cands)` is asked
  // before `cands` grows, and false from it stops (false returned).
  template <typename Room>
  bool CollectRow(size_t row, int min_key, int64_t t0, int64_t t1, std::vector<TraceCandidate>& cands,
                  Room&& room) const;

  std::shared_ptr<const XSpaceModel> space_;
  std::unique_ptr<DerivedTimelines> derived_;  // the GPU planes' derived lines
  TraceLayout layout_;
  std::unique_ptr<TraceEventRenderer> renderer_;
  std::vector<uint32_t> order_;          // event indices, by row, then key, then begin
  std::vector<uint32_t> group_offsets_;  // rows·kGroups + 1 offsets into order_
  // Per row: whether an event may be shown under a step name rather than its
  // metadata's (Search then reads each event's stats).
  std::vector<uint8_t> row_names_steps_;
  int64_t min_ps_ = 0, max_ps_ = 0;
  BuildTimes build_times_;
};

}  // namespace tbprof
