// What a tool takes and gives (ToolInput, ToolOutput, its query
// parameters) and the boundary every converter runs behind. The tools'
// headers need only this; the tool table (tool_registry.h) builds on it and
// on the tools, so no tool header has to include the table.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/base/status.h"
#include "convert/load/profile_format.h"

namespace tbprof {

class ArtifactCache;  // convert/tools/artifact_cache.h: a tool's input only points to it

using ToolParams = std::map<std::string, std::string>;

struct ToolInput {
  std::vector<std::string> hosts;         // host names, parallel to profile_paths
  std::vector<std::string> profile_paths;  // one profile file per selected host (xplane, PyTorch trace, tfprof)
  // Parallel to profile_paths: each file's format as the run catalogue (or the
  // CLI) found it; FormatOf finds it for callers that leave it empty.
  std::vector<ProfileFormat> profile_formats;
  ToolParams params;                      // query parameters (resolution, start_time_ms, …)
  bool csv = false;                       // data_csv: the tool's main table as CSV
  ArtifactCache* cache = nullptr;         // shared across requests; may be null
  // Output larger than this is an error (ResourceExhausted); tools that can
  // tell early stop before building it.
  uint64_t max_output_bytes = UINT64_MAX;
  // compare: the run's legacy per-tool files (read when it has no xplane
  // file), and the baseline run's hosts, xplane files and legacy files.
  std::vector<std::string> legacy_paths;
  std::vector<std::string> base_hosts, base_profile_paths, base_legacy_paths;

  // The format of profile_paths[i].
  ProfileFormat FormatOf(size_t i) const;
};

struct ToolOutput {
  std::string body;
  std::string content_type = "application/json";
  std::string content_encoding;  // "gzip" when body is already compressed
};

using ToolFn = std::function<StatusOr<ToolOutput>(const ToolInput&)>;

// The tool boundary: `fn` with every exception it throws (a library's
// std::out_of_range, a failed allocation) turned into an Internal error that
// names the tool. Every converter in the tables below is wrapped in it.
ToolFn Guarded(std::string tool, ToolFn fn);

// A tool that combines hosts (ToolSpec::all_hosts), run without the hosts whose file cannot be read (empty,
// damaged, cut short) while others can: a JSON answer then names each host left out and why, as its first
// member "hosts_left_out": [{"host", "reason"}] (the first table's, for an array of tables). With every
// host's file unreadable, or one host asked for, the answer is the file's error.
ToolFn LeavingOutUnreadableHosts(ToolFn fn);

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
