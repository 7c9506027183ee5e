// The converters behind `/data?tool=…` and `tbprof convert`: one entry per
// tool name, each a pure function of the run's xplane files and the request's
// parameters. The server and the CLI both dispatch through this table.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/artifact_cache.h"
#include "convert/status.h"
#include "convert/xspace_model.h"

namespace tbprof {

using ToolParams = std::map<std::string, std::string>;

struct ToolInput {
  std::vector<std::string> hosts;         // host names, parallel to xplane_paths
  std::vector<std::string> xplane_paths;  // one .xplane.pb per selected host
  ToolParams params;                      // query parameters (resolution, start_time_ms, …)
  ArtifactCache* cache = nullptr;         // shared across requests; may be null
  // Output larger than this is an error (ResourceExhausted); tools that can
  // tell early stop before building it.
  uint64_t max_output_bytes = UINT64_MAX;
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

// Loads (or fetches from `cache`) the model of one xplane file.
StatusOr<std::shared_ptr<const XSpaceModel>> LoadModelCached(const std::string& path, ArtifactCache* cache);
// The whole model of one xplane file if `cache` holds it already; null otherwise (nothing is loaded).
std::shared_ptr<const XSpaceModel> PeekModelCached(const std::string& path, ArtifactCache* cache);

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
