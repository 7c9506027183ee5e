#include "plugin/catalogue/summarize_job.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include "convert/base/file_bytes.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/op_stats_summary.h"
#include "plugin/catalogue/logdir.h"

namespace tbprof {
namespace fs = std::filesystem;
namespace {

bool IsProfile(ProfileFormat f) { return f == ProfileFormat::kXPlane || f == ProfileFormat::kKinetoTrace; }

// The profiles of every run under `dir` (and of `dir` itself, a session folder given as it is).
Status AddProfilesOfFolder(const std::string& dir, std::map<std::string, std::string>& found) {
  ASSIGN_OR_RETURN(Logdir logdir, Logdir::Open(dir));
  ASSIGN_OR_RETURN(std::vector<RunRef> runs, logdir.ListRuns(RunScope{}));
  std::vector<std::string> dirs{logdir.root()};
  for (const RunRef& r : runs) dirs.push_back(r.dir);
  for (const std::string& d : dirs) {
    for (const RunFile& f : logdir.ScanRun(d).profiles) {
      if (IsProfile(f.format)) found.emplace(f.path, logdir.root());
    }
  }
  return Status::Ok();
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  return buf;
}

// Why the file may not be read under `memory_mb` (its load's working memory,
// as the server estimates a decoded model: twice the file), or "".
std::string OverMemory(const std::string& path, uint64_t memory_mb) {
  if (memory_mb == 0) return "";
  auto id = FileIdentityOf(path);
  if (!id.ok()) return "";
  const uint64_t need_mb = (2 * id->size) >> 20;
  if (need_mb <= memory_mb) return "";
  return "loading it needs about " + std::to_string(need_mb) + " MB, over --memory_mb " + std::to_string(memory_mb);
}

}  // namespace

StatusOr<std::vector<FoundProfile>> FindProfilesToSummarize(const std::vector<std::string>& paths) {
  std::map<std::string, std::string> found;  // path -> root, sorted by path
  for (const std::string& given : paths) {
    std::error_code ec;
    const fs::path canonical = fs::canonical(given, ec);
    if (ec) return InvalidArgument(given + ": " + ec.message());
    if (fs::is_directory(canonical, ec)) {
      RETURN_IF_ERROR(AddProfilesOfFolder(canonical.string(), found));
    } else if (fs::is_regular_file(canonical, ec) && IsProfile(ProfileFormatOfFile(canonical.string()))) {
      found.emplace(canonical.string(), canonical.parent_path().string());
    } else {
      return InvalidArgument(given + " is neither a profile file (xplane, PyTorch trace) nor a folder");
    }
  }
  std::vector<FoundProfile> out;
  for (auto& [path, root] : found) out.push_back(FoundProfile{path, root});
  return out;
}

bool RunSummarizeJob(const SummarizeJob& job, const std::function<void(const std::string&)>& line) {
  auto found = FindProfilesToSummarize(job.paths);
  if (!found.ok()) {
    line("failed " + (job.paths.empty() ? std::string("(no path)") : job.paths[0]) + ": " + found.status().message());
    return false;
  }
  bool all_ok = true;
  for (size_t k = job.shard_index; k < found->size(); k += std::max<uint32_t>(job.shard_count, 1)) {
    const FoundProfile& f = (*found)[k];
    if (std::string why = OverMemory(f.path, job.memory_mb); !why.empty()) {
      line("failed " + f.path + ": " + why);
      all_ok = false;
      continue;
    }
    const std::string target = SummaryPathFor(f.path, job.summary_dir, f.root);
    const auto start = std::chrono::steady_clock::now();
    // Inflating a gzip'ed profile stops at the memory bound too.
    FileAccessScope scope(nullptr, job.memory_mb == 0 ? UINT64_MAX : job.memory_mb << 20);
    auto r = SummarizeProfileFile(f.path, target);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!r.ok()) {
      line("failed " + f.path + ": " + r.status().message());
      all_ok = false;
      continue;
    }
    line("summarized " + f.path + " -> " + target + " (" + std::to_string(r->summary_bytes) + " bytes, " +
         Seconds(seconds) + " s" + (r->already_current ? ", already current)" : ")"));
  }
  return all_ok;
}

}  // namespace tbprof
