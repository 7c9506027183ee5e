#include "convert/analysis/trace_viewer/trace_index.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>

#include "convert/base/cancellation.h"
#include "convert/base/huge_pages.h"
#include "convert/base/memory_grant.h"
#include "convert/base/run_both.h"
#include "convert/base/strings.h"
#include "convert/model/schema.h"

namespace tbprof {
namespace {

int BitLength(uint64_t v) { return 64 - std::countl_zero(v); }

// begin - 2^key + 1, saturating: the earliest begin of a key-group event that
// can still reach `begin` (such events last less than 2^key ps).
int64_t EarliestOverlappingBegin(int64_t begin, int key) {
  if (key >= 62) return std::numeric_limits<int64_t>::min();
  const int64_t reach = (int64_t{1} << key) - 1;
  return begin < std::numeric_limits<int64_t>::min() + reach ? std::numeric_limits<int64_t>::min() : begin - reach;
}

// Whether a string step_name stat names one of the line's events (the stats
// of a line's events are one contiguous run).
bool LineNamesSteps(const XPlaneModel& plane, const LineModel& line, StrId step_name) {
  if (step_name == kNoStr || line.num_events == 0) return false;
  const uint32_t end_event = line.first_event + line.num_events;
  const Stat* first = plane.event_stats.data() + plane.events[line.first_event].first_stat;
  const Stat* last = plane.event_stats.data() +
                     (end_event < plane.events.size() ? plane.events[end_event].first_stat : plane.event_stats.size());
  if (std::any_of(first, last, [&](const Stat& s) { return s.name == step_name && s.kind == StatKind::kStr; })) {
    return true;
  }
  std::vector<bool> seen(plane.event_metadata.size());
  for (uint32_t e = line.first_event; e < end_event; ++e) {
    const uint32_t md = plane.events[e].metadata;
    if (seen[md]) continue;
    seen[md] = true;
    auto [b, end] = plane.MetadataStatsOf(md);
    if (std::any_of(b, end, [&](const Stat& s) { return s.name == step_name && s.kind == StatKind::kStr; })) return true;
  }
  return false;
}

}  // namespace

std::unique_ptr<TraceIndex> TraceIndex::Build(std::shared_ptr<const XSpaceModel> space,
                                              std::shared_ptr<const EventGroups>* groups) {
  std::unique_ptr<TraceIndex> index(new TraceIndex());
  index->space_ = std::move(space);
  const XSpaceModel& s = *index->space_;
  auto since_ms = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  };
  const auto start = std::chrono::steady_clock::now();
  index->derived_ = std::make_unique<DerivedTimelines>(GenerateDerivedTimelines(s, groups));
  index->build_times_.grouping_ms = index->derived_->grouping_ms;
  index->build_times_.derivation_ms = since_ms(start) - index->derived_->grouping_ms;
  const auto indexing_start = std::chrono::steady_clock::now();
  index->layout_ = BuildTraceLayout(s, index->derived_.get());
  index->renderer_ = std::make_unique<TraceEventRenderer>(s, index->derived_.get());
  const TraceEventRenderer& renderer = *index->renderer_;
  const std::vector<TraceRow>& rows = index->layout_.rows;

  size_t total = 0;
  for (const TraceRow& row : rows) total += renderer.Plane(row).lines[row.line].num_events;
  index->group_offsets_.assign(rows.size() * kGroups + 1, 0);
  // The file's events are searched by name event by event when the file names
  // steps at all; a derived line only when one of its events does.
  index->row_names_steps_.assign(rows.size(), s.Find(schema::kStepName) != kNoStr);
  const StrId derived_step_name = index->derived_->space.Find(schema::kStepName);

