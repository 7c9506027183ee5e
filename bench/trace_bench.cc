// Streaming trace viewer on a large synthetic profile (≥ 10M events):
//   BM_LoadXSpace            decode the file into the model (the baseline)
//   BM_BuildTraceIndex       build the per-host index      (target ≤ 1.5× load)
//                            index_over_file counter       (target ≤ 0.5)
//                            The index holds the file's events and the GPU
//                            planes' derived timelines (Steps, Framework and
//                            XLA lines, as xprof's trace viewer shows them),
//                            which need the file's step grouping first:
//                            derived_events counts the latter; grouping_ms,
//                            derivation_ms and indexing_ms split the fastest
//                            build.
//   BM_BuildTraceIndexKnownGroups  the same with the grouping OpStats made
//   BM_StreamingWindow       a random window at resolution 8000, warm, JSON
//                            included                      (target ≤ 100 ms)
//   BM_StreamingFullTrace    the first request of the UI (whole trace)
//   BM_SearchPrefix          search over every event
// The profile comes from the synthetic generator (GenerateSyntheticLogdir: a
// TF GPU training job, one host, 2 GPUs, 100 steps), written once under
// $TMPDIR/tbprof_trace_bench_<events>/ (TBPROF_TRACE_BENCH_EVENTS sets the
// requested size, default 11M; the counters show the events actually written).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <cstdio>
#include <string>

#include "convert/analysis/trace_viewer/trace_index.h"
#include "convert/tools/trace_viewer_tools.h"
#include "convert/xplane/xspace_reader.h"
#include "synthetic/profile_generator.h"

namespace tbprof {
namespace {

int64_t TargetEvents() {
  const char* env = std::getenv("TBPROF_TRACE_BENCH_EVENTS");
  return env ? std::max<int64_t>(std::atoll(env), 1000) : 11000000;
}

const std::string& ProfilePath() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    SynthOptions o;
    o.out_dir = std::string(tmp ? tmp : "/tmp") + "/tbprof_trace_bench_" + std::to_string(TargetEvents());
    o.run = "bench";
    o.gpus = 2;
    o.steps = 100;
    o.events = TargetEvents();
    const std::string done = o.out_dir + "/complete";
    if (std::filesystem::exists(done)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(o.out_dir)) {
        if (entry.path().string().ends_with(".xplane.pb")) return entry.path().string();
      }
    }
    auto paths = GenerateSyntheticLogdir(o);
    if (!paths.ok() || paths->empty()) {
      std::fprintf(stderr, "synthetic profile failed: %s\n", paths.status().message().c_str());
      std::abort();
    }
    std::ofstream(done) << "ok\n";
    return paths->front();
  }();
  return path;
}

std::shared_ptr<const XSpaceModel> Model() {
  static std::shared_ptr<const XSpaceModel> model = [] {
    auto m = LoadXSpaceFile(ProfilePath());
    if (!m.ok()) {
      std::fprintf(stderr, "load failed: %s\n", m.status().message().c_str());
      std::abort();
    }
    return std::shared_ptr<const XSpaceModel>(std::move(*m));
  }();
  return model;
}

std::shared_ptr<const TraceIndex> Index() {
  static std::shared_ptr<const TraceIndex> index = TraceIndex::Build(Model());
  return index;
}

double FileBytes() { return static_cast<double>(std::filesystem::file_size(ProfilePath())); }

