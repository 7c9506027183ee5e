// The derived plane of one file plane while derived_timeline.cc makes its
// lines: the names its events take (one metadata per name), the stats it
// names, and its finished lines, kept until the plane is done so that its
// events and stats are allocated once, at their exact sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "convert/analysis/trace_viewer/derived_line.h"
#include "convert/grouping/event_groups.h"
#include "convert/grouping/group_runs.h"
#include "convert/model/xspace_model.h"

namespace tbprof::derived {

// A finished derived plane, with its events' step groups and the file lines
// its lines replace (by index).
struct DerivedPlane {
  XPlaneModel plane;
  GroupRuns group_runs;
  std::vector<uint32_t> replaced_file_lines;
};

class DerivedPlaneBuilder {
 public:
  // `file_plane_name`: the name the derived plane takes; names are interned
  // into `strings`, the step names of `groups` among them.
  DerivedPlaneBuilder(int64_t plane_id, std::string_view file_plane_name, const EventGroups& groups,
                      StringTable& strings);

  // The metadata named `name` (made on first use; `display_name` is set by
  // the first use that gives one).
  uint32_t Metadata(std::string_view name, std::string_view display_name = {});
  // A stat of that name and kind, its value unset.
  Stat NamedStat(std::string_view name, StatKind kind);
  // Takes `source`'s events as a line (none: no line). On the Steps line
  // (`steps`) every grouped event also names its step.
  void AddLine(int64_t id, int64_t display_id, std::string_view name, DerivedLine& source, bool steps = false);
  // A file line that a derived line replaces (not shown).
  void ReplaceFileLine(uint32_t line) { replaced_lines_.push_back(line); }

  XPlaneModel& plane() { return plane_; }
  StringTable& strings() { return strings_; }

  // Writes the lines into the plane; the plane, or nullopt when it has no line.
  std::optional<DerivedPlane> Finish() &&;

 private:
  // A finished line waiting for the plane to be done.
  struct PendingLine {
    int64_t id = 0, display_id = 0;
    StrId name = kNoStr;
    bool steps = false;
    std::vector<PendingEvent> events;
    std::vector<std::vector<Stat>> extras;
  };
  void EmitLine(PendingLine& pending);

  const EventGroups& groups_;
  StringTable& strings_;
  XPlaneModel plane_;
  StrId step_name_ = kNoStr;
  std::vector<PendingLine> pending_lines_;
  GroupRuns group_runs_;
  std::vector<uint32_t> replaced_lines_;
  std::unordered_map<std::string, uint32_t> metadata_;
};

}  // namespace tbprof::derived
