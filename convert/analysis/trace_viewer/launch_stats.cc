#include "convert/analysis/trace_viewer/launch_stats.h"

#include <algorithm>

#include "convert/base/run_both.h"

namespace tbprof {

namespace {

// The launches of host plane `h`'s lines [first, last).
void CollectLaunchesOfLines(const XSpaceModel& space, const schema::StatIds& names, const EventGroups& groups,
                            uint32_t h, size_t first, size_t last, LaunchesPerGpu& launches) {
  const XPlaneModel& host = space.planes[h];
  const size_t num_gpus = launches.size();
  // Per metadata: whether its events are left out unread. xprof leaves out
  // the CUDA API calls ("cu…"); the allocator's events carry no launch stats
  // (TF writes them with allocator figures only) but are most of a training
  // host's events, each with a dozen stats: reading them was most of the pass.
  std::vector<int8_t> skipped(host.event_metadata.size(), -1);
  // A step's launches to one GPU come in runs: the last one's entry is kept.
  LaunchGroup* last_group = nullptr;
  int64_t last_device = -1;
  int32_t last_step = kNoGroup;
  auto add = [&](uint32_t e, int32_t group) {
    const Stat* device = nullptr;
    bool correlated = false;
    auto [b, end] = host.StatsOf(e);
    for (const Stat* s = b; s != end; ++s) {
      if (s->name == names.device_id) device = s;
      correlated |= s->name == names.correlation_id;
    }
    if (device == nullptr || !correlated || device->IntValue() < 0 ||
        static_cast<uint64_t>(device->IntValue()) >= num_gpus) {
      return;
    }
    if (last_group == nullptr || device->IntValue() != last_device || group != last_step) {
      last_device = device->IntValue();
      last_step = group;
      last_group = &launches[static_cast<size_t>(last_device)][group];
    }
    const Event& ev = host.events[e];
    LaunchGroup& g = *last_group;
    const int64_t duration = std::max<int64_t>(ev.duration_ps, 0);
    g.begin_ps = std::min(g.begin_ps, ev.begin_ps);
    g.end_ps = std::max(g.end_ps, ev.begin_ps + duration);
    g.count += 1;
    g.max_ps = std::max<uint64_t>(g.max_ps, duration);
    g.sum_ps += static_cast<double>(duration);
  };
  // The launches' stats lie between the allocator's, a few hundred bytes
  // apart: read one by one, each read waits for memory. The candidates are
  // gathered a batch at a time and their stats fetched ahead, so the waits
  // overlap (the pass took 70 ns per launch, most of it in that first read).
  constexpr size_t kBatch = 32;
  uint32_t batch[kBatch];
  int32_t batch_group[kBatch];
  size_t n = 0;
  auto flush = [&] {
    for (size_t i = 0; i < n; ++i) add(batch[i], batch_group[i]);
    n = 0;
  };
  for (size_t l = first; l < last; ++l) {
    const LineModel& line = host.lines[l];
    if (schema::IsDerivedThreadId(line.id)) continue;
    for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const int32_t group = groups.group_of[h][e];
      if (group == kNoGroup) continue;
      const Event& ev = host.events[e];
      int8_t& skip = skipped[ev.metadata];
      if (skip < 0) {
        const std::string_view name = space.Str(host.event_metadata[ev.metadata].name);
        skip = name.starts_with("cu") || schema::IsAllocatorEventName(name);
      }
      if (skip) continue;
      __builtin_prefetch(host.event_stats.data() + ev.first_stat);
      batch[n] = e;
      batch_group[n] = group;
      if (++n == kBatch) flush();
    }
  }
  flush();
}

}  // namespace

// Only the first host plane counts, as xprof finds it; per step, the launches'
// span, count and durations. A host has millions of events: its lines are
// read in two halves on two threads, whose counts then add up.
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
    size_t split = 0, head_events = 0;
    for (; split < host.lines.size() && 2 * head_events < host.events.size(); ++split) {
      head_events += host.lines[split].num_events;
    }
    launches.resize(num_gpus);
    LaunchesPerGpu tail(num_gpus);
    RunBoth([&] { CollectLaunchesOfLines(space, names, groups, h, 0, split, launches); },
            [&] { CollectLaunchesOfLines(space, names, groups, h, split, host.lines.size(), tail); });
    for (size_t gpu = 0; gpu < num_gpus; ++gpu) {
      for (const auto& [group, t] : tail[gpu]) {
        LaunchGroup& g = launches[gpu][group];
        g.begin_ps = std::min(g.begin_ps, t.begin_ps);
        g.end_ps = std::max(g.end_ps, t.end_ps);
        g.count += t.count;
        g.max_ps = std::max(g.max_ps, t.max_ps);
        g.sum_ps += t.sum_ps;
      }
    }
    break;  // the first host plane of that name, as xprof finds it
  }
  return launches;
}

}  // namespace tbprof
