// trace_analysis against overview_page on the same loaded model (the load,
// which both share through the cache, excluded), and its ALL_HOSTS form over
// 16 ranks. Targets (issue 47): trace_analysis ≤ 1.5× the overview after the
// load; 16 loaded ranks ≤ 2 s.
//   BM_OverviewFromLoadedModel:  OpStats + overview JSON of one synthetic GPU profile;
//   BM_TraceAnalysisFromLoadedModel: every section of trace_analysis of the same model;
//   BM_TraceAnalysisAllHosts16:  16 ranks (a smaller synthetic profile, taken 16 times).
// Inputs are generated once into /tmp: TBPROF_BENCH_TA_EVENTS (default 6.6M
// events, ~500 MB) and TBPROF_BENCH_TA_RANK_EVENTS (default 1M a rank) set their sizes.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/analysis/op_stats_pages/op_stats_to_overview_page.h"
#include "convert/analysis/trace_analysis/trace_analysis.h"
#include "convert/xplane/xspace_reader.h"

namespace {


int64_t EnvEvents(const char* name, int64_t fallback) {
  const char* env = std::getenv(name);
  return env ? std::atoll(env) : fallback;
}

const tbprof::XSpaceModel& Model(int64_t events) {
  static std::map<int64_t, std::unique_ptr<tbprof::XSpaceModel>> models;
  auto& m = models[events];
  if (!m) {
    const std::string path = tbprof::bench::SyntheticInput(
        "/tmp/tbprof_bench_trace_analysis_" + std::to_string(events) + ".xplane.pb", events);
    auto loaded = tbprof::LoadXSpaceFile(path);
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s\n", loaded.status().message().c_str());
      std::exit(1);
    }
    m = std::move(*loaded);
  }
  return *m;
}

const tbprof::XSpaceModel& BigModel() { return Model(EnvEvents("TBPROF_BENCH_TA_EVENTS", 6600000)); }

void BM_OverviewFromLoadedModel(benchmark::State& state) {
  const tbprof::XSpaceModel& model = BigModel();
  for (auto _ : state) {
    tbprof::OpStats stats = tbprof::ConvertXSpaceToOpStats(model);
    std::string json = tbprof::OverviewPageToJson(tbprof::ConvertOpStatsToOverviewPage(stats));
    benchmark::DoNotOptimize(json.data());
  }
  state.counters["events"] = static_cast<double>(model.NumEvents());
}

void BM_TraceAnalysisFromLoadedModel(benchmark::State& state) {
  const tbprof::XSpaceModel& model = BigModel();
  size_t bytes = 0;
  for (auto _ : state) {
    std::string json = tbprof::trace_analysis::TraceAnalysisJson({{&model, "host", 0}}, {});
    bytes = json.size();
    benchmark::DoNotOptimize(json.data());
  }
  state.counters["events"] = static_cast<double>(model.NumEvents());
  state.counters["json_bytes"] = static_cast<double>(bytes);
}

void BM_TraceAnalysisAllHosts16(benchmark::State& state) {
  const tbprof::XSpaceModel& model = Model(EnvEvents("TBPROF_BENCH_TA_RANK_EVENTS", 1000000));
  std::vector<tbprof::trace_analysis::RankModel> ranks;
  for (int r = 0; r < 16; ++r) ranks.push_back({&model, "rank " + std::to_string(r), r});
  for (auto _ : state) {
    std::string json = tbprof::trace_analysis::TraceAnalysisJson(ranks, {});
    benchmark::DoNotOptimize(json.data());
  }
  state.counters["events_per_rank"] = static_cast<double>(model.NumEvents());
}

BENCHMARK(BM_OverviewFromLoadedModel)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_TraceAnalysisFromLoadedModel)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_TraceAnalysisAllHosts16)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
