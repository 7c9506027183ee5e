#include "plugin/routes.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "convert/analysis/hlo_module.h"
#include "convert/tools/cached_loads.h"
#include "convert/xplane/xspace_model.h"
#include "plugin/gzip.h"
#include "plugin/run_tools.h"

namespace tbprof {
namespace fs = std::filesystem;
namespace json = boost::json;

const char kContentSecurityPolicy[] =
    "default-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'self'; "
    "frame-ancestors 'self'; form-action 'self'";
const char kTbprofVersion[] = "0.1.0";

namespace {

constexpr std::string_view kPluginPrefix = "/data/plugin/profile";
constexpr size_t kGzipAheadMinBytes = 1024;  // smaller cached bodies are sent as they are

// TensorBoard's plugin entry page; its inline module
// script is allowed by its hash (base64 SHA-256 of the script text, computed
// with Python hashlib) so the CSP can stay 'self'-only.
constexpr std::string_view kPluginEntryScript = "import(\"./index.js\").then((m) => void m.render());";
constexpr std::string_view kPluginEntryScriptHash = "sha256-PVZp/wXI2V6hq7T2aNiDNM+vJWIOWwNwyhE53i+6lSQ=";

// Query parameters that select inputs; they are part of a cache key through the files.
const std::set<std::string, std::less<>> kInputParams = {"run", "tag", "host", "hosts", "session_path", "run_path"};

HttpResponse Text(int status, std::string body, std::string content_type = "text/plain") {
  HttpResponse r;
  r.status = status;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

HttpResponse Json(const json::value& v, int status = 200) {
  return Text(status, json::serialize(v), "application/json");
}

HttpResponse FromStatus(const Status& s) {
  switch (s.code()) {
    case ErrorCode::kInvalidArgument:
      return Text(400, s.message());
    case ErrorCode::kNotFound:
    case ErrorCode::kUnimplemented:
      return Text(404, s.message());
    default:
      return Text(500, s.message());
  }
}

HttpResponse NoData() { return Text(404, "No Data"); }

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

StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return NotFound("cannot open " + path);
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return Internal("error reading " + path);
  return ss.str();
}

// A tool result as kept in the cache, compressed ahead of time once.
struct CachedOutput {
  ToolOutput out;
  std::shared_ptr<const std::string> gzipped;
};

StatusOr<ArtifactCache::Entry> MakeCacheEntry(StatusOr<ToolOutput> out) {
  if (!out.ok()) return out.status();
  auto cached = std::make_shared<CachedOutput>();
  cached->out = std::move(*out);
  size_t bytes = cached->out.body.size() + 256;
  const std::string& type = cached->out.content_type;
  bool compresses = !(type.starts_with("image/") && type != "image/svg+xml") && !type.starts_with("font/") &&
                    type != "application/wasm";
  if (compresses && cached->out.content_encoding.empty() && cached->out.body.size() >= kGzipAheadMinBytes) {
    // Big results compress fast rather than small: they are written once per cache fill.
    auto gz = GzipCompress(cached->out.body, cached->out.body.size() > (8u << 20) ? 1 : 6);
    if (gz.ok()) {
      bytes += gz->size();
      cached->gzipped = std::make_shared<const std::string>(std::move(*gz));
    }
  }
  return ArtifactCache::Entry{std::static_pointer_cast<const void>(std::shared_ptr<const CachedOutput>(cached)),
                              bytes};
}

HttpResponse FromCached(const std::shared_ptr<const CachedOutput>& c) {
  HttpResponse r;
  r.content_type = c->out.content_type;
  r.content_encoding = c->out.content_encoding;
  r.shared_body = std::shared_ptr<const std::string>(c, &c->out.body);  // shares ownership of the entry
  r.gzip_body = c->gzipped;
  return r;
}

std::string CsvFileName(const std::string& tool, const std::string& run, const std::string& host) {
  // xprof: "<tool>_<run>_<host suffix>.csv", host suffix after the last '-'.
  std::string host_suffix = host.substr(host.rfind('-') == std::string::npos ? 0 : host.rfind('-') + 1);
  std::string name = tool + "_" + run + "_" + host_suffix;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  }
  return name + ".csv";
}

}  // namespace

// ---------------------------------------------------------------------------

std::optional<std::string> PercentDecode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      auto hex = [](char h) -> int {
        if (h >= '0' && h <= '9') return h - '0';
        if (h >= 'a' && h <= 'f') return h - 'a' + 10;
        if (h >= 'A' && h <= 'F') return h - 'A' + 10;
        return -1;
      };
      int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

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

