// Loading a large .xplane.pb: our zero-copy reader (LoadXSpaceFile, from the
// page cache) against libprotobuf's ParseFromString of the same bytes already
// in memory, side by side; plus the peak RSS of a load in a fresh process.
//
// The synthetic input (>= 500 MB) is generated once and cached in /tmp
// (TBPROF_BENCH_XSPACE overrides the path).
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/bench_util.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xplane.pb.h"

namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMinBytes = uint64_t{500} << 20;

std::string BenchPath() {
  const char* env = std::getenv("TBPROF_BENCH_XSPACE");
  return env ? env : "/tmp/tbprof_bench_xspace_v2.xplane.pb";
}

// Generates the cached input when it is missing or too small.
const std::string& InputPath() {
  static const std::string path = tbprof::bench::SyntheticInput(BenchPath(), 6600000, kMinBytes);
  return path;
}

const std::string& InputBytes() {
  static const std::string bytes = [] {
    std::ifstream in(InputPath(), std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }();
  return bytes;
}

void BM_OurLoadXSpaceFile(benchmark::State& state) {
  const std::string& path = InputPath();
  InputBytes();  // warms the page cache the same way for both contenders
  const std::optional<size_t> events = tbprof::bench::TimeLoads(state, [&] { return tbprof::LoadXSpaceFile(path); });
  if (!events) return;
  state.counters["events"] = static_cast<double>(*events);
  state.counters["file_MB"] = static_cast<double>(fs::file_size(path)) / (1 << 20);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(fs::file_size(path)));
}

void BM_LibprotobufParseFromString(benchmark::State& state) {
  const std::string& bytes = InputBytes();
  size_t planes = 0;
  for (auto _ : state) {
    tensorflow::profiler::XSpace space;
    if (!space.ParseFromString(bytes)) {
      state.SkipWithError("libprotobuf could not parse the input");
      return;
    }
    planes = static_cast<size_t>(space.planes_size());
    benchmark::DoNotOptimize(space);
  }
  state.counters["planes"] = static_cast<double>(planes);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes.size()));
}

// Peak RSS of one load, measured in a freshly exec'd copy of this program so
// nothing else (the in-memory copy above, libprotobuf's heap) is counted.
void BM_OurLoadPeakRss(benchmark::State& state) {
  tbprof::bench::ReportChildPeakRss(state, "--measure-load-rss", InputPath());
}

BENCHMARK(BM_OurLoadXSpaceFile)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_LibprotobufParseFromString)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_OurLoadPeakRss)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// Child mode: load once (BenchMain then prints the peak RSS).
tbprof::Status MeasureLoadRss(const char* path) { return tbprof::LoadXSpaceFile(path).status(); }

}  // namespace

int main(int argc, char** argv) { return tbprof::bench::BenchMain(argc, argv, "--measure-load-rss", MeasureLoadRss); }
