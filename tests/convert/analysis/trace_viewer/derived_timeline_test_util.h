// Reading derived timelines back in tests: each derived event as name,
// display name, span, group and step name, by line name.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "convert/analysis/trace_viewer/derived_timeline.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xplane.pb.h"

namespace tbprof::derived_testing {

inline std::unique_ptr<XSpaceModel> Model(const tensorflow::profiler::XSpace& space) {
  auto m = ParseXSpace(space.SerializeAsString(), "derived");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

// A derived event: name, display name, begin, duration (ps), group (-1: none).
struct Seen {
  Seen(std::string n, std::string d, int64_t b, int64_t dur, int64_t g = -1, std::string step = "")
      : name(std::move(n)), display(std::move(d)), begin(b), duration(dur), group(g), step_name(std::move(step)) {}
  std::string name, display;
  int64_t begin = 0, duration = 0;
  int64_t group = -1;
  std::string step_name;
  bool operator==(const Seen&) const = default;
};

inline std::ostream& operator<<(std::ostream& os, const Seen& s) {
  return os << "{" << s.name << " (" << s.display << ") " << s.begin << "+" << s.duration << " g" << s.group << " "
            << s.step_name << "}";
}

struct SeenLine {
  int64_t id = 0, display_id = 0;
  std::vector<Seen> events;
};

// The derived lines of the derived plane named `plane`, by line name.
inline std::map<std::string, SeenLine> Lines(const DerivedTimelines& d, std::string_view plane = "/device:GPU:0") {
  std::map<std::string, SeenLine> out;
  for (const XPlaneModel& p : d.space.planes) {
    if (d.space.Str(p.name) != plane) continue;
    const StrId step_name = d.space.Find("step_name");
    for (const LineModel& line : p.lines) {
      SeenLine& l = out[std::string(d.space.Str(line.name))];
      l.id = line.id;
      l.display_id = line.display_id;
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
        const EventMetadata& md = p.event_metadata[p.events[e].metadata];
        Seen s{std::string(d.space.Str(md.name)), std::string(d.space.Str(md.display_name)), p.events[e].begin_ps,
               p.events[e].duration_ps};
        if (const int32_t g = d.Group(&p - d.space.planes.data(), e); g != kNoGroup) s.group = g;
        if (const Stat* n = p.FindStat(e, step_name)) s.step_name = std::string(d.space.Str(n->str));
        l.events.push_back(s);
      }
    }
  }
  return out;
}

// The stats of the `index`-th event of line `line` on derived plane `plane`,
// by name, as text.
inline std::map<std::string, std::string> EventStats(const DerivedTimelines& d, std::string_view plane,
                                                     std::string_view line, size_t index) {
  std::map<std::string, std::string> out;
  for (const XPlaneModel& p : d.space.planes) {
    if (d.space.Str(p.name) != plane) continue;
    for (const LineModel& l : p.lines) {
      if (d.space.Str(l.name) != line || index >= l.num_events) continue;
      const uint32_t e = l.first_event + static_cast<uint32_t>(index);
      // The step group is kept beside the events, not as a stat; the trace shows it as group_id.
      if (const int32_t g = d.Group(&p - d.space.planes.data(), e); g != kNoGroup) out["group_id"] = std::to_string(g);
      auto [b, end] = p.StatsOf(e);
      for (const Stat* s = b; s != end; ++s) out[std::string(d.space.Str(s->name))] = d.space.StatToString(*s);
    }
  }
  return out;
}

}  // namespace tbprof::derived_testing
