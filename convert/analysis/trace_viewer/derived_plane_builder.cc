#include "convert/analysis/trace_viewer/derived_plane_builder.h"

#include <utility>

#include "convert/base/huge_pages.h"
#include "convert/model/schema.h"

namespace tbprof::derived {

DerivedPlaneBuilder::DerivedPlaneBuilder(int64_t plane_id, std::string_view file_plane_name, const EventGroups& groups,
                                         StringTable& strings)
    : groups_(groups), strings_(strings) {
  plane_.id = plane_id;
  plane_.name = strings_.Intern(file_plane_name);
  plane_.event_metadata.emplace_back();  // index 0: the nameless placeholder
  step_name_ = strings_.Intern(schema::kStepName);
}

uint32_t DerivedPlaneBuilder::Metadata(std::string_view name, std::string_view display_name) {
  auto [it, inserted] = metadata_.try_emplace(std::string(name), 0);
  if (inserted) {
    it->second = static_cast<uint32_t>(plane_.event_metadata.size());
    EventMetadata md;
    md.id = static_cast<int64_t>(it->second);
    md.name = strings_.Intern(name);
    plane_.event_metadata.push_back(std::move(md));
  }
  EventMetadata& md = plane_.event_metadata[it->second];
  if (md.display_name == kNoStr && !display_name.empty()) md.display_name = strings_.Intern(display_name);
  return it->second;
}

Stat DerivedPlaneBuilder::NamedStat(std::string_view name, StatKind kind) {
  Stat s;
  s.name = strings_.Intern(name);
  s.kind = kind;
  return s;
}

void DerivedPlaneBuilder::AddLine(int64_t id, int64_t display_id, std::string_view name, DerivedLine& source,
                                  bool steps) {
  std::vector<PendingEvent>& events = source.events();
  if (events.empty()) return;
  PendingLine line;
  line.id = id;
  line.display_id = display_id;
  line.name = strings_.Intern(name);
  line.steps = steps;
  // Step names take their string ids in the order the events name them.
  if (steps) {
    for (const PendingEvent& pe : events) {
      if (auto it = groups_.group_names.find(pe.group); pe.group != kNoGroup && it != groups_.group_names.end()) {
        strings_.Intern(it->second);
      }
    }
  }
  line.events.swap(events);
  line.extras.swap(source.extras());
  pending_lines_.push_back(std::move(line));
}

std::optional<DerivedPlane> DerivedPlaneBuilder::Finish() && {
  size_t num_events = 0, num_stats = 0;
  for (const PendingLine& line : pending_lines_) {
    num_events += line.events.size();
    for (const PendingEvent& pe : line.events) {
      num_stats += line.steps && pe.group != kNoGroup && groups_.group_names.count(pe.group) != 0;
    }
    for (const std::vector<Stat>& extra : line.extras) num_stats += extra.size();
  }
  ReserveLarge(plane_.events, num_events);
  ReserveLarge(plane_.event_stats, num_stats);
  for (PendingLine& line : pending_lines_) EmitLine(line);
  std::vector<PendingLine>().swap(pending_lines_);
  if (plane_.lines.empty()) return std::nullopt;
  return DerivedPlane{std::move(plane_), std::move(group_runs_), std::move(replaced_lines_)};
}

void DerivedPlaneBuilder::EmitLine(PendingLine& pending) {
  XPlaneModel& p = plane_;
  std::vector<PendingEvent>& events = pending.events;
  const bool steps = pending.steps;
  LineModel line;
  line.id = pending.id;
  line.display_id = pending.display_id;
  line.name = pending.name;
  line.first_event = static_cast<uint32_t>(p.events.size());
  line.num_events = static_cast<uint32_t>(events.size());
  for (const PendingEvent& pe : events) {
    Event e;
    e.begin_ps = pe.begin_ps;
    e.duration_ps = pe.end_ps - pe.begin_ps;
    e.metadata = pe.metadata;
    e.first_stat = static_cast<uint32_t>(p.event_stats.size());
    group_runs_.Add(static_cast<uint32_t>(p.events.size()), pe.group);
    p.events.push_back(e);
    if (pe.group != kNoGroup && steps) {
      if (auto it = groups_.group_names.find(pe.group); it != groups_.group_names.end()) {
        Stat n;
        n.name = step_name_;
        n.kind = StatKind::kStr;
        n.str = strings_.Intern(it->second);
        p.event_stats.push_back(n);
      }
    }
    if (pe.extra != 0) {
      const std::vector<Stat>& extra = pending.extras[pe.extra - 1];
      p.event_stats.insert(p.event_stats.end(), extra.begin(), extra.end());
    }
  }
  p.lines.push_back(line);
  std::vector<PendingEvent>().swap(events);
  std::vector<std::vector<Stat>>().swap(pending.extras);
}

}  // namespace tbprof::derived
