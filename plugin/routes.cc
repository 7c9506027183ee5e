#include "plugin/routes.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <filesystem>
#include <random>
#include <set>

#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/base/cancellation.h"
#include "convert/base/json.h"
#include "convert/base/memory_grant.h"
#include "convert/base/strings.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/tfprof_tools.h"
#include "convert/model/xspace_model.h"
#include "plugin/capture/capture.h"
#include "plugin/gzip.h"
#include "plugin/route_util.h"
#include "plugin/catalogue/run_tools.h"

namespace tbprof {
namespace fs = std::filesystem;
namespace json = boost::json;

const char kContentSecurityPolicy[] =
    "default-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'self'; "
    "frame-ancestors 'self'; form-action 'self'";
const char kTbprofVersion[] = "0.1.0";

namespace {

constexpr std::string_view kPluginPrefix = "/data/plugin/profile";

// Working memory of listings and small answers: small against any budget.
// Work that reads profiles once a run is listed (run_tools, module_list,
// /data) hands that part back with its own estimate.
constexpr uint64_t kListingBytes = uint64_t{1} << 20;

// TensorBoard's plugin entry page; its inline module
// script is allowed by its hash (base64 SHA-256 of the script text, computed
// with Python hashlib) so the CSP can stay 'self'-only.
constexpr std::string_view kPluginEntryScript = "import(\"./index.js\").then((m) => void m.render());";
constexpr std::string_view kPluginEntryScriptHash = "sha256-PVZp/wXI2V6hq7T2aNiDNM+vJWIOWwNwyhE53i+6lSQ=";

// 128 random bits as hex, from the system's random source.
std::string RandomToken() {
  std::random_device random;
  std::string token;
  static const char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 4; ++i) {
    uint32_t word = random();
    for (int nibble = 0; nibble < 8; ++nibble, word >>= 4) token += kHex[word & 15];
  }
  return token;
}

// Whether an Origin header names the server the request was sent to (its
// Host header), as the UI's own pages do.
bool IsOwnOrigin(std::string_view origin, std::string_view host) {
  if (host.empty()) return false;
  for (std::string_view scheme : {"http://", "https://"}) {
    if (StartsWithIgnoringAsciiCase(origin, scheme) && AsciiLowered(origin.substr(scheme.size())) == AsciiLowered(host)) {
      return true;
    }
  }
  return false;
}

// A run that could not be listed for want of file descriptors: 503, not an
// empty answer the UI would take for "no profiles".
HttpResponse RunNotListed() {
  return FromStatus(Unavailable("out of file descriptors while listing the run; try again"));
}

HttpResponse Json(const json::value& v, int status = 200) {
  return Text(status, json::serialize(v), "application/json");
}

json::array StringArray(const std::vector<std::string>& v) {
  json::array a;
  for (const std::string& s : v) a.emplace_back(s);
  return a;
}

std::string ContentTypeOfFile(std::string_view name) {
  static const std::vector<std::pair<std::string_view, std::string_view>> types = {
      {".html", "text/html; charset=utf-8"}, {".js", "application/javascript"}, {".mjs", "application/javascript"},
      {".css", "text/css"}, {".json", "application/json"}, {".map", "application/json"},
      {".wasm", "application/wasm"}, {".svg", "image/svg+xml"}, {".png", "image/png"}, {".ico", "image/x-icon"},
      {".woff2", "font/woff2"}, {".woff", "font/woff"}, {".txt", "text/plain"}};
  for (const auto& [ext, type] : types) {
    if (name.ends_with(ext)) return std::string(type);
  }
  return "application/octet-stream";
}

}  // namespace

// ---------------------------------------------------------------------------

std::string DefaultWebDir() {
#ifdef TBPROF_WEB_DIR
  const std::string built = TBPROF_WEB_DIR;
#else
  const std::string built;
#endif
  std::error_code ec;
  if (!built.empty() && fs::is_regular_file(fs::path(built) / "index.html", ec)) return built;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path beside = exe.parent_path() / "web";
    if (fs::is_regular_file(beside / "index.html", ec)) return beside.string();
  }
  return built.empty() && !exe.empty() ? (exe.parent_path() / "web").string() : built;
}