  // Rows are independent: the first ones (about half the events) are indexed
  // into `head` on this thread, the rest into `tail` on a second one; order_
  // then takes both, the tail's offsets moved behind the head, at its exact
  // size (hidden events take no room).
  size_t split = 0, head_events = 0;
  for (; split < rows.size() && 2 * head_events < total; ++split) {
    head_events += renderer.Plane(rows[split]).lines[rows[split].line].num_events;
  }
  struct Part {
    std::vector<uint32_t>* order;
    int64_t min_ps = std::numeric_limits<int64_t>::max(), max_ps = std::numeric_limits<int64_t>::min();
  };
  std::vector<uint32_t> head, tail;
  ReserveLarge(head, head_events);
  ReserveLarge(tail, total - head_events);
  Part head_part{&head}, tail_part{&tail};
  // Group offsets of rows [first, last) relative to the start of part.order.
  auto index_rows = [&](size_t first, size_t last, Part& part) {
    std::vector<uint32_t>& order = *part.order;
    std::vector<uint32_t> ids;
    std::vector<uint8_t> keys;
    std::vector<int64_t> open_ends, last_begin;
    for (size_t r = first; r < last; ++r) {
      if (CancelRequested()) break;  // the caller discards a partial index
      const XPlaneModel& plane = renderer.Plane(rows[r]);
      const LineModel& line = plane.lines[rows[r].line];
      if (rows[r].derived) {
        index->row_names_steps_[r] = LineNamesSteps(plane, line, derived_step_name);
      } else if (index->derived_->file_groups.present) {
        // Roots the grouping named show their step name.
        const std::vector<uint32_t>& roots = index->derived_->file_groups.named_roots[rows[r].plane];
        auto root = std::lower_bound(roots.begin(), roots.end(), line.first_event);
        if (root != roots.end() && *root < line.first_event + line.num_events) index->row_names_steps_[r] = true;
      }
      // Outer events before the ones they enclose; files are normally sorted so.
      auto before = [&](uint32_t a, uint32_t b) { return OuterFirst(plane.events[a], plane.events[b]); };
      uint32_t counts[kGroups] = {};
      open_ends.clear();
      last_begin.clear();
      // The key of the next event in begin order (and its place in the stack of enclosing events).
      auto key_of = [&](const Event& e) {
        const int64_t duration = std::max<int64_t>(e.duration_ps, 0);
        const int64_t end = e.begin_ps + duration;
        part.min_ps = std::min(part.min_ps, e.begin_ps);
        part.max_ps = std::max(part.max_ps, end);
        // Close the enclosing events that ended, or that do not contain this one.
        while (!open_ends.empty() && (open_ends.back() <= e.begin_ps || open_ends.back() < end)) open_ends.pop_back();
        const size_t depth = open_ends.size();
        open_ends.push_back(end);
        int key = 64;
        if (depth < last_begin.size()) {
          key = std::max(BitLength(static_cast<uint64_t>(e.begin_ps) ^ static_cast<uint64_t>(last_begin[depth])),
                         BitLength(static_cast<uint64_t>(duration)));
          last_begin[depth] = e.begin_ps;
        } else {
          last_begin.push_back(e.begin_ps);
        }
        ++counts[key];
        return static_cast<uint8_t>(key);
      };
      // One walk over the line's events while they come sorted; the rest
      // again in sorted order when one does not.
      const std::vector<bool>& hidden = renderer.HiddenMetadata(rows[r]);
      ids.clear();
      keys.clear();
      bool sorted = true;
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
        const Event& event = plane.events[e];
        if (hidden[event.metadata]) continue;
        if (sorted && !ids.empty() && before(e, ids.back())) sorted = false;
        ids.push_back(e);
        if (sorted) keys.push_back(key_of(event));
      }
      if (!sorted) {
        std::stable_sort(ids.begin(), ids.end(), before);
        std::fill(std::begin(counts), std::end(counts), 0);
        open_ends.clear();
        last_begin.clear();
        keys.clear();
        for (uint32_t e : ids) keys.push_back(key_of(plane.events[e]));
      }
      // Counting sort by key keeps each group in begin order.
      uint32_t next[kGroups];
      uint32_t at = static_cast<uint32_t>(order.size());
      for (int k = 0; k < kGroups; ++k) {
        index->group_offsets_[r * kGroups + k] = at;
        next[k] = at;
        at += counts[k];
      }
      order.resize(at);
      for (size_t i = 0; i < ids.size(); ++i) order[next[keys[i]]++] = ids[i];
    }
  };
  RunBoth([&] { index_rows(0, split, head_part); }, [&] { index_rows(split, rows.size(), tail_part); });
  const uint32_t tail_base = static_cast<uint32_t>(head.size());
  for (size_t i = split * kGroups; i < rows.size() * kGroups; ++i) index->group_offsets_[i] += tail_base;
  ReserveLarge(index->order_, head.size() + tail.size());
  index->order_.insert(index->order_.end(), head.begin(), head.end());
  std::vector<uint32_t>().swap(head);
  index->order_.insert(index->order_.end(), tail.begin(), tail.end());
  const int64_t min_ps = std::min(head_part.min_ps, tail_part.min_ps);
  const int64_t max_ps = std::max(head_part.max_ps, tail_part.max_ps);
  index->group_offsets_[rows.size() * kGroups] = static_cast<uint32_t>(index->order_.size());
  if (!index->order_.empty()) {
    index->min_ps_ = min_ps;
    index->max_ps_ = max_ps;
  }
  index->build_times_.indexing_ms = since_ms(indexing_start);
  return index;
}

