#include "convert/grouping/threadpool_regions.h"

#include <algorithm>

#include "convert/model/schema.h"

namespace tbprof {

bool MayHaveThreadpoolRegions(const XSpaceModel& space) {
  return space.Find(kThreadpoolStartRegionName) != kNoStr && space.Find(kThreadpoolStopRegionName) != kNoStr;
}

std::vector<ThreadpoolRegion> FindThreadpoolRegions(const XSpaceModel& space, const XPlaneModel& p) {
  std::vector<ThreadpoolRegion> regions;
  const StrId start_name = space.Find(kThreadpoolStartRegionName);
  const StrId stop_name = space.Find(kThreadpoolStopRegionName);
  const StrId consumer_id = space.Find(schema::kConsumerId);
  if (start_name == kNoStr || stop_name == kNoStr) return regions;
  // Per event metadata; a plane lacking either name gets no region.
  enum Role : uint8_t { kOther, kStart, kStop };
  std::vector<uint8_t> role(p.event_metadata.size(), kOther);
  bool has_start = false, has_stop = false;
  for (size_t m = 0; m < p.event_metadata.size(); ++m) {
    if (p.event_metadata[m].name == start_name) {
      role[m] = kStart;
      has_start = true;
    } else if (p.event_metadata[m].name == stop_name) {
      role[m] = kStop;
      has_stop = true;
    }
  }
  if (!has_start || !has_stop) return regions;
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    const LineModel& line = p.lines[l];
    bool open = false;
    ThreadpoolRegion current;
    current.line = l;
    for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const uint8_t r = role[p.events[e].metadata];
      if (r == kStart) {
        const Stat* id = consumer_id == kNoStr ? nullptr : p.FindStat(e, consumer_id);
        if (id == nullptr) continue;
        // xprof keys "no start yet" by a zero timestamp.
        open = p.events[e].begin_ps != 0;
        current.begin_ps = p.events[e].begin_ps;
        current.consumer_id = id->IntValue();
        current.start_event = e;
      } else if (r == kStop && open) {
        current.end_ps = p.events[e].begin_ps;
        regions.push_back(current);
      }
    }
  }
  return regions;
}

std::vector<uint32_t> EventsHeldDirectly(const XPlaneModel& p, const ThreadpoolRegion& region,
                                         std::span<const uint32_t> sorted_line, std::span<const uint32_t> parent_of,
                                         std::span<const uint32_t> async_events) {
  std::vector<uint32_t> held;
  auto inside = [&](uint32_t e) { return p.events[e].begin_ps >= region.begin_ps && p.events[e].end_ps() <= region.end_ps; };
  auto first = std::partition_point(sorted_line.begin(), sorted_line.end(),
                                    [&](uint32_t e) { return p.events[e].begin_ps < region.begin_ps; });
  for (auto it = first; it != sorted_line.end() && p.events[*it].begin_ps <= region.end_ps; ++it) {
    const uint32_t e = *it;
    if (e == region.start_event || !inside(e)) continue;
    if (std::binary_search(async_events.begin(), async_events.end(), e)) continue;
    const uint32_t parent = parent_of[e];
    if (parent != kNoEnclosingEvent && inside(parent)) continue;
    held.push_back(e);
  }
  return held;
}

}  // namespace tbprof
