// Everything tbprof knows about a tool, in one table: the converter behind
// `/data?tag=…` and `tbprof convert`, how it treats several hosts, when
// `run_tools` lists it, whether `data_csv` serves it, and the legacy per-tool
// files that serve it. The server (run_tools, routes, logdir), the CLI and
// the tests all read these tables; nothing else names tools.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/base/status.h"
#include "convert/load/profile_format.h"
#include "convert/load/profile_summary.h"
#include "convert/tools/tool_io.h"

namespace tbprof {

// What `/hosts` offers besides the single hosts when a run has several
// (xprof's XPLANE_TOOLS_ALL_HOSTS_SUPPORTED and _ONLY sets).
enum class AllHostsEntry {
  kNone,     // single hosts only
  kOffered,  // single hosts and ALL_HOSTS
  kOnly,     // ALL_HOSTS only
};

// When `/run_tools` lists a tool of a run whose format can fill it.
enum class Listing {
  kAlways,         // every such run
  kIfDataPresent,  // when `listed_if` holds for the run's first profile that can be read (xprof looks at the first)
  kNever,          // servable, but not listed (as xprof)
};

// The profile formats a tool reads, one bit per ProfileFormat.
class ProfileFormats {
 public:
  constexpr ProfileFormats() = default;
  constexpr ProfileFormats(std::initializer_list<ProfileFormat> formats) {
    for (ProfileFormat f : formats) bits_ |= Bit(f);
  }
  constexpr bool Has(ProfileFormat f) const { return (bits_ & Bit(f)) != 0; }

 private:
  static constexpr unsigned Bit(ProfileFormat f) { return 1u << static_cast<unsigned>(f); }
  unsigned bits_ = 0;
};

// How a tool's working memory grows with its input (the server admits work by it).
enum class WorkCost {
  kModelAndTable,  // the decoded model and an answer of about the file's size
  kWholeTrace,     // the decoded model and trace JSON that may hold every event (the trace viewer)
  // The decoded model and a window of its trace at a resolution
  // (trace_viewer@): every event only at resolution 0, else as many as the
  // resolution shows; its searches as kWholeTrace.
  kTraceWindow,
  // Op statistics only (OpStats): from the file's summary on disk when one is
  // there (no model decoded), else as kModelAndTable.
  kOpStats,
  // trace_analysis: each file's sections from its summary on disk when one is
  // there and the request asks only what a summary keeps
  // (TraceAnalysisReadsSummaries; no model decoded), else as kModelAndTable.
  kTraceAnalysis,
};

inline constexpr size_t kUnranked = SIZE_MAX;

struct ToolSpec {
  std::string name;
  // What the UI's menu calls it (the xprof frontend's words).
  std::string display_name;
  ToolFn run;
  // Position in xprof's run_tools order; unranked tools come after, by name.
  size_t menu_rank = kUnranked;
  // The profile formats that can fill it: a run of another format does not list it, and asking is refused.
  ProfileFormats formats = {ProfileFormat::kXPlane, ProfileFormat::kKinetoTrace};
  // Whether /data combines every host when the request names ALL_HOSTS (or
  // none); otherwise such a request gets the first host.
  bool all_hosts = false;
  AllHostsEntry hosts_entry = AllHostsEntry::kNone;
  // `hosts=a,b` selects several hosts (the trace viewers).
  bool host_list = false;
  Listing listing = Listing::kAlways;
  // Read from the profile's structure, never its model (profile_summary.h).
  bool (*listed_if)(const ProfileSummary&) = nullptr;
  // `data_csv` answers with ToolInput::csv set.
  bool csv = false;
  // `/hosts` offers the tool only on runs with several hosts: on one host it has one bar to draw (pod_viewer
  // compares hosts). /data still serves it when asked.
  bool offered_with_several_hosts_only = false;
  // Another name of the same tool (tensorflow_stats of framework_op_stats): the menu shows one of the two.
  std::string same_as = {};
  WorkCost cost = WorkCost::kModelAndTable;
};

// Every tool that reads a whole profile (any format), by name.
const std::vector<ToolSpec>& ProfileTools();
const ToolSpec* FindProfileTool(std::string_view name);

// Ok when `tool` reads `format`; else InvalidArgument naming the file, its
// format and the formats the tool reads.
Status CheckToolReads(const ToolSpec& tool, ProfileFormat format, std::string_view file_name);

// Legacy per-tool files (`<host>.<suffix>`, e.g. `overview_page.pb`) of the
// profilers before XSpace. With a converter they give the same output as the
// xplane path; without one they are ready JSON, served as they are.
struct LegacyToolSpec {
  std::string tool;    // the tool name the file serves (today's frontend name)
  std::string suffix;  // file suffix after "<host>."
  std::string alias;   // the old frontend's name for it, still accepted in requests
  std::function<StatusOr<ToolOutput>(const std::string& path, const ToolInput& in)> run;  // may be null
};
const std::vector<LegacyToolSpec>& LegacyConverters();
const LegacyToolSpec* FindLegacySuffix(std::string_view suffix);

// Position of a tool in xprof's run_tools order (ToolSpec::menu_rank; kUnranked for unknown names).
size_t ToolMenuRank(std::string_view tool);

}  // namespace tbprof