struct ProfileService::Query {
  ToolParams params;  // first value of each parameter wins, as request.args.get
  std::string Get(const std::string& key) const { return ParamStr(params, key); }
  RunScope Scope() const { return RunScope{Get("session_path"), Get("run_path")}; }
};

StatusOr<std::unique_ptr<ProfileService>> ProfileService::Create(const ProfileServiceOptions& options) {
  ASSIGN_OR_RETURN(auto logdir, Logdir::Open(options.logdir));
  return std::unique_ptr<ProfileService>(new ProfileService(std::move(logdir), options));
}

ProfileService::ProfileService(Logdir logdir, const ProfileServiceOptions& options)
    : logdir_(std::move(logdir)), web_dir_(options.web_dir), cache_(options.cache_bytes), runs_ttl_(options.runs_ttl) {}

std::optional<HttpResponse> ProfileService::Handle(const HttpRequest& request, bool may_block) {
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
                          [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
    if (it != raw_path.end()) return Text(400, "encoded '/', '\\' or NUL is not allowed in the URL path");
  }
  auto path = PercentDecode(raw_path, false);
  if (!path) return Text(400, "malformed percent-encoding in the URL path");
  if (path->find('\0') != std::string::npos || path->find('\\') != std::string::npos) {
    return Text(400, "NUL or '\\' is not allowed in the URL path");
  }

  Query q;
  if (qmark != std::string_view::npos) {
    std::string_view query = target.substr(qmark + 1);
    size_t pos = 0;
    while (pos <= query.size()) {
      size_t amp = std::min(query.find('&', pos), query.size());
      std::string_view item = query.substr(pos, amp - pos);
      pos = amp + 1;
      if (item.empty()) continue;
      size_t eq = item.find('=');
      auto key = PercentDecode(item.substr(0, eq), true);
      auto value = PercentDecode(eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1), true);
      if (!key || !value) return Text(400, "malformed percent-encoding in the query string");
      q.params.emplace(std::move(*key), std::move(*value));  // first one wins
    }
  }
  return Route(*path, q, request, may_block);
}

std::optional<HttpResponse> ProfileService::Route(std::string_view full_path, const Query& query,
                                                  const HttpRequest& request, bool may_block) {
  // TensorBoard core routes (mounted at the root).
  if (full_path == "/data/plugins_listing") return PluginsListing();
  if (full_path == "/data/runs") return TensorBoardRuns();
  if (full_path == "/data/logdir") return Json(json::object{{"logdir", logdir_.root()}});
  if (full_path == "/data/environment") {
    return Json(json::object{{"creation_time", 0.0},
                             {"data_location", logdir_.root()},
                             {"experiment_description", ""},
                             {"experiment_name", ""},
                             {"version", std::string("tbprof ") + kTbprofVersion},
                             {"window_title", ""}});
  }
  if (full_path == "/data/notifications") {
    HttpResponse r = Text(302, "");
    r.headers.emplace_back("Location", "../notifications_note.json");
    return r;
  }
  if (full_path == "/data/plugin_entry.html") {
    HttpResponse r = Text(200,
                          "<!DOCTYPE html>\n<head><base href=\"plugin/profile/\" /></head>\n<body><script type=\"module\">" +
                              std::string(kPluginEntryScript) + "</script></body>\n",
                          "text/html; charset=utf-8");
    r.headers.emplace_back("Content-Security-Policy", std::string(kContentSecurityPolicy) + "; script-src 'self' '" +
                                                          std::string(kPluginEntryScriptHash) + "'");
    return r;
  }

  std::string_view path = full_path;
  if (path.starts_with(kPluginPrefix) &&
      (path.size() == kPluginPrefix.size() || path[kPluginPrefix.size()] == '/')) {
    path.remove_prefix(kPluginPrefix.size());
  }
  if (path.empty()) path = "/";
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);

  if (path == "/runs") return Runs(query);
  if (path == "/run_tools" || path == "/hosts" || path == "/module_list") {
    if (!may_block) return std::nullopt;  // may load a profile to look inside
    if (path == "/run_tools") return RunTools(query);
    if (path == "/hosts") return Hosts(query);
    return ModuleList(query);
  }
  if (path == "/data") return Data(query, false, may_block);
  if (path == "/data_csv") return Data(query, true, may_block);
  if (path == "/config") {
    // Live capture is done by `tbprof harness`, so the UI's capture button is hidden.
    return Json(json::object{{"enableTabNameLabel", false}, {"hideCaptureProfileButton", true}, {"srcPathPrefix", ""}});
  }
  if (path == "/version") return Text(200, kTbprofVersion);
  if (path == "/capture_profile") {
    return Json(json::object{{"error",
                              "tbprof serve does not capture profiles from a live server: capture one with "
                              "`tbprof harness`, write it under the logdir, then refresh."}},
                500);
  }
  (void)request;
  return Static(path);
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
    runs_scanned_ = now;
  }
  return run_index_;
}