double Seconds(auto fn) {
  auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void BM_LoadXSpace(benchmark::State& state) {
  ProfilePath();
  for (auto _ : state) {
    auto m = LoadXSpaceFile(ProfilePath());
    benchmark::DoNotOptimize(m);
    state.counters["events"] = static_cast<double>(m.ok() ? (*m)->NumEvents() : 0);
  }
  state.counters["file_MB"] = FileBytes() / 1e6;
}
BENCHMARK(BM_LoadXSpace)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_BuildTraceIndex(benchmark::State& state) {
  auto model = Model();
  // The load time this is measured against, best of two, in the same process.
  double load_s = 1e9;
  for (int i = 0; i < 2; ++i) load_s = std::min(load_s, Seconds([] { benchmark::DoNotOptimize(LoadXSpaceFile(ProfilePath())); }));
  double build_s = 1e9;
  size_t bytes = 0;
  int64_t events = 0;
  size_t derived_events = 0;
  TraceIndex::BuildTimes parts;  // of the fastest build
  for (auto _ : state) {
    std::unique_ptr<TraceIndex> index;
    const double s = Seconds([&] { index = TraceIndex::Build(model); });
    if (s < build_s) parts = index->build_times();
    build_s = std::min(build_s, s);
    bytes = index->MemoryBytes();
    events = index->num_events();
    derived_events = index->derived().NumEvents();
  }
  state.counters["grouping_ms"] = parts.grouping_ms;
  state.counters["derivation_ms"] = parts.derivation_ms;
  state.counters["indexing_ms"] = parts.indexing_ms;
  state.counters["indexed_events"] = static_cast<double>(events);
  state.counters["derived_events"] = static_cast<double>(derived_events);
  state.counters["index_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["index_over_file"] = static_cast<double>(bytes) / FileBytes();
  state.counters["load_ms"] = load_s * 1e3;
  state.counters["build_over_load"] = build_s / load_s;
}
BENCHMARK(BM_BuildTraceIndex)->Unit(benchmark::kMillisecond)->Iterations(3);

// The same when OpStats grouped the file's events first (the artifact cache
// hands its grouping to the trace index, as when the UI opens overview first).
void BM_BuildTraceIndexKnownGroups(benchmark::State& state) {
  auto model = Model();
  const auto groups = std::make_shared<const EventGroups>(GroupEvents(*model));
  double build_s = 1e9;
  for (auto _ : state) {
    std::shared_ptr<const EventGroups> known = groups;
    std::unique_ptr<TraceIndex> index;
    build_s = std::min(build_s, Seconds([&] { index = TraceIndex::Build(model, &known); }));
    state.counters["index_MB"] = static_cast<double>(index->MemoryBytes()) / 1e6;
  }
  state.counters["best_build_ms"] = build_s * 1e3;
}
BENCHMARK(BM_BuildTraceIndexKnownGroups)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_StreamingWindow(benchmark::State& state) {
  StreamingTraceHost host{Index(), "bench"};
  const TraceIndex& index = *host.index;
  std::mt19937_64 rng(7);
  const int64_t span = index.max_ps() - index.min_ps();
  size_t bytes = 0, n = 0;
  double worst_ms = 0, returned = 0, max_returned = 0;
  for (auto _ : state) {
    // Window widths from 1 ms to the whole trace, log-uniformly.
    const double frac = std::pow(10.0, -static_cast<double>(rng() % 5000) / 1000.0);
    const int64_t width = std::max<int64_t>(static_cast<int64_t>(static_cast<double>(span) * frac), 1000000000);
    const int64_t start = index.min_ps() + static_cast<int64_t>(rng() % static_cast<uint64_t>(std::max<int64_t>(span - width, 1)));
    ToolParams params{{"resolution", "8000"},
                      {"start_time_ms", std::to_string(static_cast<double>(start) / 1e9)},
                      {"end_time_ms", std::to_string(static_cast<double>(start + width) / 1e9)}};
    StatusOr<std::string> json = Status();
    const double s = Seconds([&] { json = StreamingTraceJson({host}, params); });
    worst_ms = std::max(worst_ms, s * 1e3);
    bytes += json.ok() ? json->size() : 0;
    if (json.ok()) {
      const std::string key = "\"returnedEventsSize\":";
      const double r = std::atof(json->c_str() + json->find(key) + key.size());
      returned += r;
      max_returned = std::max(max_returned, r);
    }
    ++n;
    benchmark::DoNotOptimize(json);
  }
  state.counters["worst_ms"] = worst_ms;
  state.counters["avg_json_MB"] = static_cast<double>(bytes) / static_cast<double>(n) / 1e6;
  state.counters["avg_returned"] = returned / static_cast<double>(n);
  state.counters["max_returned"] = max_returned;
}
BENCHMARK(BM_StreamingWindow)->Unit(benchmark::kMillisecond)->Iterations(50);

void BM_StreamingFullTrace(benchmark::State& state) {
  StreamingTraceHost host{Index(), "bench"};
  size_t returned = 0, bytes = 0;
  for (auto _ : state) {
    TraceQuery q;
    returned = host.index->Query(q).hits.size();
    auto json = StreamingTraceJson({host}, {{"resolution", "8000"}});
    bytes = json.ok() ? json->size() : 0;
    benchmark::DoNotOptimize(json);
  }
  state.counters["returned_events"] = static_cast<double>(returned);
  state.counters["json_MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_StreamingFullTrace)->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_SearchPrefix(benchmark::State& state) {
  auto index = Index();
  size_t hits = 0;
  for (auto _ : state) {
    bool truncated = false;
    hits = index->Search("volta_", false, 1000000, &truncated).size();
  }
  state.counters["hits"] = static_cast<double>(hits);
}
BENCHMARK(BM_SearchPrefix)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace tbprof

BENCHMARK_MAIN();