uint32_t TraceIndex::LowerBound(size_t row, uint32_t first, uint32_t last, int64_t t) const {
  const std::vector<Event>& events = EventsOf(row);
  auto it = std::partition_point(order_.begin() + first, order_.begin() + last,
                                 [&](uint32_t e) { return events[e].begin_ps < t; });
  return static_cast<uint32_t>(it - order_.begin());
}

bool ShownBefore(const TraceCandidate& a, const TraceCandidate& b) {
  if (a.begin != b.begin) return a.begin < b.begin;
  return a.end != b.end ? a.end > b.end : a.pos < b.pos;
}

int MinKeyOfResolution(int64_t res_ps) { return res_ps <= 0 ? -1 : BitLength(static_cast<uint64_t>(res_ps - 1)); }

template <typename Room>
bool TraceIndex::CollectRow(size_t row, int min_key, int64_t t0, int64_t t1, std::vector<TraceCandidate>& cands,
                            Room&& room) const {
  const std::vector<Event>& events = EventsOf(row);
  for (int g = min_key + 1; g < kGroups; ++g) {
    auto [first, last] = Group(row, g);
    if (first == last) continue;
    for (uint32_t p = LowerBound(row, first, last, EarliestOverlappingBegin(t0, g)); p < last; ++p) {
      const Event& e = events[order_[p]];
      if (e.begin_ps > t1) break;
      const int64_t end = e.begin_ps + std::max<int64_t>(e.duration_ps, 0);
      if (end < t0) continue;
      if (cands.size() == cands.capacity() && !room(cands)) return false;
      cands.push_back(TraceCandidate{e.begin_ps, end, p, static_cast<uint32_t>(g)});
    }
  }
  std::sort(cands.begin(), cands.end(), ShownBefore);
  return true;
}

std::vector<TraceCandidate> TraceIndex::WholeTraceCandidates(size_t row, int min_key) const {
  std::vector<TraceCandidate> cands;
  CollectRow(row, min_key, min_ps_, max_ps_, cands, [](auto& v) {
    v.reserve(std::max<size_t>(v.capacity() * 2, 1024));
    return true;
  });
  return cands;
}

