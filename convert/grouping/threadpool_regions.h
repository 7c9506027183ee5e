// The regions in which a thread pool ran a closure, as xprof's preprocessing
// adds them before grouping (TSL's ThreadpoolLineMutator).
//
// TSL's thread pool listener writes three instants on host threads:
//   - "ThreadpoolListener::Record" where a closure is scheduled, with the
//     producer context (`_pt` = Threadpool Event, `_p` = the closure's id);
//   - "ThreadpoolListener::StartRegion" on the worker thread when the closure
//     starts, with the consumer context (`_ct`, `_c` = the same id);
//   - "ThreadpoolListener::StopRegion" when it returns.
// xprof turns each StartRegion/StopRegion pair into one event
// "ThreadpoolListener::Region" on that line, from the start's timestamp to the
// stop's, carrying the consumer context. The work the closure did nests in it,
// so grouping links that work to the step that scheduled the closure.
//
// Pairing follows xprof's walk over the line's events in stored order: a
// StartRegion with a `_c` stat opens (or reopens) the region; every later
// StopRegion closes one from the latest such start (the start is not
// forgotten, so two stops after one start make two regions). Planes without
// both marker names get none.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "convert/model/event_nesting.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

inline constexpr std::string_view kThreadpoolRecordName = "ThreadpoolListener::Record";
inline constexpr std::string_view kThreadpoolStartRegionName = "ThreadpoolListener::StartRegion";
inline constexpr std::string_view kThreadpoolStopRegionName = "ThreadpoolListener::StopRegion";
inline constexpr std::string_view kThreadpoolRegionName = "ThreadpoolListener::Region";
// TSL's ContextType value of the thread pool's links (Threadpool Event).
inline constexpr int64_t kThreadpoolEventContextType = 15;

struct ThreadpoolRegion {
  uint32_t line = 0;  // index into the plane's lines
  int64_t begin_ps = 0, end_ps = 0;
  int64_t consumer_id = 0;  // the closure's id (`_c`)
  uint32_t start_event = 0;  // the StartRegion event that opened it
};

// The regions of plane `p`, line by line in line order, each line's in the
// order xprof adds them.
std::vector<ThreadpoolRegion> FindThreadpoolRegions(const XSpaceModel& space, const XPlaneModel& p);

// The events of the region's line that it holds directly, as children of the
// region event xprof adds: inside it, and not inside another event that is
// itself inside it. Not the StartRegion that opened it (which carries the link
// itself), nor async events (they nest in nothing). `sorted_line`: the line's
// events in SortedLineEvents order; `parent_of[e]`: event e's innermost
// enclosing event on its line (kNoEnclosingEvent: none); `async_events` sorted.
std::vector<uint32_t> EventsHeldDirectly(const XPlaneModel& p, const ThreadpoolRegion& region,
                                         std::span<const uint32_t> sorted_line, std::span<const uint32_t> parent_of,
                                         std::span<const uint32_t> async_events);

// Whether any plane of `space` can hold regions (cheap: one name lookup).
bool MayHaveThreadpoolRegions(const XSpaceModel& space);

}  // namespace tbprof
