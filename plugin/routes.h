// The profile server's request handler: a pure function from (method,
// target, headers) to a response, with no networking in it, so every route is
// unit-testable. plugin/http_server.cc puts it on the wire: Begin on a
// network thread, the deferred rest (if any) on a worker.
//
// Routes: the xprof plugin routes, answered both at
// /data/plugin/profile/<route> and at /<route>, TensorBoard's /data/* core
// routes, and the static UI from the web directory.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
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
  // The body is shared with the cache (its memory is accounted there).
  bool from_cache = false;

  const std::string& Body() const { return shared_body ? *shared_body : body; }
};

struct ProfileServiceOptions {
  std::string logdir;
  std::string web_dir;               // built UI (index.html + assets); may not exist
  size_t cache_bytes = 512u << 20;   // tool results and loaded models
  // How long a scanned run list is reused before the logdir is walked again.
  std::chrono::milliseconds runs_ttl{1000};
  // Largest response body (a tool result, a legacy file as sent); larger ones
  // are refused with 413 rather than built or read whole.
  uint64_t max_response_bytes = uint64_t{1} << 30;
  // Most bytes a gzip'ed profile may inflate to (a bomb stops there).
  uint64_t max_inflated_bytes = uint64_t{2} << 30;
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

  // The work left of a request that cannot be answered at once: the request
  // as already parsed and resolved, finished by calling it (on a worker).
  using Deferred = std::function<HttpResponse()>;

  // Parses and routes a request once. Answers at once when that is cheap
  // (cached results and failures, listings already scanned, small routes,
  // errors); otherwise returns the rest of the work, which may read and
  // convert profiles or walk the logdir, for a worker thread.
  std::variant<HttpResponse, Deferred> Begin(const HttpRequest& request);
  // Begin and, when deferred, the rest, on the calling thread.
  HttpResponse Handle(const HttpRequest& request);

  // Converts the default tools of the `max_runs` newest runs into the cache.
  // Returns how many results were computed.
  int Warm(int max_runs);

  const Logdir& logdir() const { return logdir_; }
  ArtifactCache& cache() { return cache_; }

 private:
  ProfileService(Logdir logdir, const ProfileServiceOptions& options);

  struct Query;
  struct DataPlan;
  using Outcome = std::variant<HttpResponse, Deferred>;
  Outcome Route(std::string_view path, const Query& q, const HttpRequest& request);
  HttpResponse Runs(const Query& q);
  HttpResponse RunTools(const Query& q);
  HttpResponse Hosts(const Query& q);
  HttpResponse ModuleList(const Query& q);
  // /data and /data_csv: a plan (inputs resolved, files identified, cache
  // key made) or the answer when planning already gives one.
  std::variant<HttpResponse, DataPlan> PlanData(const Query& q, bool csv, bool accepts_gzip);
  // The cached answer of a plan, or nullopt when it still has to be computed.
  std::optional<HttpResponse> CachedData(const DataPlan& plan);
  HttpResponse ComputeData(const DataPlan& plan);
  HttpResponse CaptureProfile(const Query& q);  // blocks for the capture's duration
  // Hands memory freed by evictions back to the system now and then.
  void ReturnFreedMemory();
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
  // The logdir's run index when it is younger than runs_ttl; null otherwise
  // (never walks the logdir).
  std::shared_ptr<const RunIndex> FreshRunIndex();
  // FindRun, answered from a fresh run index when possible (no path
  // resolution); never walks the logdir.
  StatusOr<RunRef> ResolveRun(std::string_view run, const RunScope& scope);
  // ScanRun, reused for runs_ttl (file identities are still checked per request).
  std::shared_ptr<const RunContents> Contents(const std::string& dir);

  Logdir logdir_;
  std::string web_dir_;
  ArtifactCache cache_;
  std::chrono::milliseconds runs_ttl_;
  uint64_t max_response_bytes_;
  uint64_t max_inflated_bytes_;
  bool allow_capture_;
  std::mutex trim_mu_;
  uint64_t evicted_at_last_trim_ = 0;
  std::mutex runs_mu_;
  std::shared_ptr<const RunIndex> run_index_;
  std::chrono::steady_clock::time_point runs_scanned_{};
  std::mutex contents_mu_;
  std::unordered_map<std::string, std::pair<std::chrono::steady_clock::time_point, std::shared_ptr<const RunContents>>>
      contents_;
};

// The web UI directory to serve when none is given: the build's
// plugin/web/dist (compile definition TBPROF_WEB_DIR) when it holds a built
// UI, else "<directory of the executable>/web".
std::string DefaultWebDir();

// Encodes everything but unreserved characters (RFC 3986) as %XX.
std::string PercentEncode(std::string_view s);

}  // namespace tbprof
