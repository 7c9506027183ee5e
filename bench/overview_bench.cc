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

#include "bench/bench_util.h"
#include "convert/analysis/op_stats_pages/op_stats_to_overview_page.h"
#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/tools/artifact_cache.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/tool_registry.h"
#include "convert/xplane/xspace_reader.h"

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
  static const std::string path = tbprof::bench::SyntheticInput(BenchPath(), TargetEvents());
  return path;
}

tbprof::StatusOr<tbprof::ToolOutput> Overview(tbprof::ArtifactCache* cache) {
  tbprof::ToolInput in;
  in.profile_paths = {InputPath()};
  in.cache = cache;
  return tbprof::FindProfileTool("overview_page")->run(in);
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
  tbprof::bench::ReportChildPeakRss(state, "--measure-cold-rss", InputPath());
}

BENCHMARK(BM_OverviewCold)->Unit(benchmark::kMillisecond)->Iterations(2)->UseRealTime();
BENCHMARK(BM_OverviewFromLoadedModel)->Unit(benchmark::kMillisecond)->Iterations(2)->UseRealTime();
BENCHMARK(BM_OverviewWarm)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(BM_OverviewColdPeakRss)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// Child mode: one cold overview request (BenchMain then prints the peak RSS).
tbprof::Status MeasureColdRss(const char* path) {
  tbprof::ToolInput in;
  in.profile_paths = {path};
  return tbprof::FindProfileTool("overview_page")->run(in).status();
}

}  // namespace

int main(int argc, char** argv) { return tbprof::bench::BenchMain(argc, argv, "--measure-cold-rss", MeasureColdRss); }
