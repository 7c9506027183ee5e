// Cost of tf_data_bottleneck_analysis and memory_profile on synthetic host
// planes (model already loaded: this measures the analyses and the JSON).
#include <benchmark/benchmark.h>

#include <functional>
#include <memory>
#include <string>

#include "convert/analysis/host_events/xspace_to_memory_profile.h"
#include "convert/analysis/host_events/xspace_to_tf_data_stats.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"

namespace tbprof {
namespace {

using tensorflow::profiler::XSpace;
constexpr int64_t kUs = 1000000;

// `calls` GetNext calls of Root -> Prefetch, each consuming an element that a
// worker thread produced through Map -> TFRecord: 7 events per call.
std::unique_ptr<XSpaceModel> TfDataModel(int64_t calls) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder consumer = plane.AddLine(1, "tf_data_iterator_get_next");
  XLineBuilder worker = plane.AddLine(2, "tf_data_iterator_resource");
  for (int64_t i = 0; i < calls; ++i) {
    int64_t t = i * 100 * kUs;
    consumer.AddEvent("Iterator::Root", t, 40 * kUs).Int("id", 1);
    consumer.AddEvent("Iterator::Root::Prefetch", t + kUs, 38 * kUs).Int("id", 2).Int("parent_id", 1);
    consumer.AddEvent("PrefetchConsume", t + 30 * kUs, kUs).Int("element_id", i);
    worker.AddEvent("PrefetchProduce", t + 2 * kUs, 30 * kUs).Int("element_id", i);
    worker.AddEvent("Iterator::Root::Prefetch::Map", t + 3 * kUs, 28 * kUs).Int("id", 3).Int("parent_id", 2);
    worker.AddEvent("Iterator::Root::Prefetch::Map::TFRecord", t + 4 * kUs, 5 * kUs).Int("id", 4).Int("parent_id", 3);
    worker.AddEvent("InstantiatedCapturedFunction::Run", t + 10 * kUs, 20 * kUs).Int("id", 100 + i);
  }
  auto model = ParseXSpace(space.SerializeAsString(), "bench");
  return std::move(*model);
}

// Runs `to_json` (the analysis and its JSON) on `model` once per iteration.
void RunAnalysis(benchmark::State& state, const XSpaceModel& model,
                 const std::function<std::string(const XSpaceModel&)>& to_json) {
  size_t bytes = 0;
  for (auto _ : state) {
    std::string json = to_json(model);
    bytes = json.size();
    benchmark::DoNotOptimize(json);
  }
  state.counters["events"] = static_cast<double>(model.NumEvents());
  state.counters["json_bytes"] = static_cast<double>(bytes);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(model.NumEvents()));
}

void BM_TfDataBottleneckAnalysis(benchmark::State& state) {
  RunAnalysis(state, *TfDataModel(state.range(0)),
              [](const XSpaceModel& m) { return TfDataStatsToJson(*ComputeTfDataStats({{"host", &m}})); });
}
BENCHMARK(BM_TfDataBottleneckAnalysis)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

// `n` allocations and `n` deallocations over 64 live chunks of one allocator.
std::unique_ptr<XSpaceModel> MemoryModel(int64_t n) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder line = plane.AddLine(1, "tf_Compute");
  int64_t heap = 0;
  for (int64_t i = 0; i < 2 * n; ++i) {
    bool alloc = (i / 64) % 2 == 0;
    int64_t bytes = 256 * (1 + i % 64);
    heap += alloc ? bytes : -bytes;
    auto e = line.AddEvent(alloc ? "MemoryAllocation" : "MemoryDeallocation", i * 1000, 0);
    e.Str("allocator_name", "GPU_0_bfc").Int("bytes_reserved", 1 << 20).Int("bytes_allocated", heap);
    e.Int("bytes_available", (int64_t{1} << 32) - heap).Double("fragmentation", 0.01).Int("peak_bytes_in_use", heap);
    e.Int("requested_bytes", bytes).Int("allocation_bytes", bytes).Int("addr", 0x10000 + 4096 * (i % 64));
    if (alloc) e.Str("tf_op", "model/dense/MatMul").Str("region_type", "output").Int("data_type", 1).Str("shape", "[64,64]");
    e.Int("group_id", i / 10000);
  }
  auto model = ParseXSpace(space.SerializeAsString(), "bench");
  return std::move(*model);
}

void BM_MemoryProfile(benchmark::State& state) {
  RunAnalysis(state, *MemoryModel(state.range(0)),
              [](const XSpaceModel& m) { return MemoryProfileToJson(*ComputeMemoryProfile(m)); });
}
BENCHMARK(BM_MemoryProfile)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tbprof

BENCHMARK_MAIN();