StatusOr<RunRef> ProfileService::ResolveRun(std::string_view run, const RunScope& scope) {
  while (run.size() > 1 && run.back() == '/') run.remove_suffix(1);
  if (auto s = CheckRunName(run); !s.ok()) return s;
  if (scope.empty()) {
    auto index = RunIndexOf(scope);
    if (index.ok()) {
      auto it = (*index)->by_name.find(std::string(run));
      if (it != (*index)->by_name.end()) {
        // The index holds canonical directories checked at scan time; a run
        // directory swapped for a symlink since then goes the slow way.
        const RunRef& ref = (*index)->runs[it->second];
        std::error_code ec;
        if (fs::symlink_status(ref.dir, ec).type() == fs::file_type::directory) return ref;
      }
    }
  }
  return logdir_.FindRun(run, scope);
}

std::shared_ptr<const RunContents> ProfileService::Contents(const std::string& dir) {
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(contents_mu_);
    auto it = contents_.find(dir);
    if (it != contents_.end() && now - it->second.first < runs_ttl_) return it->second.second;
  }
  auto scanned = std::make_shared<const RunContents>(logdir_.ScanRun(dir));
  std::lock_guard<std::mutex> lock(contents_mu_);
  contents_[dir] = {now, scanned};
  return scanned;
}

HttpResponse ProfileService::Runs(const Query& q) {
  auto index = RunIndexOf(q.Scope());
  if (!index.ok()) return FromStatus(index.status());
  return Text(200, (*index)->json, "application/json");
}

HttpResponse ProfileService::RunTools(const Query& q) {
  std::string run = q.Get("run");
  if (run.empty()) return Json(json::array());
  auto ref = ResolveRun(run, q.Scope());
  if (!ref.ok()) {
    return ref.status().code() == ErrorCode::kNotFound ? Json(json::array()) : FromStatus(ref.status());
  }
  return Json(StringArray(ToolsOfRun(logdir_.ScanRun(ref->dir), &cache_)));
}

HttpResponse ProfileService::Hosts(const Query& q) {
  std::string run = q.Get("run"), tag = q.Get("tag");
  if (!tag.empty()) {
    auto s = CheckPlainName("tag", tag);
    if (!s.ok()) return FromStatus(s);
    if (tag.back() == '^') tag.pop_back();
  }
  if (run.empty()) return Json(json::array());
  auto ref = ResolveRun(run, q.Scope());
  if (!ref.ok()) {
    return ref.status().code() == ErrorCode::kNotFound ? Json(json::array()) : FromStatus(ref.status());
  }
  std::vector<std::string> hosts = HostsOfRun(logdir_.ScanRun(ref->dir), tag);
  json::array a;
  for (const std::string& h : hosts) a.emplace_back(json::object{{"hostname", h}});
  return Json(a);
}

HttpResponse ProfileService::ModuleList(const Query& q) {
  std::string run = q.Get("run");
  if (run.empty()) return Text(200, "");
  auto ref = ResolveRun(run, q.Scope());
  if (!ref.ok()) return ref.status().code() == ErrorCode::kNotFound ? Text(200, "") : FromStatus(ref.status());
  RunContents contents = logdir_.ScanRun(ref->dir);
  std::vector<std::string> modules = contents.hlo_modules;
  // Modules also come from the HLO protos in the XSpace's /host:metadata plane.
  if (!contents.xplanes.empty()) {
    auto model = LoadModelCached(contents.xplanes.front().path, &cache_);
    if (model.ok()) {
      // The metadata plane's modules (their `Hlo Proto` stat), named as compiled.
      for (const std::string& name : HloModuleNames(**model)) {
        if (std::find(modules.begin(), modules.end(), name) == modules.end()) modules.push_back(name);
      }
    }
  }
  std::string out;
  for (const std::string& mod : modules) out += (out.empty() ? "" : ",") + mod;
  return Text(200, out);
}

