#include "convert/analysis/launch_stats.h"

#include <algorithm>

namespace tbprof {

// Only the first host plane counts, as xprof finds it; per step, the launches'
// span, count and durations.
LaunchesPerGpu CollectLaunches(const XSpaceModel& space, const schema::StatIds& names, const EventGroups& groups,
                               size_t num_gpus) {
  LaunchesPerGpu launches;
  if (num_gpus == 0 || names.device_id == kNoStr || names.correlation_id == kNoStr || groups.group_names.empty()) {
    return launches;
  }
  for (uint32_t h = 0; h < space.planes.size(); ++h) {
    const XPlaneModel& host = space.planes[h];
    if (space.Str(host.name) != schema::kHostPlane || h >= groups.group_of.size() ||
        groups.group_of[h].size() != host.events.size()) {
      continue;
    }
    launches.resize(num_gpus);
    std::vector<int8_t> api_call(host.event_metadata.size(), -1);  // per metadata: named "cu…"
    for (const LineModel& line : host.lines) {
      if (schema::IsDerivedThreadId(line.id)) continue;
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
        const int32_t group = groups.group_of[h][e];
        if (group == kNoGroup) continue;
        const Event& ev = host.events[e];
        int8_t& api = api_call[ev.metadata];
        if (api < 0) api = space.Str(host.event_metadata[ev.metadata].name).starts_with("cu");
        if (api) continue;
        const Stat* device = nullptr;
        bool correlated = false;
        auto [b, end] = host.StatsOf(e);
        for (const Stat* s = b; s != end; ++s) {
          if (s->name == names.device_id) device = s;
          correlated |= s->name == names.correlation_id;
        }
        if (device == nullptr || !correlated || device->IntValue() < 0 ||
            static_cast<uint64_t>(device->IntValue()) >= num_gpus) {
          continue;
        }
        LaunchGroup& g = launches[device->IntValue()][group];
        const int64_t duration = std::max<int64_t>(ev.duration_ps, 0);
        g.begin_ps = std::min(g.begin_ps, ev.begin_ps);
        g.end_ps = std::max(g.end_ps, ev.begin_ps + duration);
        g.count += 1;
        g.max_ps = std::max<uint64_t>(g.max_ps, duration);
        g.sum_ps += static_cast<double>(duration);
      }
    }
    break;  // the first host plane of that name, as xprof finds it
  }
  return launches;
}

}  // namespace tbprof
