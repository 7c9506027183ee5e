// Shared pieces of the benchmark programs: a synthetic input generated once
// and kept in /tmp, and the peak RSS of one piece of work measured in a
// freshly exec'd copy of the program (so the benchmark's own allocations and
// libprotobuf's heap are not counted).
#pragma once

#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>

#include "convert/base/status.h"
#include "synthetic/profile_generator.h"

namespace tbprof::bench {

// Times `load()`, which gives a StatusOr of a loaded model, once per
// iteration: the events of the model it gave, or nullopt after an error
// (the benchmark is then skipped with it).
template <typename Load>
std::optional<size_t> TimeLoads(benchmark::State& state, Load&& load) {
  size_t events = 0;
  for (auto _ : state) {
    auto m = load();
    if (!m.ok()) {
      state.SkipWithError(m.status().message().c_str());
      return std::nullopt;
    }
    events = (*m)->NumEvents();
    benchmark::DoNotOptimize(m);
  }
  return events;
}

// A synthetic GPU training profile of `events` events (4 GPUs, 100 steps,
// seed 1) at `path`, generated when missing or smaller than `min_bytes`.
inline std::string SyntheticInput(const std::string& path, int64_t events, uint64_t min_bytes = 1) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(path, ec) && fs::file_size(path, ec) >= min_bytes) return path;
  SynthOptions o;
  o.gpus = 4;
  o.steps = 100;
  o.events = events;
  o.seed = 1;
  std::string tmp = path + ".partial";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    Status st = WriteSyntheticXSpace(o, 0, out);
    if (!st.ok() || !out) {
      std::fprintf(stderr, "cannot generate %s: %s\n", tmp.c_str(), st.message().c_str());
      std::exit(1);
    }
  }
  fs::rename(tmp, path);
  std::fprintf(stderr, "generated %s (%llu bytes)\n", path.c_str(),
               static_cast<unsigned long long>(fs::file_size(path)));
  return path;
}

// Child side: prints this process's peak RSS (VmHWM, KiB). VmHWM belongs to
// the exec'd image; getrusage's ru_maxrss would carry the forking parent's
// peak across exec.
inline int PrintPeakRssKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::printf("%lld\n", std::atoll(line.c_str() + 6));
      return 0;
    }
  }
  return 1;
}

// Parent side: runs `/proc/self/exe <child_flag> <path>` once per iteration
// and reports its peak RSS next to the file's size.
inline void ReportChildPeakRss(benchmark::State& state, const char* child_flag, const std::string& path) {
  double peak_mb = 0;
  for (auto _ : state) {
    int fds[2];
    if (pipe(fds) != 0) {
      state.SkipWithError("pipe failed");
      return;
    }
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      dup2(fds[1], STDOUT_FILENO);
      execl("/proc/self/exe", "bench-child", child_flag, path.c_str(), nullptr);
      _exit(127);
    }
    close(fds[1]);
    char buf[128] = {};
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError("the measuring child failed");
      return;
    }
    peak_mb = std::atof(buf) / 1024.0;
  }
  const double file_mb = static_cast<double>(std::filesystem::file_size(path)) / (1 << 20);
  state.counters["peak_rss_MB"] = peak_mb;
  state.counters["file_MB"] = file_mb;
  state.counters["rss_per_file_byte"] = peak_mb / file_mb;
}

// main() of a benchmark program with a child mode: `prog <child_flag> PATH`
// runs `child(PATH)`, the work to measure, then prints the peak RSS (or the
// work's error, failing).
inline int BenchMain(int argc, char** argv, const char* child_flag, const std::function<Status(const char*)>& child) {
  if (argc == 3 && std::strcmp(argv[1], child_flag) == 0) {
    Status s = child(argv[2]);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      return 1;
    }
    return PrintPeakRssKiB();
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace tbprof::bench
