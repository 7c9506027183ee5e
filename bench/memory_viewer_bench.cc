// memory_viewer and graph_viewer warm: the HLO programs of the testdata
// profiles are parsed once (as the server's cache holds them); each iteration
// computes the memory viewer of the largest module (most heap-simulator
// events) and writes its JSON, or the graph around one node.
//   MemoryViewer/warm:  ComputeMemoryViewer + MemoryViewerToJson, memory space 0
//   GraphViewer/warm:   the 3-hop neighbourhood of the module's busiest node, as JSON
// TBPROF_BENCH_TESTDATA names the testdata folder (default: beside the checkout).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "convert/analysis/hlo/graph_viewer.h"
#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/analysis/hlo/memory_viewer.h"
#include "convert/xplane/xspace_reader.h"

namespace {

namespace fs = std::filesystem;
using namespace tbprof;

std::string Testdata() {
  if (const char* env = std::getenv("TBPROF_BENCH_TESTDATA")) return env;
  return TBPROF_TESTDATA;
}

struct Largest {
  std::vector<HloPrograms> all;  // keeps the programs alive
  const HloProgram* program = nullptr;
  int events = 0;
};

const Largest& LargestModule() {
  static const Largest largest = [] {
    Largest l;
    for (const auto& entry : fs::recursive_directory_iterator(Testdata() + "/xplane")) {
      if (entry.path().extension() != ".pb" || entry.path().string().find("corrupt") != std::string::npos) continue;
      auto model = LoadXSpaceFile(entry.path().string());
      if (!model.ok()) continue;
      l.all.push_back(LoadHloPrograms(**model));
      for (const auto& [id, p] : l.all.back().by_id) {
        int events = 0;
        for (const auto& t : p->proto().buffer_assignment().heap_simulator_traces()) events += t.events_size();
        if (events > l.events) l.events = events, l.program = p.get();
      }
    }
    return l;
  }();
  return largest;
}

void BM_MemoryViewerWarm(benchmark::State& state) {
  const Largest& l = LargestModule();
  if (l.program == nullptr) {
    state.SkipWithError("no HLO module with a heap-simulator trace in the testdata");
    return;
  }
  size_t bytes = 0;
  for (auto _ : state) {
    auto r = ComputeMemoryViewer(l.program->proto(), {});
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    std::string json = MemoryViewerToJson(*r);
    bytes = json.size();
    benchmark::DoNotOptimize(json);
  }
  state.SetLabel(l.program->name() + ": " + std::to_string(l.events) + " events, " + std::to_string(bytes) + " B JSON");
}
BENCHMARK(BM_MemoryViewerWarm)->Name("MemoryViewer/warm")->Unit(benchmark::kMillisecond);

void BM_GraphViewerWarm(benchmark::State& state) {
  const Largest& l = LargestModule();
  if (l.program == nullptr) {
    state.SkipWithError("no HLO module in the testdata");
    return;
  }
  // The entry computation's instruction with the most operands.
  const HloComputation* entry = l.program->FindComputation(l.program->module().entry_computation_id());
  if (entry == nullptr || entry->instructions().empty()) {
    state.SkipWithError("no entry computation");
    return;
  }
  const HloInstruction* busiest = &entry->instructions(0);
  for (const auto& i : entry->instructions()) {
    if (i.operand_ids_size() > busiest->operand_ids_size()) busiest = &i;
  }
  GraphViewerOptions options;
  options.node_name = busiest->name();
  size_t nodes = 0;
  for (auto _ : state) {
    auto g = BuildHloGraph(*l.program, options);
    if (!g.ok()) {
      state.SkipWithError(g.status().message().c_str());
      return;
    }
    nodes = g->nodes.size();
    std::string json = HloGraphToJson(*g);
    benchmark::DoNotOptimize(json);
  }
  state.SetLabel(busiest->name() + ": " + std::to_string(nodes) + " nodes");
}
BENCHMARK(BM_GraphViewerWarm)->Name("GraphViewer/warm")->Unit(benchmark::kMillisecond);

}  // namespace
BENCHMARK_MAIN();
