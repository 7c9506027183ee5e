// The converters behind `/data?tool=…` and `tbprof convert`: one entry per
// tool name, each a pure function of the run's xplane files and the request's
// parameters. The server and the CLI both dispatch through this table.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "convert/base/status.h"
#include "convert/tools/artifact_cache.h"
#include "convert/xplane/xspace_model.h"

namespace tbprof {

using ToolParams = std::map<std::string, std::string>;

struct ToolInput {
  std::vector<std::string> hosts;         // host names, parallel to xplane_paths
  std::vector<std::string> xplane_paths;  // one .xplane.pb per selected host
  ToolParams params;                      // query parameters (resolution, start_time_ms, …)
  ArtifactCache* cache = nullptr;         // shared across requests; may be null
};

struct ToolOutput {
  std::string body;
  std::string content_type = "application/json";
  std::string content_encoding;  // "gzip" when body is already compressed
};

using ToolFn = std::function<StatusOr<ToolOutput>(const ToolInput&)>;

struct ToolSpec {
  std::string name;
  ToolFn run;
  // Whether the tool combines hosts when the request names ALL_HOSTS (or none).
  bool all_hosts = false;
};

// The tool boundary: `fn` with every exception it throws (a library's
// std::out_of_range, a failed allocation) turned into an Internal error that
// names the tool. Every converter in the tables below is wrapped in it.
ToolFn Guarded(std::string tool, ToolFn fn);

// Tools computable from xplane.pb files, in the order run_tools lists them.
const std::vector<ToolSpec>& XPlaneTools();
const ToolSpec* FindXPlaneTool(std::string_view name);

// Converters of the legacy per-tool files (`<host>.<suffix>`, e.g.
// `overview_page.pb`), producing the same output as the xplane path.
struct LegacyToolSpec {
  std::string tool;    // the tool name the file serves
  std::string suffix;  // file suffix after "<host>."
  std::function<StatusOr<ToolOutput>(const std::string& path, const ToolParams& params)> run;
};
const std::vector<LegacyToolSpec>& LegacyConverters();

// Integer/double query parameter with a default; garbage yields the default.
int64_t ParamInt(const ToolParams& p, const std::string& key, int64_t fallback);
double ParamDouble(const ToolParams& p, const std::string& key, double fallback);
std::string ParamStr(const ToolParams& p, const std::string& key, const std::string& fallback = "");

}  // namespace tbprof
