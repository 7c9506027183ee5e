#include "convert/model/xspace_window.h"

#include <string>

namespace tbprof {
namespace {

XPlaneModel PlaneInWindow(const XPlaneModel& p, int64_t begin_ps, int64_t end_ps) {
  XPlaneModel out;
  out.id = p.id;
  out.name = p.name;
  out.event_metadata = p.event_metadata;
  out.metadata_stats = p.metadata_stats;
  out.plane_stats = p.plane_stats;
  out.stat_metadata = p.stat_metadata;
  out.lines.reserve(p.lines.size());
  for (const LineModel& line : p.lines) {
    LineModel kept = line;
    kept.first_event = static_cast<uint32_t>(out.events.size());
    for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const Event& ev = p.events[e];
      if (ev.begin_ps < begin_ps || ev.begin_ps >= end_ps) continue;
      auto [first, last] = p.StatsOf(e);
      Event copy = ev;
      copy.first_stat = static_cast<uint32_t>(out.event_stats.size());
      out.event_stats.insert(out.event_stats.end(), first, last);
      out.events.push_back(copy);
    }
    kept.num_events = static_cast<uint32_t>(out.events.size()) - kept.first_event;
    out.lines.push_back(kept);
  }
  return out;
}

}  // namespace

StatusOr<XSpaceModel> EventsInWindow(const XSpaceModel& space, int64_t begin_ps, int64_t end_ps) {
  for (const XPlaneModel& p : space.planes) {
    if (!p.occurrences.empty()) {
      return InvalidArgument("plane " + std::string(space.Str(p.name)) +
                             " holds aggregated events (a count, no times): they cannot be placed in a time window");
    }
  }
  XSpaceModel out;
  // Same ids in the copy: a table interns in id order, so re-interning in
  // that order gives every string its old id.
  for (StrId id = 1; id < space.strings.size(); ++id) out.strings.Intern(space.strings.View(id));
  out.blobs = space.blobs;
  out.errors = space.errors;
  out.warnings = space.warnings;
  out.hostnames = space.hostnames;
  out.planes.reserve(space.planes.size());
  for (const XPlaneModel& p : space.planes) out.planes.push_back(PlaneInWindow(p, begin_ps, end_ps));
  return out;
}

}  // namespace tbprof