std::string PercentEncode(std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

StatusOr<std::unique_ptr<ProfileService>> ProfileService::Create(const ProfileServiceOptions& options) {
  ASSIGN_OR_RETURN(auto logdir, Logdir::Open(options.logdir));
  return std::unique_ptr<ProfileService>(new ProfileService(std::move(logdir), options));
}

ProfileService::ProfileService(Logdir logdir, const ProfileServiceOptions& options)
    : logdir_(std::move(logdir)),
      web_dir_(options.web_dir),
      cache_(options.cache_bytes),
      runs_ttl_(options.runs_ttl),
      max_response_bytes_(options.max_response_bytes),
      max_inflated_bytes_(options.max_inflated_bytes),
      max_static_bytes_(options.max_static_bytes),
      allow_capture_(options.allow_capture),
      request_token_(RandomToken()) {
  LoadStaticFiles();
}

std::variant<HttpResponse, ProfileService::Deferred> ProfileService::Begin(const HttpRequest& request) {
  const std::string& method = request.method;
  if (method != "GET" && method != "HEAD" && method != "POST") {
    HttpResponse r = Text(405, "Method Not Allowed");
    r.headers.emplace_back("Allow", "GET, HEAD, POST");
    return r;
  }
  std::string_view target = request.target;
  if (target.empty() || target.front() != '/') return Text(400, "request target must be an absolute path");
  size_t qmark = target.find('?');
  std::string_view raw_path = target.substr(0, qmark);
  // Encoded separators and NULs in the path could smuggle "a%2F..%2Fb"
  // past a per-segment check: refuse them before decoding.
  for (std::string_view bad : {"%2f", "%5c", "%00"}) {
    auto it = std::search(raw_path.begin(), raw_path.end(), bad.begin(), bad.end(),
                          [](char a, char b) { return AsciiLower(a) == b; });
    if (it != raw_path.end()) return Text(400, "encoded '/', '\\' or NUL is not allowed in the URL path");
  }
  auto path = PercentDecode(raw_path, false);
  if (!path) return Text(400, "malformed percent-encoding in the URL path");
  if (path->find('\0') != std::string::npos || path->find('\\') != std::string::npos) {
    return Text(400, "NUL or '\\' is not allowed in the URL path");
  }
  Query q;
  if (qmark != std::string_view::npos) {
    auto params = ParseQuery(target.substr(qmark + 1));
    if (!params.ok()) return FromStatus(params.status());
    q.params = std::move(*params);
  }
  return Route(*path, q, request);
}

HttpResponse ProfileService::Deferred::operator()() const {
  std::variant<HttpResponse, Deferred> outcome = run();
  while (auto* rest = std::get_if<Deferred>(&outcome)) outcome = rest->run();
  return std::get<HttpResponse>(std::move(outcome));
}

HttpResponse ProfileService::Handle(const HttpRequest& request) {
  Outcome outcome = Begin(request);
  if (auto* ready = std::get_if<HttpResponse>(&outcome)) return std::move(*ready);
  return std::get<Deferred>(outcome)();
}

namespace {

// A /data tag that is no tool of any run: not a profile tool, tfprof, compare or a legacy file's tool (or its
// old name). A trailing '^' is TBP 2.13–2.18's spelling.
bool IsUnknownToolName(std::string tag) {
  if (tag.size() > 1 && tag.back() == '^') tag.pop_back();
  if (tag.empty() || tag == "compare" || tag == kTfprofToolName || FindProfileTool(tag) != nullptr) return false;
  for (const LegacyToolSpec& l : LegacyConverters()) {
    if (l.tool == tag || l.alias == tag) return false;
  }
  return true;
}

// Work for a worker thread on `lane`, with the working memory of a listing or a small answer.
template <typename Fn>
ProfileService::Deferred Later(WorkLane lane, Fn&& fn) {
  return ProfileService::Deferred{
      [fn = std::forward<Fn>(fn)]() -> std::variant<HttpResponse, ProfileService::Deferred> { return fn(); },
      kListingBytes, lane};
}

}  // namespace

// Walking the logdir, looking inside profiles and converting them is work
// for a worker (on the route's lane); everything else is answered here.
const std::vector<ProfileService::RouteEntry>& ProfileService::RouteTable() {
  using S = ProfileService;
  static const std::vector<RouteEntry> table = {
      // TensorBoard's core routes (mounted at the root).
      {"/data/plugins_listing", "GET", &S::RoutePluginsListing, WorkLane::kListing},
      {"/data/runs", "GET", &S::RouteTensorBoardRuns, WorkLane::kListing},
      {"/data/logdir", "GET", &S::RouteLogdir, WorkLane::kListing},
      {"/data/environment", "GET", &S::RouteEnvironment, WorkLane::kListing},
      {"/data/notifications", "GET", &S::RouteNotifications, WorkLane::kListing},
      {"/data/plugin_entry.html", "GET", &S::RoutePluginEntry, WorkLane::kListing},
      // The profile plugin's routes (at /data/plugin/profile/<route> and /<route>).
      {"/runs", "GET", &S::RouteRuns, WorkLane::kListing},
      {"/hosts", "GET", &S::RouteHosts, WorkLane::kListing},
      {"/run_tools", "GET", &S::RouteRunTools, WorkLane::kListing},
      {"/module_list", "GET", &S::RouteModuleList, WorkLane::kListing},
      {"/data", "GET", &S::RouteData, WorkLane::kListing},
      {"/data_csv", "GET", &S::RouteData, WorkLane::kListing},
      {"/config", "GET", &S::RouteConfig, WorkLane::kListing},
      {"/version", "GET", &S::RouteVersion, WorkLane::kListing},
      {"/tool_table", "GET", &S::RouteToolTable, WorkLane::kListing},
      // Traces for the requested duration: it holds a capture thread for that long.
      {"/capture_profile", "POST", &S::RouteCaptureProfile, WorkLane::kCapture},
  };
  return table;
}

ProfileService::Outcome ProfileService::Route(std::string_view full_path, const Query& query,
                                             const HttpRequest& request) {
  std::string_view path = full_path;
  if (path.starts_with(kPluginPrefix) && (path.size() == kPluginPrefix.size() || path[kPluginPrefix.size()] == '/')) {
    path.remove_prefix(kPluginPrefix.size());
  }
  if (path.empty()) path = "/";
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  for (const RouteEntry& route : RouteTable()) {
    // TensorBoard's core routes are matched as sent; the plugin's without their prefix.
    if (route.path != (route.path.starts_with("/data/") ? full_path : path)) continue;
    // A route that changes state takes POST from this UI only.
    if (route.method == "POST") {
      if (auto refused = RefuseForeignRequest(request)) return std::move(*refused);
    }
    return (this->*route.handler)(RouteCall{route.path, query, request, route.lane});
  }
  return Static(path);
}

ProfileService::Outcome ProfileService::RoutePluginsListing(const RouteCall& call) {
  if (FreshRunIndex() != nullptr) return PluginsListing();
  return Later(call.lane, [this] { return PluginsListing(); });
}

ProfileService::Outcome ProfileService::RouteTensorBoardRuns(const RouteCall& call) {
  if (FreshRunIndex() != nullptr) return TensorBoardRuns();
  return Later(call.lane, [this] { return TensorBoardRuns(); });
}

ProfileService::Outcome ProfileService::RouteLogdir(const RouteCall&) {
  return Json(json::object{{"logdir", logdir_.root()}});
}

ProfileService::Outcome ProfileService::RouteEnvironment(const RouteCall&) {
  return Json(json::object{{"creation_time", 0.0},
                           {"data_location", logdir_.root()},
                           {"experiment_description", ""},
                           {"experiment_name", ""},
                           {"version", std::string("tbprof ") + kTbprofVersion},
                           {"window_title", ""}});
}

ProfileService::Outcome ProfileService::RouteNotifications(const RouteCall&) {
  HttpResponse r = Text(302, "");
  r.headers.emplace_back("Location", "../notifications_note.json");
  return r;
}

ProfileService::Outcome ProfileService::RoutePluginEntry(const RouteCall&) {
  HttpResponse r = Text(200,
                        "<!DOCTYPE html>\n<head><base href=\"plugin/profile/\" /></head>\n<body><script type=\"module\">" +
                            std::string(kPluginEntryScript) + "</script></body>\n",
                        "text/html; charset=utf-8");
  r.headers.emplace_back("Content-Security-Policy", std::string(kContentSecurityPolicy) + "; script-src 'self' '" +
                                                        std::string(kPluginEntryScriptHash) + "'");
  return r;
}

ProfileService::Outcome ProfileService::RouteRuns(const RouteCall& call) {
  if (call.query.Scope().empty() && FreshRunIndex() != nullptr) return Runs(call.query);
  return Later(call.lane, [this, query = call.query] { return Runs(query); });
}

// /hosts and /data read the run's listing: here when it is fresh, else on a worker.
ProfileService::Outcome ProfileService::RouteHosts(const RouteCall& call) {
  if (auto listed = FreshListedRun(call.query)) return Hosts(call.query, &*listed);
  return Later(call.lane, [this, query = call.query] { return Hosts(query); });
}

ProfileService::Outcome ProfileService::RouteRunTools(const RouteCall& call) {
  return Later(call.lane, [this, query = call.query] { return RunTools(query); });  // may read a profile's header
}

ProfileService::Outcome ProfileService::RouteModuleList(const RouteCall& call) {
  return Later(call.lane, [this, query = call.query] { return ModuleList(query); });
}

ProfileService::Outcome ProfileService::RouteData(const RouteCall& call) {
  const Query& query = call.query;
  const bool csv = call.path == "/data_csv";
  const bool accepts_gzip = AcceptsGzip(HeaderOf(call.request, "accept-encoding"));
  // A tag that names no tool: the answer lists the run's tools, which may read a profile's header (a worker's job).
  if (IsUnknownToolName(query.Get("tag"))) return Later(call.lane, [this, query] { return UnknownTool(query); });
  // compare lists a second run, which is a worker's job whatever the first run's listing.
  std::optional<ListedRun> listed = query.Get("tag") == "compare" ? std::nullopt : FreshListedRun(query);
  if (!listed) {
    return Later(call.lane, [this, query, csv, accepts_gzip] { return PlanAndComputeData(query, csv, accepts_gzip); });
  }
  auto plan = PlanData(query, csv, accepts_gzip, &*listed);
  if (auto* answer = std::get_if<HttpResponse>(&plan)) return std::move(*answer);
  if (auto cached = CachedData(std::get<DataPlan>(plan))) return std::move(*cached);
  return ComputeDataLater(std::move(std::get<DataPlan>(plan)));
}

ProfileService::Outcome ProfileService::RouteConfig(const RouteCall&) {
  json::object config{
      {"enableTabNameLabel", false}, {"hideCaptureProfileButton", !allow_capture_}, {"srcPathPrefix", ""}};
  // Only a page of this origin can read it (no CORS): it proves a capture request comes from the UI.
  if (allow_capture_) config["captureToken"] = request_token_;
  HttpResponse r = Json(config);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

ProfileService::Outcome ProfileService::RouteVersion(const RouteCall&) { return Text(200, kTbprofVersion); }

ProfileService::Outcome ProfileService::RouteToolTable(const RouteCall&) { return ToolTable(); }

ProfileService::Outcome ProfileService::RouteCaptureProfile(const RouteCall& call) {
  return Later(call.lane, [this, query = call.query] { return CaptureProfile(query); });
}

// A capture makes the server connect where the request says and write into
// the logdir, so a page of another site must not be able to ask for one: an
// <img> or a form sends GET or a simple POST with the user's access to
// localhost. Only a POST from this origin with the token passes: browsers
// mark other sites' requests (Sec-Fetch-Site, Origin), and the token header
// needs both a value only this origin can read and a CORS preflight the
// server never grants.
std::optional<HttpResponse> ProfileService::RefuseForeignRequest(const HttpRequest& request) const {
  auto refuse = [](int status, const std::string& message) { return Json(json::object{{"error", message}}, status); };
  if (request.method != "POST") {
    HttpResponse r = refuse(405, "capture_profile changes the logdir: send it as POST");
    r.headers.emplace_back("Allow", "POST");
    return r;
  }
  const std::string site = AsciiLowered(HeaderOf(request, "sec-fetch-site"));
  if (!site.empty() && site != "same-origin" && site != "none") {
    return refuse(403, "capture_profile is refused from another site (Sec-Fetch-Site: " + ValidUtf8(site) + ")");
  }
  const std::string origin = HeaderOf(request, "origin");
  if (!origin.empty() && !IsOwnOrigin(origin, HeaderOf(request, "host"))) {
    return refuse(403, "capture_profile is refused from another origin (" + ValidUtf8(origin.substr(0, 200)) + ")");
  }
  if (HeaderOf(request, std::string(kRequestTokenHeader)) != request_token_) {
    return refuse(403, "capture_profile needs this server's token in the " + std::string(kRequestTokenHeader) +
                           " header, as its UI sends it (from /config)");
  }
  return std::nullopt;
}

// xprof's capture_profile: the same parameters and defaults, success as
// {"result": "Capture profile successfully. Please refresh."}, any failure as
// HTTP 500 {"error": message}.
HttpResponse ProfileService::CaptureProfile(const Query& q) {
  // Messages quote parameters, which may be any bytes: JSON carries UTF-8 only.
  auto error = [](const std::string& message) { return Json(json::object{{"error", ValidUtf8(message)}}, 500); };
  if (!allow_capture_) return error("capture is turned off on this server (tbprof serve --no_capture)");
  // A TPU name is resolved to addresses by TensorFlow's cluster resolver, which tbprof does not have.
  if (q.Get("is_tpu_name") == "true") return error("TensorFlow is not installed, but is required to use TPU names.");
  auto int_param = [&](const char* key, int64_t fallback, int64_t& out) -> std::optional<HttpResponse> {
    std::string v = q.Get(key);
    if (v.empty()) {
      out = fallback;
      return std::nullopt;
    }
    size_t used = 0;
    try {
      out = std::stoll(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != v.size()) return error(std::string(key) + ": '" + v + "' is not an integer");
    return std::nullopt;
  };
  int64_t duration = 0, num_retry = 0, host = 0, device = 0, python = 0, delay = 0;
  for (auto bad : {int_param("duration", 1000, duration), int_param("num_retry", 0, num_retry),
                   int_param("host_tracer_level", 2, host), int_param("device_tracer_level", 1, device),
                   int_param("python_tracer_level", 0, python), int_param("delay", 0, delay)}) {
    if (bad) return *bad;
  }
  if (num_retry < 0 || num_retry > kMaxCaptureRetries || host < 0 || device < 0 || python < 0) {
    return error("num_retry must be 0.." + std::to_string(kMaxCaptureRetries) +
                 " and the tracer levels must not be negative");
  }
  // A capture holds a capture thread (and one per worker) for about
  // (delay + 2 x duration, at least 60 s) per attempt: bounded so that no request holds them for hours.
  if (duration > kMaxCaptureDurationMs) {
    return error("duration must be at most " + std::to_string(kMaxCaptureDurationMs) + " ms");
  }
  if (delay < 0 || delay > kMaxCaptureDelayMs) {
    return error("delay must be 0.." + std::to_string(kMaxCaptureDelayMs) + " ms");
  }
  // A worker list names the hosts to trace, as it does for TensorBoard's TPU capture.
  std::string addresses = q.Get("worker_list").empty() ? q.Get("service_addr") : q.Get("worker_list");
  if (addresses.empty()) return error("service_addr is required");
  auto parsed = capture::ParseServiceAddresses(addresses);
  if (!parsed.ok()) return error(parsed.status().message());
  if (parsed->size() > kMaxCaptureWorkers) {
    return error("at most " + std::to_string(kMaxCaptureWorkers) + " workers can be captured at once (" +
                 std::to_string(parsed->size()) + " given)");
  }
  capture::CaptureOptions options;
  options.service_addresses = std::move(*parsed);
  options.logdir = logdir_.root();
  options.duration_ms = duration;
  options.num_tracing_attempts = static_cast<int>(num_retry) + 1;
  options.host_tracer_level = static_cast<uint32_t>(host);
  options.device_tracer_level = static_cast<uint32_t>(device);
  options.python_tracer_level = static_cast<uint32_t>(python);
  options.delay_ms = delay;
  auto captured = capture::CaptureProfile(options);
  if (!captured.ok()) return error(captured.status().message());
  {
    std::lock_guard<std::mutex> lock(runs_mu_);
    run_index_.reset();  // the next /runs lists the new run at once
  }
  return Json(json::object{{"result", "Capture profile successfully. Please refresh."}});
}

StatusOr<std::shared_ptr<const ProfileService::RunIndex>> ProfileService::RunIndexOf(const RunScope& scope) {
  auto build = [](std::vector<RunRef> runs) {
    auto index = std::make_shared<RunIndex>();
    json::array names;
    for (size_t i = 0; i < runs.size(); ++i) {
      index->by_name.emplace(runs[i].name, i);
      names.emplace_back(runs[i].name);
    }
    index->json = json::serialize(names);
    index->runs = std::move(runs);
    return std::shared_ptr<const RunIndex>(std::move(index));
  };
  if (!scope.empty()) {
    ASSIGN_OR_RETURN(auto runs, logdir_.ListRuns(scope));
    return build(std::move(runs));
  }
  auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(runs_mu_);
  if (run_index_ == nullptr || now - runs_scanned_ >= runs_ttl_) {
    ASSIGN_OR_RETURN(auto runs, logdir_.ListRuns(scope));
    run_index_ = build(std::move(runs));
    resolved_runs_.clear();
    runs_scanned_ = now;
  }
  return run_index_;
}

std::shared_ptr<const ProfileService::RunIndex> ProfileService::FreshRunIndex() {
  std::lock_guard<std::mutex> lock(runs_mu_);
  if (run_index_ == nullptr || std::chrono::steady_clock::now() - runs_scanned_ >= runs_ttl_) return nullptr;
  return run_index_;
}

StatusOr<RunRef> ProfileService::ResolveRun(std::string_view run, const RunScope& scope) {
  while (run.size() > 1 && run.back() == '/') run.remove_suffix(1);
  if (auto s = CheckRunName(run); !s.ok()) return s;
  if (scope.empty()) {
    // A run the fresh index or an earlier lookup by path found: its canonical
    // directory was checked to be inside the logdir then, and is used while
    // it is still a directory (one swapped for a symlink goes the slow way).
    std::optional<RunRef> known;
    if (std::shared_ptr<const RunIndex> index = FreshRunIndex()) {
      auto it = index->by_name.find(std::string(run));
      if (it != index->by_name.end()) known = index->runs[it->second];
    }
    if (!known) {
      std::lock_guard<std::mutex> lock(runs_mu_);
      auto it = resolved_runs_.find(std::string(run));
      if (it != resolved_runs_.end()) known = it->second;
    }
    std::error_code ec;
    if (known && fs::symlink_status(known->dir, ec).type() == fs::file_type::directory) return *known;
  }
  StatusOr<RunRef> found = logdir_.FindRun(run, scope);
  if (found.ok() && scope.empty()) {
    std::lock_guard<std::mutex> lock(runs_mu_);
    // Only runs that exist get here; the bound keeps a logdir with very many
    // runs from growing the map without end.
    if (resolved_runs_.size() >= 4096) resolved_runs_.clear();
    resolved_runs_[found->name] = *found;
  }
  return found;
}

std::shared_ptr<const RunContents> ProfileService::Contents(const std::string& dir) {
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(contents_mu_);
    auto it = contents_.find(dir);
    if (it != contents_.end() && now - it->second.first < runs_ttl_) return it->second.second;
  }
  auto scanned = std::make_shared<const RunContents>(logdir_.ScanRun(dir));
  if (scanned->out_of_descriptors) return scanned;  // incomplete: not reused
  std::lock_guard<std::mutex> lock(contents_mu_);
  contents_[dir] = {now, scanned};
  return scanned;
}

std::optional<ProfileService::ListedRun> ProfileService::FreshListedRun(const Query& q) {
  if (!q.Scope().empty()) return std::nullopt;  // scoped runs are found by listing directories
  // Resolving an unscoped run looks up the run index or stats its path; it lists nothing.
  auto ref = ResolveRun(q.Get("run"), RunScope{});
  if (!ref.ok()) return std::nullopt;
  std::lock_guard<std::mutex> lock(contents_mu_);
  auto c = contents_.find(ref->dir);
  if (c == contents_.end() || std::chrono::steady_clock::now() - c->second.first >= runs_ttl_) return std::nullopt;
  return ListedRun{std::move(*ref), c->second.second};
}

StatusOr<ProfileService::ListedRun> ProfileService::ListRun(std::string_view run, const RunScope& scope,
                                                            const ListedRun* listed) {
  // A run found fresh was resolved (its directory stat'ed) for this request already.
  if (listed != nullptr) return *listed;
  auto ref = ResolveRun(run, scope);
  if (!ref.ok()) return ref.status();
  std::shared_ptr<const RunContents> contents = Contents(ref->dir);
  return ListedRun{std::move(*ref), std::move(contents)};
}

HttpResponse ProfileService::Runs(const Query& q) {
  auto index = RunIndexOf(q.Scope());
  if (!index.ok()) return FromStatus(index.status());
  return Text(200, (*index)->json, "application/json");
}

std::variant<HttpResponse, ProfileService::Deferred> ProfileService::RunTools(const Query& q) {
  std::string run = q.Get("run");
  if (run.empty()) return Json(json::array());
  auto ref = ResolveRun(run, q.Scope());
  if (!ref.ok()) {
    return ref.status().code() == ErrorCode::kNotFound ? Json(json::array()) : FromStatus(ref.status());
  }
  std::shared_ptr<const RunContents> contents = Contents(ref->dir);
  if (contents->out_of_descriptors) return RunNotListed();
  auto list = [this, contents] {
    FileAccessScope confined(logdir_.confined_root(), max_inflated_bytes_);
    if (!contents->profiles.empty()) LimitInflationToEstimate(confined, contents->profiles.front().path, max_inflated_bytes_);
    return Json(StringArray(ToolsOfRun(*contents)));
  };
  // Listing reads the first profile's structure, never its model; a gzip'ed
  // one is inflated first: admitted by what it inflates to.
  const uint64_t bytes = contents->profiles.empty() ? 0 : SummaryBytes(EstimateLimits(), contents->profiles.front());
  if (bytes == 0) return list();
  return Deferred{[list]() -> std::variant<HttpResponse, Deferred> { return list(); }, bytes, WorkLane::kConversion,
                  /*estimate_unconfirmed=*/true};
}

HttpResponse ProfileService::UnknownTool(const Query& q) {
  std::string tag = q.Get("tag"), run = q.Get("run");
  if (auto s = CheckPlainName("tag", tag); !s.ok()) return FromStatus(s);
  // "No Data" first, as xprof's answer begins, for clients that look for it.
  std::string answer = "No Data: tbprof has no tool \"" + tag + "\".";
  if (run.empty()) return Text(404, answer + " Name a run (run=) to see its tools.");
  auto ref = ResolveRun(run, q.Scope());
  if (!ref.ok()) return FromStatus(ref.status());
  std::shared_ptr<const RunContents> contents = Contents(ref->dir);
  if (contents->out_of_descriptors) return RunNotListed();
  FileAccessScope confined(logdir_.confined_root(), max_inflated_bytes_);
  if (!contents->profiles.empty()) LimitInflationToEstimate(confined, contents->profiles.front().path, max_inflated_bytes_);
  std::vector<std::string> tools = ToolsOfRun(*contents);
  if (tools.empty()) return Text(404, answer + " Run \"" + run + "\" has no tool that tbprof can show.");
  std::string list;
  for (const std::string& t : tools) list += (list.empty() ? "" : ", ") + t;
  return Text(404, answer + " Run \"" + run + "\" offers: " + list + ".");
}

HttpResponse ProfileService::Hosts(const Query& q, const ListedRun* listed) {
  std::string run = q.Get("run"), tag = q.Get("tag");
  if (!tag.empty()) {
    auto s = CheckPlainName("tag", tag);
    if (!s.ok()) return FromStatus(s);
    if (tag.back() == '^') tag.pop_back();
  }
  if (run.empty()) return Json(json::array());
  auto found = ListRun(run, q.Scope(), listed);
  if (!found.ok()) {
    return found.status().code() == ErrorCode::kNotFound ? Json(json::array()) : FromStatus(found.status());
  }
  if (found->contents->out_of_descriptors) return RunNotListed();
  std::vector<std::string> hosts = HostsOfRun(*found->contents, tag);
  json::array a;
  for (const std::string& h : hosts) {
    json::object entry{{"hostname", h}};
    // A host whose file is empty or cut short says so (an extra field: xprof's clients read only "hostname").
    for (const RunFile& f : found->contents->profiles) {
      if (f.host == h && !f.problem.empty()) entry["problem"] = f.problem;
    }
    a.emplace_back(std::move(entry));
  }
  return Json(a);
}

std::variant<HttpResponse, ProfileService::Deferred> ProfileService::ModuleList(const Query& q) {
  std::string run = q.Get("run");
  if (run.empty()) return Text(200, "");
  auto ref = ResolveRun(run, q.Scope());
  if (!ref.ok()) return ref.status().code() == ErrorCode::kNotFound ? Text(200, "") : FromStatus(ref.status());
  std::shared_ptr<const RunContents> scanned = Contents(ref->dir);
  if (scanned->out_of_descriptors) return RunNotListed();
  // Modules also come from the first profile's model: loading it is admitted by its estimate.
  const uint64_t bytes = FirstModelLoadBytes(cache_, EstimateLimits(), *scanned);
  if (bytes == 0) return ListModules(*scanned);
  return Deferred{[this, scanned]() -> std::variant<HttpResponse, Deferred> { return ListModules(*scanned); }, bytes,
                  WorkLane::kConversion, EstimateRestsOnGzip(EstimateLimits(), scanned->profiles.front().path)};
}

HttpResponse ProfileService::ListModules(const RunContents& contents) {
  std::vector<std::string> modules = contents.hlo_modules;
  FileAccessScope confined(logdir_.confined_root(), max_inflated_bytes_);
  // Modules also come from the HLO protos in the XSpace's /host:metadata plane:
  // the first profile's that can be read (a damaged host's is passed over, as ALL_HOSTS passes it over).
  for (const RunFile& profile : contents.profiles) {
    LimitInflationToEstimate(confined, profile.path, max_inflated_bytes_);
    auto model = LoadModelCached(profile.path, &cache_);
    if (!model.ok()) {
      if (MemoryRefused() || CancelRequested()) break;
      continue;
    }
    // The metadata plane's modules (their `Hlo Proto` stat), named as compiled.
    for (const std::string& name : HloModuleNames(**model)) {
      if (std::find(modules.begin(), modules.end(), name) == modules.end()) modules.push_back(name);
    }
    break;
  }
  std::string out;
  for (const std::string& mod : modules) out += (out.empty() ? "" : ",") + mod;
  return Text(200, out);
}

HttpResponse ProfileService::ToolTable() {
  // tbprof's own route (xprof's /run_tools stays a list of names): the UI's menu words come from the tool table.
  json::array tools;
  for (const ToolSpec& t : ProfileTools()) {
    json::object entry{{"name", t.name}, {"display_name", t.display_name}};
    if (!t.same_as.empty()) entry["same_as"] = t.same_as;
    // Not listed by /run_tools, but offered wherever /hosts names a host for it (pod_viewer).
    if (t.listing == Listing::kNever && t.offered_with_several_hosts_only) entry["offered_by_hosts"] = true;
    tools.emplace_back(std::move(entry));
  }
  return Json(tools);
}

HttpResponse ProfileService::TensorBoardRuns() {
  auto index = RunIndexOf(RunScope{});
  if (!index.ok()) return FromStatus(index.status());
  std::set<std::string> tb_runs;
  for (const RunRef& r : (*index)->runs) {
    size_t slash = r.name.rfind('/');
    tb_runs.insert(slash == std::string::npos ? "." : r.name.substr(0, slash));
  }
  return Json(StringArray(std::vector<std::string>(tb_runs.begin(), tb_runs.end())));
}

HttpResponse ProfileService::PluginsListing() {
  auto index = RunIndexOf(RunScope{});
  bool enabled = index.ok() && !(*index)->runs.empty();
  json::object profile{{"disable_reload", false},
                       {"enabled", enabled},
                       {"loading_mechanism", json::object{{"module_path", "/data/plugin/profile/index.js"},
                                                          {"type", "IFRAME"}}},
                       {"remove_dom", false},
                       {"tab_name", "profile"}};
  return Json(json::object{{"profile", profile}});
}

void ProfileService::LoadStaticFiles() {
  // Read once, here, so that serving the UI never touches the disk on a
  // network thread. Symlinks are followed only to files inside the bundle.
  std::error_code ec;
  const fs::path root = fs::canonical(web_dir_, ec);
  if (ec || !fs::is_regular_file(root / "index.html", ec)) return;
  const std::string rs = root.string();
  uint64_t total = 0;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    std::error_code fec;
    fs::path c = fs::canonical(it->path(), fec);
    if (fec || !fs::is_regular_file(c, fec)) continue;
    const std::string cs = c.string();
    if (!(cs.size() > rs.size() && cs.starts_with(rs) && cs[rs.size()] == '/')) continue;
    const std::string rel = it->path().lexically_relative(root).generic_string();
    const uint64_t size = fs::file_size(c, fec);
    if (fec || total + size > max_static_bytes_) continue;
    auto bytes = ReadWholeFile(cs, max_static_bytes_);
    if (!bytes.ok()) continue;
    total += bytes->size();
    ToolOutput out;
    out.body = std::move(*bytes);
    out.content_type = ContentTypeOfFile(rel);
    auto cached = MakeCachedOutput(std::move(out));
    if (cached.ok()) static_files_.emplace(rel, cached->value);
  }
}

HttpResponse ProfileService::Static(std::string_view path) {
  // Decoded path segments; ".." never reaches the file system.
  std::string rel;
  for (size_t start = 1; start <= path.size();) {
    size_t end = std::min(path.find('/', start), path.size());
    std::string_view seg = path.substr(start, end - start);
    start = end + 1;
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") return Text(400, "'..' is not allowed in the URL path");
    rel += (rel.empty() ? "" : "/") + std::string(seg);
  }
  if (rel.empty()) rel = "index.html";
  auto serve = [&](const std::string& file) -> std::optional<HttpResponse> {
    auto it = static_files_.find(file);
    if (it == static_files_.end()) return std::nullopt;
    return FromCached(it->second);
  };
  if (auto r = serve(rel)) return *r;
  if (rel == "index.js") {
    // TensorBoard's plugin_entry.html imports ./index.js and calls render(),
    // which opens the plugin's own page (xprof's static/index.js contract).
    return Text(200, "export async function render() {\n  document.location.href = 'index.html';\n}\n",
                "application/javascript");
  }
  // Unknown paths without a file extension are the UI's own routes (xprof
  // answers them with index.html); a missing asset is a plain 404.
  std::string_view last = std::string_view(rel).substr(rel.rfind('/') == std::string::npos ? 0 : rel.rfind('/') + 1);
  bool looks_like_file = last.find('.') != std::string_view::npos && rel != "index.html";
  if (looks_like_file) return Text(404, "Not found");
  if (auto r = serve("index.html")) return *r;
  return Text(200,
              "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tbprof</title></head><body>\n"
              "<h1>tbprof: the web UI is not built</h1>\n"
              "<p>The profile API is up (try <a href=\"data/plugin/profile/runs\">runs</a>), but no UI was found in "
              "the web directory <code>" +
                  web_dir_ +
                  "</code>.</p>\n<p>Build the UI into <code>plugin/web/dist/</code> (see plugin/web/), or start the "
                  "server with <code>--web_dir DIR</code> pointing at a built UI.</p>\n</body></html>\n",
              "text/html; charset=utf-8");
}

}  // namespace tbprof
