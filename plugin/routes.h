// The profile server's request handler: a pure function from (method,
// target, headers) to a response, with no networking in it, so every route is
// unit-testable. plugin/http_server.cc puts it on the wire.
//
// Routes: the xprof plugin routes, answered both at
// /data/plugin/profile/<route> and at /<route>, TensorBoard's /data/* core
// routes, and the static UI from the web directory.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "convert/tools/artifact_cache.h"
#include "convert/tools/tool_registry.h"
#include "plugin/logdir.h"

namespace tbprof {

struct HttpRequest {
  std::string method = "GET";
  std::string target;  // path and query, as sent
  std::map<std::string, std::string> headers;  // lower-case names
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain";
  std::string body;
  // Set instead of `body` for cached results, which are shared, not copied.
  std::shared_ptr<const std::string> shared_body;
  std::string content_encoding;  // "gzip" when the body is already compressed
  // The body gzip-compressed ahead of time (cached tool results); empty if none.
  std::shared_ptr<const std::string> gzip_body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers

  const std::string& Body() const { return shared_body ? *shared_body : body; }
};

struct ProfileServiceOptions {
  std::string logdir;
  std::string web_dir;               // built UI (index.html + assets); may not exist
  size_t cache_bytes = 512u << 20;   // tool results and loaded models
  // How long a scanned run list is reused before the logdir is walked again.
  std::chrono::milliseconds runs_ttl{1000};
  // capture_profile may add a run to the logdir (the only write under it).
  bool allow_capture = true;
};

// Content-Security-Policy of every response: only our own origin.
extern const char kContentSecurityPolicy[];
// Version reported by /version and /data/environment.
extern const char kTbprofVersion[];

class ProfileService {
 public:
  static StatusOr<std::unique_ptr<ProfileService>> Create(const ProfileServiceOptions& options);

  // Answers any request. When `may_block` is false and the answer needs work
  // that may take long (converting a profile), returns nullopt instead, so the
  // caller can retry on a worker thread.
  std::optional<HttpResponse> Handle(const HttpRequest& request, bool may_block);
  HttpResponse Handle(const HttpRequest& request) { return *Handle(request, true); }

  // Converts the default tools of the `max_runs` newest runs into the cache.
  // Returns how many results were computed.
  int Warm(int max_runs);

  const Logdir& logdir() const { return logdir_; }
  ArtifactCache& cache() { return cache_; }

 private:
  ProfileService(Logdir logdir, const ProfileServiceOptions& options);

  struct Query;
  std::optional<HttpResponse> Route(std::string_view path, const Query& q, const HttpRequest& request,
                                    bool may_block);
  HttpResponse Runs(const Query& q);
  HttpResponse RunTools(const Query& q);
  HttpResponse Hosts(const Query& q);
  HttpResponse ModuleList(const Query& q);
  HttpResponse CaptureProfile(const Query& q);  // blocks for the capture's duration
  std::optional<HttpResponse> Data(const Query& q, bool csv, bool may_block);
  HttpResponse TensorBoardRuns();
  HttpResponse PluginsListing();
  HttpResponse Static(std::string_view path);

  // Runs of the logdir (rescanned at most once per runs_ttl) or of a scope.
  struct RunIndex {
    std::vector<RunRef> runs;  // as /runs lists them
    std::unordered_map<std::string, size_t> by_name;
    std::string json;  // the /runs answer
  };
  StatusOr<std::shared_ptr<const RunIndex>> RunIndexOf(const RunScope& scope);
  // FindRun, answered from the run index when possible (no path resolution).
  StatusOr<RunRef> ResolveRun(std::string_view run, const RunScope& scope);
  // ScanRun, reused for runs_ttl (file identities are still checked per request).
  std::shared_ptr<const RunContents> Contents(const std::string& dir);

  Logdir logdir_;
  std::string web_dir_;
  ArtifactCache cache_;
  std::chrono::milliseconds runs_ttl_;
  bool allow_capture_;
  std::mutex runs_mu_;
  std::shared_ptr<const RunIndex> run_index_;
  std::chrono::steady_clock::time_point runs_scanned_{};
  std::mutex contents_mu_;
  std::unordered_map<std::string, std::pair<std::chrono::steady_clock::time_point, std::shared_ptr<const RunContents>>>
      contents_;
};

// Decodes %XX and '+' of a query component; nullopt on malformed escapes.
std::optional<std::string> PercentDecode(std::string_view s, bool plus_is_space);

// The web UI directory to serve when none is given: the build's
// plugin/web/dist (compile definition TBPROF_WEB_DIR) when it holds a built
// UI, else "<directory of the executable>/web".
std::string DefaultWebDir();

// Encodes everything but unreserved characters (RFC 3986) as %XX.
std::string PercentEncode(std::string_view s);

}  // namespace tbprof