TraceQueryResult TraceIndex::Query(const TraceQuery& query) const {
  TraceQueryResult result;
  // Window (TraceVisibilityFilter::SetUp): clamp to the trace, 0,0 = all.
  int64_t t0 = query.start_ps, t1 = query.end_ps;
  if (t0 < min_ps_) t0 = min_ps_;
  if (t1 == 0 || t1 > max_ps_) t1 = max_ps_;
  if (t1 < t0) t1 = t0;
  result.window_begin_ps = t0;
  result.window_end_ps = t1;
  const size_t num_rows = layout_.rows.size();

  result.filtered_by_visibility = num_events() >= query.min_events_to_filter && query.resolution > 0;
  int64_t res = 0;
  if (result.filtered_by_visibility && t1 > t0) {
    res = std::llround(static_cast<double>(t1 - t0) / query.resolution);
  }
  if (res > 0) {
    // A window holding at most `resolution` events is returned whole. The
    // count stops as soon as it passes the limit; besides the counted events
    // it visits only the few per group and depth that end just before t0.
    const double limit = query.resolution;
    double count = 0;
    for (size_t r = 0; r < num_rows && count <= limit; ++r) {
      const std::vector<Event>& events = EventsOf(r);
      for (int g = 0; g < kGroups && count <= limit; ++g) {
        auto [first, last] = Group(r, g);
        for (uint32_t p = LowerBound(r, first, last, EarliestOverlappingBegin(t0, g)); p < last && count <= limit;
             ++p) {
          const Event& e = events[order_[p]];
          if (e.begin_ps > t1) break;
          count += e.begin_ps + std::max<int64_t>(e.duration_ps, 0) >= t0;
        }
      }
    }
    if (count <= limit) res = 0;
  }
  result.resolution_ps = res;
  // Groups with key > min_key represent bucket width 2^min_key >= res.
  const int min_key = MinKeyOfResolution(res);

  // The candidates and the hits grow in claimed steps: a window of 25M
  // events in one row holds a gigabyte of them. The hits' claim stays with
  // the caller's request, which holds them; the candidates' goes with them.
  std::vector<TraceCandidate> cands;
  uint64_t cands_claimed = 0, hits_claimed = 0;
  auto room = [&](auto& v, uint64_t& claimed) {
    if (v.size() < v.capacity()) return true;
    const size_t capacity = std::max<size_t>(v.capacity() * 2, 1024);
    const uint64_t bytes = capacity * sizeof(v[0]);
    result.status = ClaimMemory(bytes, "trace viewer: the events of this window");
    if (!result.status.ok()) return false;
    v.reserve(capacity);
    ReleaseMemory(claimed);
    claimed = bytes;
    return true;
  };
  std::vector<int64_t> last_end;
  for (size_t r = 0; r < num_rows && result.status.ok(); ++r) {
    cands.clear();
    // A refused claim ends the query: later groups would only ask again.
    if (!CollectRow(r, min_key, t0, t1, cands, [&](auto& v) { return room(v, cands_claimed); })) break;
    ForEachVisible(cands, res, last_end, [&](const TraceCandidate& c) {
      if (!room(result.hits, hits_claimed)) return false;
      result.hits.push_back(TraceHit{static_cast<uint32_t>(r), order_[c.pos], c.pos});
      return true;
    });
  }
  ReleaseMemory(cands_claimed);
  return result;
}

std::vector<TraceHit> TraceIndex::Search(std::string_view prefix, bool search_metadata, size_t max_hits,
                                         bool* truncated) const {
  const std::string lower = AsciiLowered(prefix);
  // Event metadata whose names match, per plane of the file ([0]) and of the
  // derived lines ([1]), and whether any of a plane's does.
  const XSpaceModel* spaces[2] = {space_.get(), &derived_->space};
  std::vector<std::vector<bool>> match[2];
  std::vector<bool> plane_matches[2];
  for (int k = 0; k < 2; ++k) {
    const XSpaceModel& s = *spaces[k];
    match[k].resize(s.planes.size());
    plane_matches[k].resize(s.planes.size());
    for (size_t p = 0; p < s.planes.size(); ++p) {
      const XPlaneModel& plane = s.planes[p];
      match[k][p].resize(plane.event_metadata.size());
      for (size_t m = 0; m < plane.event_metadata.size(); ++m) {
        const EventMetadata& md = plane.event_metadata[m];
        match[k][p][m] =
            StartsWithIgnoringAsciiCase(s.Str(md.name), lower) || StartsWithIgnoringAsciiCase(s.Str(md.display_name), lower);
        if (match[k][p][m]) plane_matches[k][p] = true;
      }
    }
  }
  std::vector<TraceHit> hits;
  *truncated = false;
  for (size_t r = 0; r < layout_.rows.size(); ++r) {
    const TraceRow& row = layout_.rows[r];
    const bool names_steps = row_names_steps_[r];
    // A row whose events can match neither by metadata nor by a step name nor by a stat.
    if (!plane_matches[row.derived][row.plane] && !names_steps && !search_metadata) continue;
    const XSpaceModel& s = *spaces[row.derived];
    const XPlaneModel& plane = renderer_->Plane(row);
    const std::vector<bool>& row_match = match[row.derived][row.plane];
    const size_t row_start = hits.size();
    auto [first, unused] = Group(r, 0);
    auto [unused2, last] = Group(r, kGroups - 1);
    (void)unused;
    (void)unused2;
    for (uint32_t p = first; p < last; ++p) {
      const uint32_t e = order_[p];
      bool hit = row_match[plane.events[e].metadata];
      if (!hit && names_steps) hit = StartsWithIgnoringAsciiCase(renderer_->Name(row, e), lower);
      if (!hit && search_metadata) {
        auto [b, end] = plane.StatsOf(e);
        hit = std::any_of(b, end, [&](const Stat& st) {
          return st.kind == StatKind::kStr && StartsWithIgnoringAsciiCase(s.Str(st.str), lower);
        });
      }
      if (!hit) continue;
      if (hits.size() >= max_hits) {
        *truncated = true;
        break;
      }
      hits.push_back(TraceHit{static_cast<uint32_t>(r), e, p});
    }
    std::sort(hits.begin() + row_start, hits.end(), [&](const TraceHit& a, const TraceHit& b) {
      return plane.events[a.event].begin_ps < plane.events[b.event].begin_ps;
    });
    if (*truncated) break;
  }
  return hits;
}

