// `compare` on two large synthetic profiles against opening both runs:
//   open both: each single-run tool whose figures compare shows, run on A
//     and on B with one shared cache (what a user opening both runs pays);
//   compare cold: the comparison alone with an empty cache;
//   compare after opening: the comparison once both runs were opened (the
//     server's case: per-run results come from the cache);
//   the same three for the OpStats tools only (overview, ops, kernels).
// Inputs: TBPROF_BENCH_COMPARE_EVENTS events for A (default 3,000,000: 248 MB)
// and 10% more for B (273 MB), generated once into /tmp.
//
// Measured once on the shared 2-core VM (load average ~17 from other builds,
// so wall times are mostly waiting; CPU is the benchmark thread's, the second
// decoding thread not counted):
//   every tool:  open both 179.8 s wall / 19.9 s CPU; compare cold 141.5 s / 11.5 s
//                (each file loaded once for all the tools); peak RSS 1.2 GB
//   OpStats tools: open both 53.1 s / 3.1 s; compare cold 37.4 s / 2.5 s;
//                compare after opening both 0.68 s / 0.04 s (430 KB of JSON)
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "bench/bench_util.h"
#include "convert/tools/compare_tools.h"
#include "convert/tools/tool_registry.h"

namespace {

namespace fs = std::filesystem;

int64_t EventsA() {
  const char* env = std::getenv("TBPROF_BENCH_COMPARE_EVENTS");
  return env ? std::atoll(env) : 3000000;
}

const std::string& PathA() {
  static const std::string p = tbprof::bench::SyntheticInput(
      "/tmp/tbprof_bench_compare_a_" + std::to_string(EventsA()) + ".xplane.pb", EventsA());
  return p;
}

const std::string& PathB() {
  static const std::string p = tbprof::bench::SyntheticInput(
      "/tmp/tbprof_bench_compare_b_" + std::to_string(EventsA() * 11 / 10) + ".xplane.pb", EventsA() * 11 / 10);
  return p;
}

const char* const kAllTools[] = {"overview_page",  "framework_op_stats", "kernel_stats",
                                 "hlo_stats",      "memory_profile",     "tf_data_bottleneck_analysis"};
const char* const kOpStatsTools[] = {"overview_page", "framework_op_stats", "kernel_stats"};
const char* const kOpStatsSections = "input_pipeline_analyzer,framework_op_stats,kernel_stats";

template <size_t N>
bool OpenBoth(const char* const (&tools)[N], tbprof::ArtifactCache* cache, benchmark::State& state) {
  for (const std::string& path : {PathA(), PathB()}) {
    for (const char* tool : tools) {
      tbprof::ToolInput in;
      in.hosts = {"worker0"};
      in.profile_paths = {path};
      in.cache = cache;
      auto out = tbprof::FindProfileTool(tool)->run(in);
      if (!out.ok()) {
        state.SkipWithError((std::string(tool) + ": " + out.status().message()).c_str());
        return false;
      }
    }
  }
  return true;
}

bool Compare(const std::string& sections, tbprof::ArtifactCache* cache, benchmark::State& state) {
  tbprof::ToolInput in;
  in.hosts = {"worker0"};
  in.profile_paths = {PathB()};
  in.base_hosts = {"worker0"};
  in.base_profile_paths = {PathA()};
  in.cache = cache;
  if (!sections.empty()) in.params["tool"] = sections;
  auto out = tbprof::CompareTool(in);
  if (!out.ok()) {
    state.SkipWithError(out.status().message().c_str());
    return false;
  }
  state.counters["json_KB"] = static_cast<double>(out->body.size()) / 1024;
  return true;
}

void Sizes(benchmark::State& state) {
  state.counters["A_MB"] = static_cast<double>(fs::file_size(PathA())) / (1 << 20);
  state.counters["B_MB"] = static_cast<double>(fs::file_size(PathB())) / (1 << 20);
}

// A cache large enough that nothing is evicted: the figures are the work, not the budget.
constexpr size_t kCacheBytes = size_t{16} << 30;

void BM_OpenBothEveryTool(benchmark::State& state) {
  for (auto _ : state) {
    tbprof::ArtifactCache cache(kCacheBytes);
    if (!OpenBoth(kAllTools, &cache, state)) return;
  }
  Sizes(state);
}

void BM_CompareColdEveryTool(benchmark::State& state) {
  for (auto _ : state) {
    tbprof::ArtifactCache cache(kCacheBytes);
    if (!Compare("", &cache, state)) return;
  }
  Sizes(state);
}

void BM_CompareAfterOpeningEveryTool(benchmark::State& state) {
  tbprof::ArtifactCache cache(kCacheBytes);
  if (!OpenBoth(kAllTools, &cache, state)) return;
  for (auto _ : state) {
    if (!Compare("", &cache, state)) return;
  }
}

void BM_OpenBothOpStatsTools(benchmark::State& state) {
  for (auto _ : state) {
    tbprof::ArtifactCache cache(kCacheBytes);
    if (!OpenBoth(kOpStatsTools, &cache, state)) return;
  }
}

void BM_CompareColdOpStatsTools(benchmark::State& state) {
  for (auto _ : state) {
    tbprof::ArtifactCache cache(kCacheBytes);
    if (!Compare(kOpStatsSections, &cache, state)) return;
  }
}

void BM_CompareAfterOpeningOpStatsTools(benchmark::State& state) {
  tbprof::ArtifactCache cache(kCacheBytes);
  if (!OpenBoth(kOpStatsTools, &cache, state)) return;
  for (auto _ : state) {
    if (!Compare(kOpStatsSections, &cache, state)) return;
  }
}

BENCHMARK(BM_OpenBothEveryTool)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_CompareColdEveryTool)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_CompareAfterOpeningEveryTool)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_OpenBothOpStatsTools)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_CompareColdOpStatsTools)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_CompareAfterOpeningOpStatsTools)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
