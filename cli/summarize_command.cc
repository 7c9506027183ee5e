#include <charconv>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/flags.h"
#include "plugin/catalogue/summarize_job.h"

namespace tbprof::cli {
namespace {

// "I/N" with 0 <= I < N.
bool ParseShard(const std::string& text, uint32_t* index, uint32_t* count) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return false;
  const char* end = text.data() + text.size();
  auto a = std::from_chars(text.data(), text.data() + slash, *index);
  auto b = std::from_chars(text.data() + slash + 1, end, *count);
  return a.ec == std::errc() && a.ptr == text.data() + slash && b.ec == std::errc() && b.ptr == end && *count > 0 &&
         *index < *count;
}

}  // namespace

int SummarizeCommand(int argc, char** argv) {
  Flags flags("summarize", "PATH... [--shard I/N] [--summary_dir DIR] [--memory_mb M]",
              "Writes each profile file's summary (its per-host op statistics, keyed by the file's size, mtime and\n"
              "a digest of its first and last 64 KiB) beside it as <file>.tbprof-summary, or under --summary_dir.\n"
              "PATH is a profile file, a run folder or a logdir. `tbprof serve` answers ALL_HOSTS pages from the\n"
              "summaries without reading the profiles. Exit status 0 when every file of the shard has one.");
  flags.Add("shard", "0/1", "the I-th (0-based) of N shards: file k of the sorted file list is in shard k mod N");
  flags.Add("summary_dir", "", "write the summaries here, mirroring each file's path relative to the PATH given");
  flags.AddInt("memory_mb", 0, 0, int64_t{1} << 30, "refuse a file whose load needs more memory (0: no bound)");
  if (auto exit_code = flags.Parse(argc, argv)) return *exit_code;
  SummarizeJob job;
  job.paths = flags.positional();
  if (job.paths.empty()) {
    flags.Error("need at least one PATH (see --help)");
    return 2;
  }
  if (!ParseShard(flags.Get("shard"), &job.shard_index, &job.shard_count)) {
    flags.Error("--shard must be I/N with 0 <= I < N, not '" + flags.Get("shard") + "'");
    return 2;
  }
  job.summary_dir = flags.Get("summary_dir");
  job.memory_mb = static_cast<uint64_t>(flags.Int("memory_mb"));
  const bool ok = RunSummarizeJob(job, [](const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  });
  return ok ? 0 : 1;
}

}  // namespace tbprof::cli