std::optional<TraceHit> TraceIndex::FindEvent(std::string_view name, int64_t begin_ps, int64_t duration_ps,
                                              int64_t tolerance_ps, int64_t uid) const {
  auto row_of = [&](uint32_t pos) {
    auto it = std::upper_bound(group_offsets_.begin(), group_offsets_.end(), pos);
    return static_cast<uint32_t>((it - group_offsets_.begin() - 1) / kGroups);
  };
  auto matches = [&](uint32_t row, uint32_t e, int64_t tol) {
    const Event& ev = EventOf(row, e);
    if (renderer_->Name(layout_.rows[row], e) != name) return false;
    if (std::llabs(ev.begin_ps - begin_ps) > tol) return false;
    return duration_ps < 0 || std::llabs(std::max<int64_t>(ev.duration_ps, 0) - duration_ps) <= tol;
  };
  if (uid >= 0 && uid < num_events()) {
    const uint32_t pos = static_cast<uint32_t>(uid);
    const uint32_t row = row_of(pos);
    // The uid names the event; the name guards against a stale uid.
    if (matches(row, order_[pos], std::numeric_limits<int64_t>::max() / 2)) return TraceHit{row, order_[pos], pos};
  }
  std::optional<TraceHit> best;
  int64_t best_distance = std::numeric_limits<int64_t>::max();
  for (size_t r = 0; r < layout_.rows.size(); ++r) {
    for (int g = 0; g < kGroups; ++g) {
      auto [first, last] = Group(r, g);
      for (uint32_t p = LowerBound(r, first, last, begin_ps - tolerance_ps); p < last; ++p) {
        const Event& ev = EventOf(static_cast<uint32_t>(r), order_[p]);
        if (ev.begin_ps > begin_ps + tolerance_ps) break;
        if (!matches(static_cast<uint32_t>(r), order_[p], tolerance_ps)) continue;
        const int64_t distance = std::llabs(ev.begin_ps - begin_ps);
        if (distance < best_distance) {
          best_distance = distance;
          best = TraceHit{static_cast<uint32_t>(r), order_[p], p};
        }
      }
    }
  }
  return best;
}

size_t TraceIndex::MemoryBytes() const {
  size_t bytes = sizeof(*this) + order_.capacity() * sizeof(uint32_t) + group_offsets_.capacity() * sizeof(uint32_t) +
                 layout_.rows.capacity() * sizeof(TraceRow) + row_names_steps_.capacity();
  for (const TraceProcess& p : layout_.processes) {
    bytes += sizeof(p) + p.name.capacity();
    for (const TraceThread& t : p.threads) bytes += sizeof(t) + t.name.capacity();
  }
  for (const XPlaneModel& plane : space_->planes) bytes += plane.event_metadata.size() / 8 + 16;  // renderer bitmaps
  bytes += sizeof(DerivedTimelines) + derived_->MemoryBytes();
  return bytes;
}

}  // namespace tbprof
