// overview_page on a large synthetic GPU profile (synthetic/profile_generator):
//   cold: load the .xplane.pb + group + OpStats + overview JSON, no cache;
//   warm: the same request again with OpStats cached (ArtifactCache);
//   from loaded model: grouping + OpStats + JSON only (the load excluded);
//   peak RSS of one cold request, in a freshly exec'd copy of this program.
// The input (~1 GB) is generated once and kept in /tmp; TBPROF_BENCH_OVERVIEW_XSPACE
// overrides the path and TBPROF_BENCH_OVERVIEW_EVENTS the generated size.
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "convert/analysis/op_stats_to_overview_page.h"
#include "convert/analysis/xspace_to_op_stats.h"
#include "convert/tools/artifact_cache.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/tool_registry.h"
#include "convert/xplane/xspace_reader.h"
#include "synthetic/profile_generator.h"

namespace {

namespace fs = std::filesystem;

int64_t TargetEvents() {
  const char* env = std::getenv("TBPROF_BENCH_OVERVIEW_EVENTS");
  return env ? std::atoll(env) : 13200000;  // ~1 GB with the generator's event mix
}

std::string BenchPath() {
  const char* env = std::getenv("TBPROF_BENCH_OVERVIEW_XSPACE");
  return env ? env : "/tmp/tbprof_bench_overview_" + std::to_string(TargetEvents()) + ".xplane.pb";
}

const std::string& InputPath() {
  static const std::string path = [] {
    std::string p = BenchPath();
    std::error_code ec;
    if (fs::exists(p, ec)) return p;
    tbprof::SynthOptions o;
    o.gpus = 4;
    o.steps = 100;
    o.events = TargetEvents();
    o.seed = 1;
    std::string tmp = p + ".partial";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      tbprof::Status st = tbprof::WriteSyntheticXSpace(o, 0, out);
      if (!st.ok() || !out) {
        std::fprintf(stderr, "cannot generate %s: %s\n", tmp.c_str(), st.message().c_str());
        std::exit(1);
      }
    }
    fs::rename(tmp, p);
    std::fprintf(stderr, "generated %s (%llu bytes)\n", p.c_str(),
                 static_cast<unsigned long long>(fs::file_size(p)));
    return p;
  }();
  return path;
}

tbprof::StatusOr<tbprof::ToolOutput> Overview(tbprof::ArtifactCache* cache) {
  tbprof::ToolInput in;
  in.xplane_paths = {InputPath()};
  in.cache = cache;
  return tbprof::FindXPlaneTool("overview_page")->run(in);
}

void BM_OverviewCold(benchmark::State& state) {
  size_t bytes = 0;
  for (auto _ : state) {
    auto out = Overview(nullptr);
    if (!out.ok()) {
      state.SkipWithError(out.status().message().c_str());
      return;
    }
    bytes = out->body.size();
  }
  state.counters["json_bytes"] = static_cast<double>(bytes);
  state.counters["file_MB"] = static_cast<double>(fs::file_size(InputPath())) / (1 << 20);
}

void BM_OverviewWarm(benchmark::State& state) {
  // The model is not kept: only the per-file OpStats, as the server's cache does after eviction.
  tbprof::ArtifactCache cache(size_t{256} << 20);
  auto op_stats = tbprof::LoadOpStatsCached(InputPath(), &cache);
  if (!op_stats.ok()) {
    state.SkipWithError(op_stats.status().message().c_str());
    return;
  }
  for (auto _ : state) {
    auto out = Overview(&cache);
    if (!out.ok()) {
      state.SkipWithError(out.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(out->body.data());
  }
}

// The part after loading: grouping + OpStats + overview JSON from a loaded model.
void BM_OverviewFromLoadedModel(benchmark::State& state) {
  auto model = tbprof::LoadXSpaceFile(InputPath());
  if (!model.ok()) {
    state.SkipWithError(model.status().message().c_str());
    return;
  }
  for (auto _ : state) {
    tbprof::OpStats stats = tbprof::ConvertXSpaceToOpStats(**model);
    std::string json = tbprof::OverviewPageToJson(tbprof::ConvertOpStatsToOverviewPage(stats));
    benchmark::DoNotOptimize(json.data());
  }
  state.counters["events"] = static_cast<double>((*model)->NumEvents());
}

void BM_OverviewColdPeakRss(benchmark::State& state) {
  const std::string& path = InputPath();
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
      execl("/proc/self/exe", "overview_bench", "--measure-cold-rss", path.c_str(), nullptr);
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
  const double file_mb = static_cast<double>(fs::file_size(path)) / (1 << 20);
  state.counters["peak_rss_MB"] = peak_mb;
  state.counters["file_MB"] = file_mb;
  state.counters["rss_per_file_byte"] = peak_mb / file_mb;
}

BENCHMARK(BM_OverviewCold)->Unit(benchmark::kMillisecond)->Iterations(2)->UseRealTime();
BENCHMARK(BM_OverviewFromLoadedModel)->Unit(benchmark::kMillisecond)->Iterations(2)->UseRealTime();
BENCHMARK(BM_OverviewWarm)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(BM_OverviewColdPeakRss)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// Child mode: one cold overview request, then the peak RSS (VmHWM) in KiB.
int MeasureColdRss(const char* path) {
  tbprof::ToolInput in;
  in.xplane_paths = {path};
  auto out = tbprof::FindXPlaneTool("overview_page")->run(in);
  if (!out.ok()) {
    std::fprintf(stderr, "%s\n", out.status().message().c_str());
    return 1;
  }
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

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--measure-cold-rss") == 0) return MeasureColdRss(argv[2]);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
