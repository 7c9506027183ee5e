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
#include "convert/tools/artifact_cache.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

using ToolParams = std::map<std::string, std::string>;

struct ToolInput {
  std::vector<std::string> hosts;         // host names, parallel to xplane_paths
  std::vector<std::string> xplane_paths;  // one .xplane.pb per selected host
  ToolParams params;                      // query parameters (resolution, start_time_ms, …)
  bool csv = false;                       // data_csv: the tool's main table as CSV
  ArtifactCache* cache = nullptr;         // shared across requests; may be null
  // Output larger than this is an error (ResourceExhausted); tools that can
  // tell early stop before building it.
  uint64_t max_output_bytes = UINT64_MAX;
  // compare: the run's legacy per-tool files (read when it has no xplane
  // file), and the baseline run's hosts, xplane files and legacy files.
  std::vector<std::string> legacy_paths;
  std::vector<std::string> base_hosts, base_xplane_paths, base_legacy_paths;
};

struct ToolOutput {
  std::string body;
  std::string content_type = "application/json";
  std::string content_encoding;  // "gzip" when body is already compressed
};

using ToolFn = std::function<StatusOr<ToolOutput>(const ToolInput&)>;

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

// The tool boundary: `fn` with every exception it throws (a library's
// std::out_of_range, a failed allocation) turned into an Internal error that
// names the tool. Every converter in the tables below is wrapped in it.
ToolFn Guarded(std::string tool, ToolFn fn);

// Tools computable from xplane.pb files.
const std::vector<ToolSpec>& XPlaneTools();
const ToolSpec* FindXPlaneTool(std::string_view name);

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

// Decodes %XX and '+' (when `plus_is_space`) of a URL component; nullopt on
// a malformed escape.
std::optional<std::string> PercentDecode(std::string_view s, bool plus_is_space);

// Parses "k=v&k2=v2" (a URL query, or `tbprof convert --param`) with
// percent-decoding; the first value of a repeated key wins, as Flask's
// request.args.get does. InvalidArgument on a malformed escape.
StatusOr<ToolParams> ParseQuery(std::string_view query);

// Integer/double query parameter with a default; garbage yields the default.
int64_t ParamInt(const ToolParams& p, const std::string& key, int64_t fallback);
double ParamDouble(const ToolParams& p, const std::string& key, double fallback);
std::string ParamStr(const ToolParams& p, const std::string& key, const std::string& fallback = "");

}  // namespace tbprof
