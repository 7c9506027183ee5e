// The run catalogue's walk: run discovery over a logdir, laid out as
// TensorBoard's profile plugin expects:
//   <logdir>[/<tb_run>...]/plugins/profile/<profile_run>/<host>.<suffix>
// and as torch-tb-profiler expects PyTorch profiler traces:
//   <logdir>[/<dir>...]/<worker>.<timestamp>.pt.trace.json[.gz]
// (a run is a directory holding such files, or PyTorch traces named as HTA
// and export_chrome_trace name them, or tfprof's profile_<N> files; named by
// its path in the logdir), and the files of a run with their formats.
// Every name that reaches the file system from a request (run, host, tool,
// session_path, run_path) is checked here first, and every open is confined
// to the logdir when it happens: nothing outside the logdir is ever opened,
// and nothing inside it is ever written. Names that are not valid UTF-8 (run
// directories, profile files) are skipped: JSON cannot carry them, and a
// replacement character would list a run that no request can name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "convert/base/file_bytes.h"
#include "convert/base/status.h"
#include "convert/load/profile_format.h"

namespace tbprof {

// A profile run as the frontend names it ("train/2024_01_02_03_04_05").
struct RunRef {
  std::string name;
  std::string dir;  // canonical absolute path, always inside the logdir
};

// `session_path` / `run_path` query parameters (xprof ≥2.20): restrict the
// runs to one session directory, or to the subdirectories of one directory.
struct RunScope {
  std::string session_path;
  std::string run_path;
  bool empty() const { return session_path.empty() && run_path.empty(); }
};

// One file of a run that feeds a tool.
struct RunFile {
  std::string host;    // "" for a bare "<suffix>" file
  std::string suffix;  // "xplane.pb", "overview_page.pb", …
  std::string path;
  // For xplane and PyTorch trace files: "empty" or "damaged" when a cheap
  // look at the listed file finds it so (XSpaceFileDamage, KinetoFileDamage);
  // for other files "empty" at 0 bytes; else "".
  std::string problem;
  // Found once, when the run is listed (convert/load/profile_format.h).
  ProfileFormat format = ProfileFormat::kUnknown;
};

// What a run directory holds, split by kind; each list is sorted by host.
struct RunContents {
  // Whole profiles: <host>.xplane.pb[.gz], PyTorch traces (<worker>.pt.trace.json[.gz], or any
  // <name>.json[.gz] whose content is one, as HTA's rank-<N>.json.gz and export_chrome_trace's trace.json).
  std::vector<RunFile> profiles;
  std::vector<RunFile> legacy;      // legacy per-tool files (suffix table below)
  std::vector<std::string> hlo_modules;  // <module>.hlo_proto.pb
  // tfprof's own files (ProfileProto), named profile_<step> as ProfileContext
  // writes them; the host is the file name. Only the tfprof tool reads them.
  std::vector<RunFile> tfprof_profiles;
  // The directory could not be listed for want of file descriptors
  // (EMFILE/ENFILE): the lists above are incomplete, worth asking again later.
  bool out_of_descriptors = false;
};

// Checks the syntax of a frontend run name ("a/b/run"): relative, made of
// plain names (see CheckPlainName). Touches no file.
Status CheckRunName(std::string_view run);

// Rejects names that could address anything but a single plain entry:
// empty, ".", "..", "/", "\\", NUL, control characters.
Status CheckPlainName(std::string_view what, std::string_view name);

// Listing the logdir or a run directory can take long on a big or slow file
// system, so it is work for worker threads. The server marks its network
// threads; a directory listed on one is counted (a test holds it at zero).
void MarkAsNetworkThread();
uint64_t DirectoryListingsOnNetworkThreads();
// Directories listed by any thread (so a test can tell that listing happened).
uint64_t DirectoryListings();

class Logdir {
 public:
  // `path` must be an existing directory; it is canonicalized.
  static StatusOr<Logdir> Open(const std::string& path);

  const std::string& root() const { return root_; }

  // All runs, sorted as /runs returns them (reverse lexicographic);
  // Unavailable when out of file descriptors.
  StatusOr<std::vector<RunRef>> ListRuns(const RunScope& scope) const;

  // Maps a frontend run name to its directory. InvalidArgument when the name
  // or the scope tries to leave the logdir; NotFound for an unknown run.
  StatusOr<RunRef> FindRun(std::string_view run, const RunScope& scope) const;

  // Lists the files of a run directory returned by ListRuns/FindRun; files
  // that are symlinks leading out of the logdir are left out. The directory is
  // opened confined to the logdir (see OpenForRead): one swapped for a symlink
  // since it was found lists nothing.
  RunContents ScanRun(const std::string& dir) const;

  // The logdir's descriptor, which every open of a profile is confined to.
  const std::shared_ptr<const ConfinedRoot>& confined_root() const { return confined_root_; }

  // Resolves `path` (absolute, or relative to the logdir) to a canonical
  // directory inside the logdir; InvalidArgument otherwise.
  StatusOr<std::string> ResolveInside(std::string_view what, std::string_view path) const;

 private:
  Logdir(std::string root, std::shared_ptr<const ConfinedRoot> confined)
      : root_(std::move(root)), confined_root_(std::move(confined)) {}
  bool IsInside(const std::string& canonical) const;
  // The run name of a directory holding PyTorch traces (torch-tb-profiler's layout).
  std::string KinetoRunName(const std::string& canonical_dir) const;
  // Unavailable when out of file descriptors (the walk would be incomplete).
  StatusOr<std::vector<RunRef>> DiscoverRuns() const;

  std::string root_;
  std::shared_ptr<const ConfinedRoot> confined_root_;
};

}  // namespace tbprof
