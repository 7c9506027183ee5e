// Re-opening a host after a restart, with its summary present (issue 48's
// target: overview <= 0.1 s, first trace picture <= 1 s for a 1 GB profile).
//
// For a ~1 GB synthetic GPU xplane (4 GPUs, 100 steps) and a ~1 GB PyTorch
// trace (the torch-tb-profiler sample repeated, bench/kineto_trace_input.h):
//   - BM_Summarize/<format>: `tbprof summarize FILE` in a child process, its
//     summary, model image and trace preview deleted first: the wall time, the
//     bytes it wrote (summary_MB, image_MB, preview_MB) and its peak RSS;
//   - BM_ReopenOverview/<format>: a fresh `tbprof serve --warm 0 --memory_mb
//     8192` on the logdir (a cold process: nothing converted, nothing
//     cached), then the host's overview_page: the request's time (manual
//     time; the server's start-up is `start_s`) and its peak RSS after it;
//   - BM_ReopenFirstTracePicture/<format>: the same for the UI's first
//     trace_viewer@ request (plugin/web/src/trace/page.ts: resolution
//     round((canvas - 230) / 2) * 8 for a 1600 px canvas = 5480, no window),
//     answered from the trace preview when summarize wrote one;
//   - BM_ReopenFirstZoom/<format>: then the next request, a window of the
//     middle tenth of the trace at the same resolution, which the preview
//     cannot answer: the model read back from its image and indexed.
// The page cache is warm (the files were just written or read), as after a
// restart of the server alone. The inputs live in TBPROF_BENCH_REOPEN_DIR
// (/tmp/tbprof_bench_reopen by default) and are made once, of
// TBPROF_BENCH_REOPEN_MB megabytes each (1024 by default).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/http_client.h"
#include "bench/kineto_trace_input.h"
#include "bench/soak_util.h"
#include "convert/tools/model_image_file.h"
#include "convert/tools/op_stats_summary.h"
#include "convert/tools/trace_preview_file.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const uint64_t kTargetBytes = std::stoull(tbprof::bench::Env("TBPROF_BENCH_REOPEN_MB", "1024")) << 20;
const fs::path kLogdir = fs::path(tbprof::bench::Env("TBPROF_BENCH_REOPEN_DIR", "/tmp/tbprof_bench_reopen")) / "logdir";
// The UI's first request for a 1600 px wide canvas (its 230 px of row headings left out).
constexpr int kFirstPictureResolution = (1600 - 230) / 2 * 8;

// Room for what the work estimate (plugin/work_estimate.cc) asks of a
// trace_viewer@ request of a 1 GB xplane, so that its time is measured;
// TBPROF_BENCH_REOPEN_SERVE_FLAGS="--memory_mb 0" serves under the default
// bound instead (a refused request is reported as an error).
const std::string kServeMemory = tbprof::bench::Env("TBPROF_BENCH_REOPEN_SERVE_FLAGS", "--memory_mb 8192");

struct Profile {
  const char* run;
  const char* host;
  fs::path path;
};

// About 80 bytes an event in the synthetic xplane (6.6M events make 500 MB).
constexpr uint64_t kXPlaneBytesPerEvent = 80;

const Profile& XPlaneProfile() {
  static const Profile p = [] {
    Profile profile{"gpu", "host0", kLogdir / "plugins/profile/gpu/host0.xplane.pb"};
    fs::create_directories(profile.path.parent_path());
    tbprof::bench::SyntheticInput(profile.path.string(), static_cast<int64_t>(kTargetBytes / kXPlaneBytesPerEvent),
                                  kTargetBytes * 9 / 10);
    return profile;
  }();
  return p;
}

const Profile& KinetoProfile() {
  static const Profile p = [] {
    Profile profile{"torch", "worker0", kLogdir / "plugins/profile/torch/worker0.pt.trace.json"};
    fs::create_directories(profile.path.parent_path());
    std::error_code ec;
    if (fs::file_size(profile.path, ec) < kTargetBytes || ec) {
      tbprof::bench::WriteRepeatedKinetoTrace(profile.path.string(), kTargetBytes);
    }
    return profile;
  }();
  return p;
}

const Profile& ProfileOf(int64_t format) { return format == 0 ? XPlaneProfile() : KinetoProfile(); }

std::string SummaryOf(const Profile& p) { return p.path.string() + tbprof::kSummarySuffix; }
std::string ImageOf(const Profile& p) { return p.path.string() + tbprof::kModelImageSuffix; }
std::string PreviewOf(const Profile& p) { return p.path.string() + tbprof::kTracePreviewSuffix; }

double MegaBytes(const std::string& path) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  return ec ? 0.0 : static_cast<double>(size) / (1 << 20);
}

