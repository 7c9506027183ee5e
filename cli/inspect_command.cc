#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <map>
#include <set>

#include "cli/commands.h"
#include "cli/flags.h"
#include "convert/load/profile_file.h"

namespace tbprof::cli {
namespace {

struct PlaneSummary {
  size_t events = 0;
  int64_t first_ps = INT64_MAX, last_ps = INT64_MIN;
  std::map<std::string_view, size_t> stat_uses;  // stat name -> occurrences
};

PlaneSummary Summarize(const XSpaceModel& m, const XPlaneModel& p) {
  PlaneSummary s;
  s.events = p.events.size();
  for (uint32_t i = 0; i < p.events.size(); ++i) {
    if (p.NumOccurrences(i) > 0) continue;
    s.first_ps = std::min(s.first_ps, p.events[i].begin_ps);
    s.last_ps = std::max(s.last_ps, p.events[i].end_ps());
  }
  for (const Stat& st : p.event_stats) ++s.stat_uses[m.Str(st.name)];
  for (const Stat& st : p.metadata_stats) ++s.stat_uses[m.Str(st.name)];
  for (const Stat& st : p.plane_stats) ++s.stat_uses[m.Str(st.name)];
  return s;
}

}  // namespace

int InspectCommand(int argc, char** argv) {
  Flags flags("inspect", "FILE.xplane.pb[.gz] | FILE.pt.trace.json[.gz]",
              "Prints each plane of an XSpace (a PyTorch trace is shown as the planes it imports to) with its lines, event counts, time span and the stat\n"
              "names in use.");
  flags.Add("json", "", "print JSON instead of text", true);
  flags.Add("lines", "", "list every line of each plane, not only the first 20", true);
  if (auto exit_code = flags.Parse(argc, argv)) return *exit_code;
  if (flags.positional().size() != 1) {
    flags.Error("expected one FILE (see --help)");
    return 2;
  }
  const std::string& path = flags.positional()[0];
  auto loaded = LoadProfileFile(path);
  if (!loaded.ok()) {
    flags.Error(loaded.status().message());
    return 1;
  }
  const XSpaceModel& m = **loaded;
  const bool all_lines = flags.Bool("lines");
  if (flags.Bool("json")) {
    boost::json::object root;
    root["file"] = path;
    root["events"] = m.NumEvents();
    boost::json::array hosts;
    for (const auto& h : m.hostnames) hosts.emplace_back(h);
    root["hostnames"] = std::move(hosts);
    boost::json::array planes;
    for (const XPlaneModel& p : m.planes) {
      PlaneSummary s = Summarize(m, p);
      boost::json::object o;
      o["id"] = p.id;
      o["name"] = m.Str(p.name);
      o["events"] = s.events;
      o["event_metadata"] = p.event_metadata.size();
      o["stat_metadata"] = p.stat_metadata.size();
      if (s.first_ps <= s.last_ps) {
        o["first_ps"] = s.first_ps;
        o["last_ps"] = s.last_ps;
      }
      boost::json::array lines;
      for (const LineModel& l : p.lines) {
        lines.emplace_back(boost::json::object{{"id", l.id},
                                               {"name", m.Str(l.name)},
                                               {"display_name", m.Str(l.display_name)},
                                               {"timestamp_ns", l.timestamp_ns},
                                               {"events", l.num_events}});
      }
      o["lines"] = std::move(lines);
      boost::json::object stats;
      for (auto& [name, n] : s.stat_uses) stats[name] = n;
      o["stats"] = std::move(stats);
      planes.emplace_back(std::move(o));
    }
    root["planes"] = std::move(planes);
    std::printf("%s\n", boost::json::serialize(root).c_str());
    return 0;
  }
  std::printf("%s: %zu planes, %zu events\n", path.c_str(), m.planes.size(), m.NumEvents());
  for (const std::string& h : m.hostnames) std::printf("hostname: %s\n", h.c_str());
  for (const XPlaneModel& p : m.planes) {
    PlaneSummary s = Summarize(m, p);
    std::printf("\nplane %lld \"%.*s\": %zu lines, %zu events, %zu event names, %zu stat names",
                static_cast<long long>(p.id), static_cast<int>(m.Str(p.name).size()), m.Str(p.name).data(),
                p.lines.size(), s.events, p.event_metadata.size(), p.stat_metadata.size());
    if (s.first_ps <= s.last_ps) {
      std::printf(", span %.3f ms", static_cast<double>(s.last_ps - s.first_ps) / 1e9);
    }
    std::printf("\n");
    size_t shown = 0;
    for (const LineModel& l : p.lines) {
      if (!all_lines && shown++ == 20) {
        std::printf("  … %zu more lines (--lines lists all)\n", p.lines.size() - 20);
        break;
      }
      std::printf("  line %lld \"%.*s\": %u events\n", static_cast<long long>(l.id),
                  static_cast<int>(m.Str(l.name).size()), m.Str(l.name).data(), l.num_events);
    }
    if (!s.stat_uses.empty()) {
      std::printf("  stats:");
      for (auto& [name, n] : s.stat_uses) std::printf(" %.*s(%zu)", static_cast<int>(name.size()), name.data(), n);
      std::printf("\n");
    }
  }
  return 0;
}

}  // namespace tbprof::cli
