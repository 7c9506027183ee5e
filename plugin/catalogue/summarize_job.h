// `tbprof summarize`: the profile files under the paths given (a file, a run
// folder or a logdir, walked by the catalogue), one stable shard of them, and
// each file's summary written (convert/tools/op_stats_summary.h). A library
// function, so the shard split and the lines a scheduler's log shows are
// tested without a process.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "convert/base/status.h"

namespace tbprof {

struct SummarizeJob {
  std::vector<std::string> paths;
  // The shard_index-th of shard_count shards: file k of the sorted list of
  // every file found belongs to shard k mod shard_count.
  uint32_t shard_index = 0, shard_count = 1;
  // Empty: beside each profile; else mirrored under it, relative to the path given.
  std::string summary_dir;
  // A file whose load would need more (twice its size, gzip'ed files what they
  // inflate to) fails instead of being read; 0: no bound.
  uint64_t memory_mb = 0;
};

// One profile file found under a path given: its path, and the root its
// summary's place under a summary folder is relative to (the path given, or
// a file's folder).
struct FoundProfile {
  std::string path, root;
};

// Every profile file (xplane, PyTorch trace) under the paths, sorted by path,
// each once. InvalidArgument for a path that is neither a file nor a folder.
StatusOr<std::vector<FoundProfile>> FindProfilesToSummarize(const std::vector<std::string>& paths);

// Summarizes the job's shard; `line` gets one line per file ("summarized PATH
// -> SUMMARY (N bytes, T s)" or "failed PATH: reason"). True when every file
// of the shard has a valid summary now.
bool RunSummarizeJob(const SummarizeJob& job, const std::function<void(const std::string&)>& line);

}  // namespace tbprof
