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

#include "convert/xplane/xspace_reader.h"
#include "proto/xplane.pb.h"
#include "synthetic/profile_generator.h"

namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMinBytes = uint64_t{500} << 20;

std::string BenchPath() {
  const char* env = std::getenv("TBPROF_BENCH_XSPACE");
  return env ? env : "/tmp/tbprof_bench_xspace_v2.xplane.pb";
}

// Generates the cached input when it is missing or too small.
const std::string& InputPath() {
  static const std::string path = [] {
    std::string p = BenchPath();
    std::error_code ec;
    if (fs::exists(p, ec) && fs::file_size(p, ec) >= kMinBytes) return p;
    tbprof::SynthOptions o;
    o.gpus = 4;
    o.steps = 100;
    o.events = 6600000;
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
  size_t events = 0;
  for (auto _ : state) {
    auto m = tbprof::LoadXSpaceFile(path);
    if (!m.ok()) {
      state.SkipWithError(m.status().message().c_str());
      return;
    }
    events = (*m)->NumEvents();
    benchmark::DoNotOptimize(m);
  }
  state.counters["events"] = static_cast<double>(events);
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
      execl("/proc/self/exe", "xspace_load_bench", "--measure-load-rss", path.c_str(), nullptr);
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

BENCHMARK(BM_OurLoadXSpaceFile)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_LibprotobufParseFromString)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_OurLoadPeakRss)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// Child mode: load once, print the peak RSS in KiB. VmHWM belongs to this
// process image; getrusage's ru_maxrss would carry the forking parent's peak
// across exec.
int MeasureLoadRss(const char* path) {
  auto m = tbprof::LoadXSpaceFile(path);
  if (!m.ok()) {
    std::fprintf(stderr, "%s\n", m.status().message().c_str());
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
  if (argc == 3 && std::strcmp(argv[1], "--measure-load-rss") == 0) return MeasureLoadRss(argv[2]);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
