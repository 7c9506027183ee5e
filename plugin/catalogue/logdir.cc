#include "plugin/catalogue/logdir.h"

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
#include "convert/kineto/kineto_reader.h"
#include "convert/load/profile_file.h"
#include "convert/xplane/damaged_file.h"

namespace tbprof {
namespace fs = std::filesystem;

namespace {

// A compiled program beside the profiles: "<module>.hlo_proto.pb" (/module_list names it).
constexpr std::string_view kHloProtoSuffix = ".hlo_proto.pb";
// JSON files of a directory whose first bytes the walk looks at before
// deciding it holds no PyTorch trace (a directory of other JSON is not read on).
constexpr int kMaxSniffedFilesPerDirectory = 4;
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
// profiler traces (torch-tb-profiler's layout; by name, or a JSON file whose
// first bytes say so) or tfprof's profile_<N> files (ProfileContext's
// profile_dir). One listing answers both.
bool HoldsRunFiles(const fs::path& dir) {
  std::error_code ec;
  int sniffed = 0;
  for (fs::directory_iterator d(dir, ec); !ec && d != fs::directory_iterator(); d.increment(ec)) {
    std::error_code sec;
    if (!d->is_regular_file(sec) || d->is_symlink(sec)) continue;
    const std::string name = d->path().filename().string();
    const ProfileFileName parsed = ParseProfileFileName(name);
    if (parsed.format == ProfileFormat::kKinetoTrace || parsed.format == ProfileFormat::kTfprofProfile) return true;
    if (parsed.content_decides && sniffed++ < kMaxSniffedFilesPerDirectory &&
        LooksLikeKinetoTrace(ReadProfileHead(d->path().string()))) {
      return true;
    }
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

StatusOr<std::vector<RunRef>> Logdir::DiscoverRuns() const {
  // tb_run directories: the logdir and every directory below it holding
  // plugins/profile (XP-HEAD generate_runs). Symlinked directories are not
  // descended into, so a link cannot pull in a tree outside the logdir.
  NoteDirectoryListing();
  // A JSON file's first bytes are read confined to the logdir, like every open.
  FileAccessScope confined(confined_root_, kProfileSniffBytes);
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
    FileAccessScope confined(confined_root_, kProfileSniffBytes);
    if (!IsDirectory(kineto_dir) || !HoldsRunFiles(kineto_dir)) return NotFound("unknown run '" + std::string(run) + "'");
    dir = kineto_dir;
  }
  std::string canonical = Canonical(dir);
  if (!IsInside(canonical)) return InvalidArgument("run '" + std::string(run) + "' leads outside the logdir");
  return RunRef{std::string(run), canonical};
}

namespace {

// Where a listed file goes in a run's contents, by its format.
void AddRunFile(RunContents& out, const std::string& name, std::string path, ProfileFormat format,
                const struct stat& st) {
  ProfileFileName parsed = ParseProfileFileName(name);
  switch (format) {
    case ProfileFormat::kTfprofProfile:
      out.tfprof_profiles.push_back(RunFile{name, "", std::move(path), st.st_size == 0 ? "empty" : "", format});
      return;
    case ProfileFormat::kXPlane:
    case ProfileFormat::kKinetoTrace: {
      // A cheap look at the file's start; decoding may still find damage further on.
      std::string problem = format == ProfileFormat::kXPlane ? XSpaceFileDamage(path) : KinetoFileDamage(path);
      out.profiles.push_back(RunFile{parsed.host, parsed.suffix, std::move(path), std::move(problem), format});
      return;
    }
    case ProfileFormat::kLegacyToolFile:
      out.legacy.push_back(RunFile{parsed.host, parsed.suffix, std::move(path), "", format});
      return;
    case ProfileFormat::kUnknown:
      return;
  }
}

}  // namespace

RunContents Logdir::ScanRun(const std::string& dir) const {
  NoteDirectoryListing();
  RunContents out;
  FileAccessScope confined(confined_root_, kProfileSniffBytes);
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
    if (!IsValidUtf8(name)) continue;
    const bool hlo_proto = name.size() > kHloProtoSuffix.size() && name.ends_with(kHloProtoSuffix);
    const ProfileFileName parsed = ParseProfileFileName(name);
    if (!hlo_proto && parsed.format == ProfileFormat::kUnknown && !parsed.content_decides) continue;
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
    if (hlo_proto) {
      out.hlo_modules.push_back(name.substr(0, name.size() - kHloProtoSuffix.size()));
      continue;
    }
    const ProfileFormat format =
        parsed.content_decides ? ProfileFormatOf(name, ReadProfileHead(path)) : parsed.format;
    AddRunFile(out, name, std::move(path), format, st);
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
