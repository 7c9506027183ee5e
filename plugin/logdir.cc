#include "plugin/logdir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <set>
#include <system_error>

#include "convert/base/json.h"
#include "convert/load/profile_file.h"
#include "convert/tools/tool_registry.h"
#include "convert/xplane/damaged_file.h"

namespace tbprof {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kXPlaneSuffix = "xplane.pb";
// PyTorch profiler traces: "<worker>.<ms timestamp>.pt.trace.json[.gz]" as
// tensorboard_trace_handler names them; the host is the name before the
// suffix, so each file (a worker's profiling span) is a host of its own.
constexpr std::string_view kKinetoSuffix = "pt.trace.json";
constexpr std::string_view kKinetoGzSuffix = "pt.trace.json.gz";
constexpr std::string_view kHloProtoSuffix = "hlo_proto.pb";
// Deeper trees than this are not searched for plugins/profile (guards against
// pathological logdirs; TensorBoard users nest a few levels at most).
constexpr int kMaxDiscoveryDepth = 24;

bool IsDirectory(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// Canonical path, or "" when it does not exist or cannot be resolved.
std::string Canonical(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::canonical(p, ec);
  return ec ? std::string() : c.string();
}

// Whether a directory is a run by the files in it (not links): PyTorch
// profiler traces (`*.pt.trace.json[.gz]`, torch-tb-profiler's layout) or
// tfprof's profile_<N> files (ProfileContext's profile_dir). One listing
// answers both.
bool HoldsRunFiles(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator d(dir, ec); !ec && d != fs::directory_iterator(); d.increment(ec)) {
    std::error_code sec;
    if (!d->is_regular_file(sec) || d->is_symlink(sec)) continue;
    const std::string name = d->path().filename().string();
    if (IsKinetoTraceFileName(name) || IsTfprofProfileFileName(name)) return true;
  }
  return false;
}

thread_local bool t_network_thread = false;
std::atomic<uint64_t> g_listings{0};
std::atomic<uint64_t> g_listings_on_network_threads{0};

// Called by every function here that lists a directory.
void NoteDirectoryListing() {
  g_listings.fetch_add(1, std::memory_order_relaxed);
  if (t_network_thread) g_listings_on_network_threads.fetch_add(1, std::memory_order_relaxed);
}

bool HasDotDotComponent(std::string_view path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (path.substr(start, end - start) == "..") return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

void MarkAsNetworkThread() { t_network_thread = true; }
uint64_t DirectoryListingsOnNetworkThreads() { return g_listings_on_network_threads.load(); }
uint64_t DirectoryListings() { return g_listings.load(); }

bool ParseRunFileName(std::string_view name, const std::vector<std::string>& suffixes, std::string* host,
                      std::string* suffix) {
  // Longest suffix first, so "a.trace.json.gz" never parses as some shorter
  // "*.json.gz"; the host part is everything before it (dots included).
  const std::string* best = nullptr;
  for (const std::string& s : suffixes) {
    bool bare = name == s;
    bool hosted = name.size() > s.size() + 1 && name.ends_with(s) && name[name.size() - s.size() - 1] == '.';
    if ((bare || hosted) && (best == nullptr || s.size() > best->size())) best = &s;
  }
  if (best == nullptr) return false;
  *suffix = *best;
  *host = name.size() == best->size() ? std::string() : std::string(name.substr(0, name.size() - best->size() - 1));
  return true;
}

Status CheckPlainName(std::string_view what, std::string_view name) {
  if (name.empty()) return InvalidArgument(std::string(what) + " is empty");
  if (name == "." || name == "..") return InvalidArgument(std::string(what) + " '" + std::string(name) + "' is not allowed");
  for (char c : name) {
    if (c == '/' || c == '\\') return InvalidArgument(std::string(what) + " must not contain a path separator");
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return InvalidArgument(std::string(what) + " must not contain NUL or control characters");
    }
  }
  return Status::Ok();
}

Status CheckRunName(std::string_view run) {
  if (run.empty()) return InvalidArgument("run is empty");
  if (run.front() == '/') return InvalidArgument("run must be a run name, not an absolute path");
  for (size_t start = 0; start <= run.size();) {
    size_t end = std::min(run.find('/', start), run.size());
    auto status = CheckPlainName("run", run.substr(start, end - start));
    if (!status.ok()) return InvalidArgument(status.message() + " (run '" + std::string(run.substr(0, 200)) + "')");
    start = end + 1;
  }
  return Status::Ok();
}

StatusOr<Logdir> Logdir::Open(const std::string& path) {
  if (path.empty()) return InvalidArgument("logdir is empty");
  if (path.find('\0') != std::string::npos) return InvalidArgument("logdir contains a NUL byte");
  std::string root = Canonical(path);
  if (root.empty() || !IsDirectory(root)) return NotFound("logdir '" + path + "' is not an existing directory");
  auto confined = ConfinedRoot::Open(root);
  if (!confined.ok()) return confined.status();
  return Logdir(root, std::move(*confined));
}

bool Logdir::IsInside(const std::string& canonical) const {
  if (canonical.empty()) return false;
  if (root_ == "/") return true;
  return canonical == root_ || (canonical.size() > root_.size() && canonical.starts_with(root_) &&
                                canonical[root_.size()] == '/');
}

StatusOr<std::string> Logdir::ResolveInside(std::string_view what, std::string_view path) const {
  const std::string w(what);
  if (path.find('\0') != std::string_view::npos) return InvalidArgument(w + " contains a NUL byte");
  if (HasDotDotComponent(path)) return InvalidArgument(w + " must not contain '..'");
  fs::path p(path);
  if (p.is_relative()) p = fs::path(root_) / p;
  std::error_code ec;
  fs::path weak = fs::weakly_canonical(p, ec);
  if (ec || !IsInside(weak.string())) return InvalidArgument(w + " '" + std::string(path) + "' is outside the logdir");
  std::string canonical = Canonical(p);
  if (canonical.empty() || !IsDirectory(canonical)) return NotFound(w + " '" + std::string(path) + "' is not a directory");
  if (!IsInside(canonical)) return InvalidArgument(w + " '" + std::string(path) + "' is outside the logdir");
  return canonical;
}

namespace {

bool OutOfDescriptors(const std::error_code& ec) {
  return ec == std::errc::too_many_files_open || ec == std::errc::too_many_files_open_in_system;
}

Status OutOfDescriptorsError(const std::string& dir) {
  return Unavailable("out of file descriptors while listing " + dir + "; try again");
}

}  // namespace

bool IsTfprofProfileFileName(std::string_view name) {
  constexpr std::string_view kPrefix = "profile_";
  if (name.size() <= kPrefix.size() || name.substr(0, kPrefix.size()) != kPrefix) return false;
  for (char c : name.substr(kPrefix.size())) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

StatusOr<std::vector<RunRef>> Logdir::DiscoverRuns() const {
  // tb_run directories: the logdir and every directory below it holding
  // plugins/profile (XP-HEAD generate_runs). Symlinked directories are not
  // descended into, so a link cannot pull in a tree outside the logdir.
  NoteDirectoryListing();
  std::vector<std::string> tb_runs;
  // torch-tb-profiler's layout: a run is any directory holding PyTorch traces.
  std::vector<fs::path> kineto_dirs;
  if (HoldsRunFiles(root_)) kineto_dirs.push_back(root_);
  if (IsDirectory(fs::path(root_) / "plugins" / "profile")) tb_runs.push_back(".");
  std::error_code ec;
  fs::recursive_directory_iterator it(root_, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& e = *it;
    std::error_code sec;
    if (!e.is_directory(sec) || e.is_symlink(sec)) {
      continue;
    }
    if (it.depth() >= kMaxDiscoveryDepth) {
      it.disable_recursion_pending();
      continue;
    }
    const fs::path& p = e.path();
    if (HoldsRunFiles(p)) kineto_dirs.push_back(p);
    if (p.filename() != "profile" || p.parent_path().filename() != "plugins") continue;
    it.disable_recursion_pending();  // run directories hold files, not more runs
    fs::path tb_dir = p.parent_path().parent_path();
    if (tb_dir == fs::path(root_)) continue;  // already added as "."
    std::string tb_run = tb_dir.lexically_relative(root_).generic_string();
    if (IsValidUtf8(tb_run)) tb_runs.push_back(std::move(tb_run));
  }
  if (OutOfDescriptors(ec)) return OutOfDescriptorsError(root_);

  std::set<std::string> seen;
  std::vector<RunRef> runs;
  for (const std::string& tb_run : tb_runs) {
    fs::path profile_dir = (tb_run == "." ? fs::path(root_) : fs::path(root_) / tb_run) / "plugins" / "profile";
    std::error_code dec;
    for (fs::directory_iterator d(profile_dir, dec); !dec && d != fs::directory_iterator(); d.increment(dec)) {
      std::error_code sec;
      if (!d->is_directory(sec)) continue;  // stray files under plugins/profile are not runs
      std::string run_dir = Canonical(d->path());
      if (!IsInside(run_dir)) continue;
      std::string profile_run = d->path().filename().string();
      if (!IsValidUtf8(profile_run)) continue;
      std::string name = tb_run == "." ? profile_run : tb_run + "/" + profile_run;
      if (seen.insert(name).second) runs.push_back(RunRef{name, run_dir});
    }
    if (OutOfDescriptors(dec)) return OutOfDescriptorsError(profile_dir.string());
  }
  for (const fs::path& dir : kineto_dirs) {
    std::string run_dir = Canonical(dir);
    if (run_dir.empty() || !IsInside(run_dir)) continue;
    std::string name = KinetoRunName(run_dir);
    if (IsValidUtf8(name) && CheckRunName(name).ok() && seen.insert(name).second) {
      runs.push_back(RunRef{name, run_dir});
    }
  }
  return runs;
}

std::string Logdir::KinetoRunName(const std::string& canonical_dir) const {
  // The logdir itself (tensorboard_trace_handler's own directory) is named as its folder.
  if (canonical_dir == root_) return fs::path(root_).filename().string();
  return fs::path(canonical_dir).lexically_relative(root_).generic_string();
}

namespace {

// A directory counts as a session when it holds anything a tool can read.
bool HoldsProfileFiles(const RunContents& c) {
  return !c.profiles.empty() || !c.legacy.empty() || !c.tfprof_profiles.empty();
}

void SortRuns(std::vector<RunRef>& runs) {
  std::sort(runs.begin(), runs.end(), [](const RunRef& a, const RunRef& b) { return a.name > b.name; });
}

}  // namespace

StatusOr<std::vector<RunRef>> Logdir::ListRuns(const RunScope& scope) const {
  std::vector<RunRef> runs;
  if (!scope.session_path.empty()) {
    ASSIGN_OR_RETURN(auto dir, ResolveInside("session_path", scope.session_path));
    std::string name = fs::path(dir).filename().string();
    if (IsValidUtf8(name) && HoldsProfileFiles(ScanRun(dir))) runs.push_back(RunRef{name, dir});
  } else if (!scope.run_path.empty()) {
    ASSIGN_OR_RETURN(auto dir, ResolveInside("run_path", scope.run_path));
    NoteDirectoryListing();
    std::error_code ec;
    for (fs::directory_iterator d(dir, ec); !ec && d != fs::directory_iterator(); d.increment(ec)) {
      std::error_code sec;
      if (!d->is_directory(sec)) continue;
      std::string sub = Canonical(d->path());
      if (!IsValidUtf8(d->path().filename().string())) continue;
      if (!IsInside(sub) || !HoldsProfileFiles(ScanRun(sub))) continue;
      runs.push_back(RunRef{d->path().filename().string(), sub});
    }
  } else {
    ASSIGN_OR_RETURN(runs, DiscoverRuns());
  }
  SortRuns(runs);
  return runs;
}

StatusOr<RunRef> Logdir::FindRun(std::string_view run, const RunScope& scope) const {
  while (run.size() > 1 && run.back() == '/') run.remove_suffix(1);  // xprof: run.rstrip('/')
  if (auto status = CheckRunName(run); !status.ok()) return status;
  if (!scope.empty()) {
    ASSIGN_OR_RETURN(auto runs, ListRuns(scope));
    for (RunRef& r : runs) {
      if (r.name == run) return r;
    }
    return NotFound("unknown run '" + std::string(run) + "'");
  }
  // "<tb_run>/<profile_run>" -> <logdir>/<tb_run>/plugins/profile/<profile_run>
  size_t slash = run.rfind('/');
  fs::path dir(root_);
  if (slash != std::string_view::npos) dir /= std::string(run.substr(0, slash));
  dir = dir / "plugins" / "profile" / std::string(slash == std::string_view::npos ? run : run.substr(slash + 1));
  if (!IsDirectory(dir)) {
    // torch-tb-profiler's layout: the run is the directory of that name holding traces.
    fs::path kineto_dir = run == fs::path(root_).filename().string() ? fs::path(root_) : fs::path(root_) / std::string(run);
    if (!IsDirectory(kineto_dir) || !HoldsRunFiles(kineto_dir)) return NotFound("unknown run '" + std::string(run) + "'");
    dir = kineto_dir;
  }
  std::string canonical = Canonical(dir);
  if (!IsInside(canonical)) return InvalidArgument("run '" + std::string(run) + "' leads outside the logdir");
  return RunRef{std::string(run), canonical};
}

RunContents Logdir::ScanRun(const std::string& dir) const {
  std::vector<std::string> suffixes = {std::string(kXPlaneSuffix), std::string(kHloProtoSuffix),
                                       std::string(kKinetoSuffix), std::string(kKinetoGzSuffix)};
  for (const LegacyToolSpec& s : LegacyConverters()) suffixes.push_back(s.suffix);
  NoteDirectoryListing();
  RunContents out;
  FileAccessScope confined(confined_root_, 0);
  auto dir_fd = OpenForRead(dir, /*directory=*/true);
  if (!dir_fd.ok()) {
    out.out_of_descriptors = dir_fd.status().code() == ErrorCode::kUnavailable;
    return out;
  }
  DIR* listing = fdopendir(dir_fd->get());
  if (listing == nullptr) {
    out.out_of_descriptors = errno == EMFILE || errno == ENFILE;
    return out;
  }
  dir_fd->release();  // owned by `listing` now
  while (const dirent* entry = readdir(listing)) {
    const std::string name = entry->d_name;
    std::string host, suffix;
    const bool tfprof_profile = IsTfprofProfileFileName(name);
    if (!IsValidUtf8(name) || (!tfprof_profile && !ParseRunFileName(name, suffixes, &host, &suffix))) continue;
    struct stat st;
    if (fstatat(dirfd(listing), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    std::string path = dir + "/" + name;
    if (S_ISLNK(st.st_mode)) {
      // A link is followed only to a regular file inside the logdir, which is
      // then read by its own (link-free) path.
      path = Canonical(path);
      if (!IsInside(path) || fstatat(AT_FDCWD, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    }
    if (!S_ISREG(st.st_mode)) continue;
    if (tfprof_profile) {
      out.tfprof_profiles.push_back(RunFile{name, "", path, st.st_size == 0 ? "empty" : ""});
    } else if (suffix == kXPlaneSuffix || suffix == kKinetoSuffix || suffix == kKinetoGzSuffix) {
      // A PyTorch trace has no cheap structural check; only an empty one is marked before it is read.
      std::string problem = suffix == kXPlaneSuffix ? XSpaceFileDamage(path) : (st.st_size == 0 ? "empty" : "");
      out.profiles.push_back(RunFile{host, suffix, path, std::move(problem)});
    } else if (suffix == kHloProtoSuffix) {
      if (!host.empty()) out.hlo_modules.push_back(host);
    } else {
      out.legacy.push_back(RunFile{host, suffix, path, ""});
    }
  }
  closedir(listing);
  auto by_host = [](const RunFile& a, const RunFile& b) {
    return a.host != b.host ? a.host < b.host : a.suffix < b.suffix;
  };
  std::sort(out.profiles.begin(), out.profiles.end(), by_host);
  std::sort(out.legacy.begin(), out.legacy.end(), by_host);
  std::sort(out.tfprof_profiles.begin(), out.tfprof_profiles.end(), by_host);
  std::sort(out.hlo_modules.begin(), out.hlo_modules.end());
  return out;
}

}  // namespace tbprof
