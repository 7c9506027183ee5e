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
#include "plugin/http_message.h"
#include "plugin/catalogue/logdir.h"
#include "plugin/work_estimate.h"

namespace tbprof {

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
  // The UI bundle is read whole at start-up; larger bundles are not served.
  uint64_t max_static_bytes = uint64_t{64} << 20;
};

// Content-Security-Policy of every response: only our own origin.
extern const char kContentSecurityPolicy[];
// Version reported by /version and /data/environment.
extern const char kTbprofVersion[];

struct CachedOutput;  // a tool result as cached (plugin/route_util.h)
// A request's parsed query and the plan of a /data request (plugin/route_util.h).
struct RouteQuery;
struct DataPlan;

// Which threads deferred work runs on: conversions are admitted by memory on
// --workers threads; listings of the logdir or a run, and captures (which hold
// a thread for their whole duration) have a few threads each of their own, so
// neither waits behind conversions nor takes their threads.
enum class WorkLane { kConversion = 0, kListing = 1, kCapture = 2 };

// The header a state-changing request (capture_profile) carries the server's
// token in (the UI reads it from /config, which other origins cannot read).
inline constexpr std::string_view kRequestTokenHeader = "x-tbprof-token";

// capture_profile's bounds (the xprof UI's defaults are well inside them).
inline constexpr int64_t kMaxCaptureDurationMs = 300000;
inline constexpr int64_t kMaxCaptureDelayMs = 60000;
inline constexpr int64_t kMaxCaptureRetries = 10;
inline constexpr size_t kMaxCaptureWorkers = 64;

class ProfileService {
 public:
  static StatusOr<std::unique_ptr<ProfileService>> Create(const ProfileServiceOptions& options);

  // The work left of a request that cannot be answered at once: the request
  // as already parsed and resolved, finished by calling it (on a worker). Its
  // run may answer, or hand back the rest of the work with a new estimate (a
  // run listed on the worker first, whose profiles' sizes are known only then).
  struct Deferred {
    std::function<std::variant<HttpResponse, Deferred>()> run;
    // Memory the work is estimated to need while it runs, beyond what the
    // cache holds already (the server admits work by it).
    uint64_t working_bytes = 0;
    WorkLane lane = WorkLane::kConversion;
    // The estimate counts what a gzip'ed profile inflates to, as its trailer
    // states: a file cut short ends in compressed data, so that "size" may be
    // anything. Such work is never refused for its estimate alone (see
    // AdmissionScheduler::AdmittedBytes); its claims decide.
    bool estimate_unconfirmed = false;
    // Runs it and whatever it hands back, to the answer.
    HttpResponse operator()() const;
  };

  // Parses and routes a request once. Answers at once when that is cheap
  // (cached results and failures, listings already scanned, small routes,
  // errors); otherwise returns the rest of the work, which may read and
  // convert profiles or walk the logdir, for a worker thread.
  std::variant<HttpResponse, Deferred> Begin(const HttpRequest& request);
  // Begin and, when deferred, the rest, on the calling thread.
  HttpResponse Handle(const HttpRequest& request);

  // Converts the default tools of the `max_runs` newest runs into the cache.
  // Returns how many results were computed. Each conversion is handed, with
  // its estimate, to `admit` when given (the server's admission, so warm-up
  // counts against --memory_mb like a request; nullopt: not run), else run here.
  int Warm(int max_runs, const std::function<std::optional<HttpResponse>(Deferred)>& admit = {});

  const Logdir& logdir() const { return logdir_; }
  // The random token capture_profile requires in kRequestTokenHeader (made
  // at start-up; /config gives it to the UI).
  const std::string& request_token() const { return request_token_; }
  ArtifactCache& cache() { return cache_; }

 private:
  ProfileService(Logdir logdir, const ProfileServiceOptions& options);