std::optional<HttpResponse> ProfileService::Data(const Query& q, bool csv, bool may_block) {
  std::string tag = q.Get("tag"), run = q.Get("run"), host = q.Get("host"), hosts_param = q.Get("hosts");
  if (tag.empty()) return Text(400, "missing query parameter 'tag' (the tool name)");
  if (auto s = CheckPlainName("tag", tag); !s.ok()) return FromStatus(s);
  if (tag.size() > 1 && tag.back() == '^') tag.pop_back();  // TBP 2.13–2.18 tool names
  if (run.empty()) return Text(400, "missing query parameter 'run'");
  if (!host.empty()) {
    if (auto s = CheckPlainName("host", host); !s.ok()) return FromStatus(s);
  }
  std::vector<std::string> wanted_hosts;
  if (!hosts_param.empty() && hosts_param != "none") {
    std::stringstream ss(hosts_param);
    for (std::string h; std::getline(ss, h, ',');) {
      if (h.empty()) continue;
      if (auto s = CheckPlainName("host", h); !s.ok()) return FromStatus(s);
      wanted_hosts.push_back(h);
    }
  }
  auto ref = ResolveRun(run, q.Scope());
  if (!ref.ok()) return FromStatus(ref.status());
  std::shared_ptr<const RunContents> scanned = Contents(ref->dir);
  const RunContents& contents = *scanned;

  ToolInput input;
  std::string key;
  std::function<StatusOr<ToolOutput>()> compute;
  ToolParams params = q.params;
  if (csv) params["__csv"] = "1";
  std::string param_key;
  for (const auto& [k, v] : params) {
    if (!kInputParams.count(k)) param_key += k + "=" + v + "&";
  }

  const ToolSpec* spec = FindXPlaneTool(tag);
  std::vector<const RunFile*> legacy;
  for (const RunFile& f : contents.legacy) {
    if (LegacyFileServesTag(f, tag) && IsServableLegacy(f)) legacy.push_back(&f);
  }
  if (spec != nullptr && !contents.xplanes.empty()) {
    // Host selection of XP-HEAD _get_valid_hosts.
    std::vector<const RunFile*> files;
    auto find_host = [&](const std::string& h) -> const RunFile* {
      for (const RunFile& f : contents.xplanes) {
        if (f.host == h) return &f;
      }
      return nullptr;
    };
    if (!wanted_hosts.empty() && SelectsHostsByList(tag)) {
      for (const std::string& h : wanted_hosts) {
        const RunFile* f = find_host(h);
        if (f == nullptr) return Text(404, "No xplane file found for host: " + h + " in run: " + run);
        files.push_back(f);
      }
    } else if (host.empty() || host == kAllHosts || IsAllHostsOnly(tag)) {
      // A converter that cannot combine hosts gets the first one (ToolSpec::all_hosts).
      for (const RunFile& f : contents.xplanes) {
        if (files.empty() || spec->all_hosts) files.push_back(&f);
      }
    } else {
      const RunFile* f = find_host(host);
      if (f == nullptr) return Text(404, "No xplane file found for host: " + host + " in run: " + run);
      files.push_back(f);
    }
    key = "data|" + tag + "|";
    for (const RunFile* f : files) {
      auto id = FileIdentityKey(f->path);
      if (!id.ok()) return FromStatus(id.status());
      key += *id + "|";
      input.hosts.push_back(f->host);
      input.xplane_paths.push_back(f->path);
    }
    key += param_key;
    input.params = std::move(params);
    input.cache = &cache_;
    compute = [spec, &input] { return spec->run(input); };
  } else if (!legacy.empty()) {
    const RunFile* file = nullptr;
    for (const RunFile* f : legacy) {
      if (host.empty() || host == kAllHosts || f->host == host) {
        file = f;
        break;
      }
    }
    if (file == nullptr) return Text(404, "No " + tag + " file found for host: " + host + " in run: " + run);
    auto id = FileIdentityKey(file->path);
    if (!id.ok()) return FromStatus(id.status());
    key = "legacy|" + tag + "|" + *id + "|" + param_key;
    const LegacyToolSpec* converter = nullptr;
    for (const LegacyToolSpec& c : LegacyConverters()) {
      if (c.suffix == file->suffix) converter = &c;
    }
    std::string path = file->path;
    if (converter != nullptr) {
      compute = [converter, path, params]() { return converter->run(path, params); };
    } else if (csv) {
      return Text(400, "CSV format not supported for this tool type");
    } else {
      // Ready JSON from the old profiler, served as it is; .json.gz stays compressed.
      bool gz = file->suffix.ends_with(".gz");
      compute = [path, gz]() -> StatusOr<ToolOutput> {
        ASSIGN_OR_RETURN(auto bytes, ReadWholeFile(path));
        ToolOutput out;
        out.body = std::move(bytes);
        out.content_type = "application/json";
        if (gz) out.content_encoding = "gzip";
        return out;
      };
    }
  } else {
    return Text(404, csv ? "No Data Found" : "No Data");
  }

  std::shared_ptr<const CachedOutput> result = cache_.Peek<CachedOutput>(key);
  if (result == nullptr) {
    if (!may_block) return std::nullopt;
    auto computed = cache_.GetOrCompute(key, [&] { return MakeCacheEntry(compute()); });
    if (!computed.ok()) {
      const Status& s = computed.status();
      if (csv && s.code() == ErrorCode::kUnimplemented) return Text(404, "No Data Found: " + s.message());
      return FromStatus(s);
    }
    result = std::static_pointer_cast<const CachedOutput>(*computed);
  }
  if (result->out.body.empty() && result->out.content_encoding.empty()) return NoData();
  HttpResponse r = FromCached(result);
  if (csv) {
    if (!r.content_type.starts_with("text/csv")) return Text(400, "CSV format not supported for this tool type");
    r.headers.emplace_back("Content-Disposition",
                           "attachment; filename=\"" + CsvFileName(tag, run, input.hosts.empty() ? host : input.hosts.front()) + "\"");
  }
  return r;
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
  std::error_code ec;
  fs::path root = fs::canonical(web_dir_, ec);
  bool ui_built = !ec && fs::is_regular_file(root / "index.html", ec);
  auto serve = [&](const fs::path& file) -> std::optional<HttpResponse> {
    std::error_code fec;
    fs::path c = fs::canonical(file, fec);
    if (fec || !fs::is_regular_file(c, fec)) return std::nullopt;
    std::string cs = c.string(), rs = root.string();
    if (!(cs.size() > rs.size() && cs.starts_with(rs) && cs[rs.size()] == '/')) return std::nullopt;
    // Cached like tool results, so a big bundle is read and compressed once.
    auto id = FileIdentityKey(cs);
    if (!id.ok()) return std::nullopt;
    auto cached = cache_.GetOrCompute("static|" + *id, [&] {
      auto bytes = ReadWholeFile(cs);
      if (!bytes.ok()) return StatusOr<ArtifactCache::Entry>(bytes.status());
      ToolOutput out;
      out.body = std::move(*bytes);
      out.content_type = ContentTypeOfFile(cs);
      return MakeCacheEntry(std::move(out));
    });
    if (!cached.ok()) return std::nullopt;
    return FromCached(std::static_pointer_cast<const CachedOutput>(*cached));
  };
  if (ui_built) {
    if (auto r = serve(root / rel)) return *r;
  }
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
  if (ui_built) {
    if (auto r = serve(root / "index.html")) return *r;
  }
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

int ProfileService::Warm(int max_runs) {
  auto index = RunIndexOf(RunScope{});
  if (!index.ok()) return 0;
  // Newest first by the run directory's modification time (the profiler
  // writes each run's files once, so that is when it was captured).
  std::vector<std::pair<fs::file_time_type, RunRef>> by_time;
  for (const RunRef& r : (*index)->runs) {
    std::error_code ec;
    by_time.emplace_back(fs::last_write_time(r.dir, ec), r);
  }
  std::stable_sort(by_time.begin(), by_time.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<RunRef> runs;
  for (auto& [unused, r] : by_time) runs.push_back(std::move(r));
  int computed = 0;
  for (int i = 0; i < max_runs && i < static_cast<int>(runs.size()); ++i) {
    for (const char* tool : {"overview_page", "trace_viewer@"}) {
      HttpRequest req;
      req.target = std::string(kPluginPrefix) + "/data?run=" + PercentEncode(runs[i].name) + "&tag=" + tool;
      auto res = Handle(req, false);
      if (res.has_value()) continue;  // already cached, or nothing to compute
      HttpResponse r = Handle(req);
      if (r.status == 200) ++computed;
    }
  }
  return computed;
}

}  // namespace tbprof
