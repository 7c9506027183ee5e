// Pieces shared by the request handler's files (routes.cc: parsing, the
// route table, listings, static files; data_route.cc and compare_route.cc:
// /data): response helpers, the parsed query, the plan of a /data request and
// the cached form of a tool result. Defined in route_util.cc.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/tools/artifact_cache.h"
#include "convert/base/file_bytes.h"
#include "convert/tools/tool_registry.h"
#include "plugin/http_message.h"
#include "plugin/catalogue/logdir.h"

namespace tbprof {

HttpResponse Text(int status, std::string body, std::string content_type = "text/plain");
// The HTTP answer to an error: 400, 403, 404, 413, 503 (with Retry-After) or 500.
HttpResponse FromStatus(const Status& s);
std::string HeaderOf(const HttpRequest& request, const std::string& lower_case_name);

// Reads a whole regular file (confined by the active FileAccessScope); over
// `max_bytes` is ResourceExhausted, a change while reading Unavailable.
StatusOr<std::string> ReadWholeFile(const std::string& path, uint64_t max_bytes);

// The most a gzip'ed profile is let inflate to (the size its trailer states,
// at most `max_inflated`); nullopt when the file is not gzip'ed. Inflation is
// limited to it (FileAccessScope::LimitInflation) so that the working memory
// estimated from it holds even when the trailer lies or wrapped past 4 GiB.
// A trailer that cannot be true (more than deflate's 1032:1 of the file: a cut
// file) limits nothing below `max_inflated`: the work's memory claims bound it.
std::optional<uint64_t> GzipInflationCap(const std::string& path, uint64_t file_size, uint64_t max_inflated);
// What the working memory estimates take a gzip'ed profile to inflate to: the
// cap, but for a trailer that cannot be true a typical ratio of the file, so
// that a cut file is admitted and read to where it ends (422, damaged or
// incomplete) instead of refused for a size its trailer never meant.
std::optional<uint64_t> GzipInflatedEstimate(const std::string& path, uint64_t file_size, uint64_t max_inflated);
// Limits the inflation of `path` in `scope` to GzipInflationCap when it is gzip'ed.
void LimitInflationToEstimate(FileAccessScope& scope, const std::string& path, uint64_t max_inflated);

// A tool result as kept in the cache, compressed ahead of time once.
struct CachedOutput {
  ToolOutput out;
  std::shared_ptr<const std::string> gzipped;
};
StatusOr<CacheValue<CachedOutput>> MakeCachedOutput(StatusOr<ToolOutput> out);
HttpResponse FromCached(const std::shared_ptr<const CachedOutput>& c);

struct RouteQuery {
  ToolParams params;  // first value of each parameter wins, as request.args.get
  std::string Get(const std::string& key) const { return ParamStr(params, key); }
  RunScope Scope() const { return RunScope{Get("session_path"), Get("run_path")}; }
};

// Everything a /data request needs once parsed: made on the network thread,
// carried to a worker when the result is not cached.
struct DataPlan {
  std::string key;  // the result's cache key (files by identity, parameters)
  std::string tag, run, host;
  bool csv = false;
  // The files read, each identified once for the whole request.
  std::vector<std::pair<std::string, FileIdentity>> files;
  // An xplane tool, or else a legacy file (through a converter, or as it is).
  const ToolSpec* spec = nullptr;
  ToolInput input;
  const LegacyToolSpec* legacy_converter = nullptr;
  std::string legacy_path;
  bool legacy_gzip = false;        // a .json.gz sent compressed
  bool inflate_for_client = false;  // ... to a client that cannot take gzip: inflated here
};

}  // namespace tbprof
