// Everything tbprof knows about a tool, in one table: the converter behind
// `/data?tag=…` and `tbprof convert`, how it treats several hosts, when
// `run_tools` lists it, whether `data_csv` serves it, and the legacy per-tool
// files that serve it. The server (run_tools, routes, logdir), the CLI and
// the tests all read these tables; nothing else names tools.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/base/status.h"
#include "convert/tools/tool_io.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

// What `/hosts` offers besides the single hosts when a run has several
// (xprof's XPLANE_TOOLS_ALL_HOSTS_SUPPORTED and _ONLY sets).
enum class AllHostsEntry {
  kNone,     // single hosts only
  kOffered,  // single hosts and ALL_HOSTS
  kOnly,     // ALL_HOSTS only
};

// When `/run_tools` lists a tool of an xplane run.
enum class Listing {
  kAlways,         // every xplane run
  kIfDataPresent,  // when `listed_if` holds for the run's first XSpace (xprof looks at the first only)
  kNever,          // servable, but not listed (as xprof)
};

struct ToolSpec {
  std::string name;
  ToolFn run;
  // Whether /data combines every host when the request names ALL_HOSTS (or
  // none); otherwise such a request gets the first host.
  bool all_hosts = false;
  AllHostsEntry hosts_entry = AllHostsEntry::kNone;
  // `hosts=a,b` selects several hosts (the trace viewers).
  bool host_list = false;
  Listing listing = Listing::kAlways;
  std::function<bool(const XSpaceModel&)> listed_if;
  // `data_csv` answers with ToolInput::csv set.
  bool csv = false;
  // `/hosts` offers the tool only on runs with several hosts: on one host it has one bar to draw (pod_viewer
  // compares hosts). /data still serves it when asked.
  bool offered_with_several_hosts_only = false;
};

// Tools computable from xplane.pb files.
const std::vector<ToolSpec>& ProfileTools();
const ToolSpec* FindProfileTool(std::string_view name);

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

// Position of a tool in xprof's run_tools order (tools it does not list
// come after, by name).
size_t ToolListingRank(std::string_view tool);

}  // namespace tbprof