  using Query = RouteQuery;
  using DataPlan = tbprof::DataPlan;
  using Outcome = std::variant<HttpResponse, Deferred>;
  Outcome Route(std::string_view path, const Query& q, const HttpRequest& request);
  // What a route's handler is given: the path as routed, the parsed query, the request, its lane.
  struct RouteCall {
    std::string_view path;
    const Query& query;
    const HttpRequest& request;
    WorkLane lane;
  };
  // One row per route: the path it answers at, the method a state-changing
  // route requires (others take GET, HEAD and POST alike), its handler and
  // the lane its deferred work runs on. Route looks a path up here; the rest
  // is the UI bundle (Static).
  struct RouteEntry {
    std::string_view path;
    std::string_view method;
    Outcome (ProfileService::*handler)(const RouteCall&);
    WorkLane lane;
  };
  static const std::vector<RouteEntry>& RouteTable();
  Outcome RoutePluginsListing(const RouteCall& call);
  Outcome RouteTensorBoardRuns(const RouteCall& call);
  Outcome RouteLogdir(const RouteCall& call);
  Outcome RouteEnvironment(const RouteCall& call);
  Outcome RouteNotifications(const RouteCall& call);
  Outcome RoutePluginEntry(const RouteCall& call);
  Outcome RouteRuns(const RouteCall& call);
  Outcome RouteHosts(const RouteCall& call);
  Outcome RouteRunTools(const RouteCall& call);
  Outcome RouteModuleList(const RouteCall& call);
  Outcome RouteData(const RouteCall& call);
  Outcome RouteConfig(const RouteCall& call);
  Outcome RouteVersion(const RouteCall& call);
  Outcome RouteToolTable(const RouteCall& call);
  Outcome RouteCaptureProfile(const RouteCall& call);
  HttpResponse Runs(const Query& q);
  std::variant<HttpResponse, Deferred> RunTools(const Query& q);
  // /data for a tag that names no tool: which one, and the tools the run offers.
  HttpResponse UnknownTool(const Query& q);
  // A run resolved and listed less than runs_ttl ago, as the network thread
  // finds it; the handler it is passed to neither resolves nor lists it again.
  struct ListedRun {
    RunRef ref;
    std::shared_ptr<const RunContents> contents;
  };
  // `listed`: the run, fresh, when the caller has it (else it is resolved and listed here).
  HttpResponse Hosts(const Query& q, const ListedRun* listed = nullptr);
  std::variant<HttpResponse, Deferred> ModuleList(const Query& q);
  HttpResponse ListModules(const RunContents& contents);
  // /data and /data_csv: a plan (inputs resolved, files identified, cache
  // key made) or the answer when planning already gives one.
  std::variant<HttpResponse, DataPlan> PlanData(const Query& q, bool csv, bool accepts_gzip,
                                                const ListedRun* listed = nullptr);
  // /data?tag=compare: both runs resolved and listed (on a worker), their files identified.
  std::variant<HttpResponse, DataPlan> PlanCompare(const Query& q, bool csv);
  // The cached answer of a plan, or nullopt when it still has to be computed.
  std::optional<HttpResponse> CachedData(const DataPlan& plan);
  HttpResponse ComputeData(const DataPlan& plan);
  // ComputeData(plan) as work for the admission scheduler, with its estimate.
  Deferred ComputeDataLater(DataPlan plan);
  // PlanData, then the cached answer or the computation with its estimate:
  // a /data request whose run was not listed recently, planned on a worker.
  std::variant<HttpResponse, Deferred> PlanAndComputeData(const Query& q, bool csv, bool accepts_gzip);
  // What the work estimates (plugin/work_estimate.h) read files under.
  WorkLimits EstimateLimits() const;
  HttpResponse CaptureProfile(const Query& q);  // blocks for the capture's duration
  // Why a request may not change state (capture): not POST, sent by a page of
  // another origin, or without the token; nullopt when it may.
  std::optional<HttpResponse> RefuseForeignRequest(const HttpRequest& request) const;
  // Hands memory freed by evictions and large conversions (`work_peak_bytes`:
  // the most the conversion claimed) back to the system.
  void ReturnFreedMemory(uint64_t work_peak_bytes);
  // /tool_table: each tool's name, display name, other name and whether /hosts offers it unlisted.
  HttpResponse ToolTable();
  HttpResponse TensorBoardRuns();
  HttpResponse PluginsListing();
  HttpResponse Static(std::string_view path);
  // Reads the UI bundle under web_dir_ into static_files_, once.
  void LoadStaticFiles();

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
  // The run a request names with its listing when that is younger than
  // runs_ttl; nullopt otherwise (then listing it is a worker's job). Lists no
  // directory.
  std::optional<ListedRun> FreshListedRun(const Query& q);
  // The run named `run` with its listing: `listed` when the network thread
  // found it fresh for this request, else resolved and listed here.
  StatusOr<ListedRun> ListRun(std::string_view run, const RunScope& scope, const ListedRun* listed);

  Logdir logdir_;
  std::string web_dir_;
  // The UI bundle, read whole at start-up (it is small): path under web_dir_
  // → the file as cached results are kept (compressed ahead of time).
  std::unordered_map<std::string, std::shared_ptr<const CachedOutput>> static_files_;
  ArtifactCache cache_;
  std::chrono::milliseconds runs_ttl_;
  uint64_t max_response_bytes_;
  uint64_t max_inflated_bytes_;
  uint64_t max_static_bytes_;
  bool allow_capture_;
  std::string request_token_;
  std::mutex trim_mu_;
  uint64_t evicted_at_last_trim_ = 0;
  std::mutex runs_mu_;
  // Unscoped runs found by path since the last listing (guarded by runs_mu_),
  // so requests for a run no /runs has indexed yet skip realpath() too.
  std::unordered_map<std::string, RunRef> resolved_runs_;
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