// `tbprof summarize FILE` as a child: its exit status and peak RSS (KiB, from wait4).
int RunSummarize(const Profile& p, long* peak_kb) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string binary = tbprof::bench::SoakServerBinary();
    if (!freopen("/dev/null", "w", stdout)) _exit(126);
    execl(binary.c_str(), binary.c_str(), "summarize", p.path.c_str(), nullptr);
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  *peak_kb = usage.ru_maxrss;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void BM_Summarize(benchmark::State& state) {
  const Profile& p = ProfileOf(state.range(0));
  long peak_kb = 0;
  for (auto _ : state) {
    fs::remove(SummaryOf(p));
    fs::remove(ImageOf(p));
    fs::remove(PreviewOf(p));
    if (RunSummarize(p, &peak_kb) != 0) return state.SkipWithError("tbprof summarize failed");
  }
  state.counters["file_MB"] = MegaBytes(p.path.string());
  state.counters["summary_MB"] = MegaBytes(SummaryOf(p));
  state.counters["image_MB"] = MegaBytes(ImageOf(p));
  state.counters["preview_MB"] = MegaBytes(PreviewOf(p));
  state.counters["peak_rss_MB"] = static_cast<double>(peak_kb) / 1024;
}

// The summary, image and trace preview `tbprof summarize` writes, made when
// missing or not current (a preview another tbprof build wrote is ignored:
// rebuilding tbprof makes them stale); current ones are left as they are.
bool EnsureSummarized(const Profile& p) {
  long unused = 0;
  return RunSummarize(p, &unused) == 0;
}

// One request to a fresh server on the logdir: its time is the iteration's.
// `prepare` asks what comes before it, untimed, and names it ("" when a
// request before it failed).
void TimeFreshServerRequest(benchmark::State& state,
                            const std::function<std::string(tbprof::bench::Connection&)>& prepare) {
  const Profile& p = ProfileOf(state.range(0));
  if (!EnsureSummarized(p)) return state.SkipWithError("tbprof summarize failed");
  double start_s = 0, peak_mb = 0;
  for (auto _ : state) {
    const Clock::time_point launched = Clock::now();
    tbprof::bench::SoakServer server(tbprof::bench::SoakServerBinary(), kLogdir, "--warm 0 " + kServeMemory);
    if (!server.started()) return state.SkipWithError("tbprof serve did not start");
    start_s = std::chrono::duration<double>(Clock::now() - launched).count();
    tbprof::bench::Connection c(server.port(), /*recv_timeout_s=*/600);
    const std::string target = prepare(c);
    if (target.empty()) return state.SkipWithError("a request before the timed one failed");
    const Clock::time_point asked = Clock::now();
    const int status = c.Exchange(target);
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - asked).count());
    if (status != 200) return state.SkipWithError(("answer " + std::to_string(status) + " to " + target).c_str());
    peak_mb = static_cast<double>(tbprof::bench::StatusKb(server.pid(), "VmHWM:")) / 1024;
  }
  state.counters["start_s"] = start_s;
  state.counters["peak_rss_MB"] = peak_mb;
  state.counters["file_MB"] = MegaBytes(p.path.string());
  state.counters["image_MB"] = MegaBytes(ImageOf(p));
}

std::string DataTarget(const Profile& p, const std::string& tool_and_params) {
  return std::string("/data/plugin/profile/data?run=") + p.run + "&host=" + p.host + "&tag=" + tool_and_params;
}

std::string FirstPictureTarget(const Profile& p) {
  return DataTarget(p, "trace_viewer@&resolution=" + std::to_string(kFirstPictureResolution));
}

void BM_ReopenOverview(benchmark::State& state) {
  const std::string target = DataTarget(ProfileOf(state.range(0)), "overview_page");
  TimeFreshServerRequest(state, [&](tbprof::bench::Connection&) { return target; });
}

void BM_ReopenFirstTracePicture(benchmark::State& state) {
  const std::string target = FirstPictureTarget(ProfileOf(state.range(0)));
  TimeFreshServerRequest(state, [&](tbprof::bench::Connection&) { return target; });
}

// The window of the middle tenth of the span an answer's "fullTimespan":[begin,end] (ms) gives.
std::string MiddleTenth(const std::string& answer) {
  const size_t at = answer.find("\"fullTimespan\":[");
  if (at == std::string::npos) return "";
  char* end = nullptr;
  const double begin_ms = std::strtod(answer.c_str() + at + 16, &end);
  const double end_ms = std::strtod(end + 1, nullptr);
  const double span = end_ms - begin_ms;
  return "&start_time_ms=" + std::to_string(begin_ms + 0.45 * span) + "&end_time_ms=" + std::to_string(begin_ms + 0.55 * span);
}

void BM_ReopenFirstZoom(benchmark::State& state) {
  const std::string first = FirstPictureTarget(ProfileOf(state.range(0)));
  TimeFreshServerRequest(state, [&](tbprof::bench::Connection& c) {
    std::string answer;
    if (c.Exchange(first, "Host: localhost\r\n", &answer) != 200) return std::string();
    const std::string window = MiddleTenth(answer);
    return window.empty() ? window : first + window;
  });
}

// Arg 0: the xplane; 1: the PyTorch trace.
void Formats(benchmark::internal::Benchmark* b) {
  b->ArgName("kineto")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);
}
BENCHMARK(BM_Summarize)->Apply(Formats)->UseRealTime();
BENCHMARK(BM_ReopenOverview)->Apply(Formats)->UseManualTime();
BENCHMARK(BM_ReopenFirstTracePicture)->Apply(Formats)->UseManualTime();
BENCHMARK(BM_ReopenFirstZoom)->Apply(Formats)->UseManualTime();

}  // namespace

BENCHMARK_MAIN();
