// Issue 48's pod targets, measured: a synthetic pod (GenerateSyntheticLogdir:
// HOSTS hosts of GPUS GPUs each, about EVENTS events a host) is summarized by
// `tbprof summarize` (SHARDS shards run at once, as an array scheduler runs
// them on one machine), then:
//   - a cold `tbprof serve` (a fresh process, --warm 0) answers ALL_HOSTS
//     overview_page, framework_op_stats, kernel_stats, pod_viewer and
//     trace_analysis, each timed (target ≤ 1 s each), and its peak RSS
//     (VmHWM) after the four op-statistics pages and after trace_analysis
//     (target ≤ 300 MB);
//   - a restarted server answers one host's overview_page from its summary
//     (target ≤ 0.1 s);
//   - for comparison, a cold server that finds no summary (--summary_dir on
//     an empty folder, --memory_mb BIG_MEMORY_MB) answers ALL_HOSTS
//     overview_page and trace_analysis from the profiles.
// Flags (each also TBPROF_SUMMARY_BENCH_<NAME>): --hosts=64 --gpus=8
// --events=60000 --steps=max(20, events/12000) --shards=2 --big_memory_mb=16000 --dir=$TMPDIR/tbprof_summary_bench (the pod is
// kept there between runs of the same shape; its summaries are made afresh).
//   TBPROF_SOAK_SERVER  server binary (default: tbprof beside this program)
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench/http_client.h"
#include "bench/soak_util.h"
#include "synthetic/profile_generator.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using tbprof::bench::Connection;

// About a ResNet-50 step on 8 GPUs: some 500 ops, each a host op, its launches and kernels.
constexpr int64_t kEventsPerStep = 12000;

struct Shape {
  int hosts = 64, gpus = 8, steps = 20;
  int64_t events = 60000;
  int shards = 2;
  std::string dir;
};

std::string Flag(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--" + name + "=", 0) == 0) return a.substr(name.size() + 3);
  }
  std::string env = "TBPROF_SUMMARY_BENCH_" + name;
  for (char& c : env) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return tbprof::bench::Env(env.c_str(), fallback);
}

Shape ShapeOf(int argc, char** argv) {
  Shape s;
  s.hosts = std::max(1, std::atoi(Flag(argc, argv, "hosts", "64").c_str()));
  s.gpus = std::max(1, std::atoi(Flag(argc, argv, "gpus", "8").c_str()));
  s.events = std::max<int64_t>(1000, std::atoll(Flag(argc, argv, "events", "60000").c_str()));
  s.shards = std::max(1, std::atoi(Flag(argc, argv, "shards", "2").c_str()));
  // A bigger profile is a longer one: the generator's ops per step grow with
  // events per step, and a real model's op set does not grow with the trace.
  const int64_t default_steps = std::max<int64_t>(20, s.events / kEventsPerStep);
  s.steps = std::max(1, std::atoi(Flag(argc, argv, "steps", std::to_string(default_steps)).c_str()));
  const std::string tmp = tbprof::bench::Env("TMPDIR", "/tmp");
  s.dir = Flag(argc, argv, "dir", tmp + "/tbprof_summary_bench");
  return s;
}

double SecondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

uint64_t BytesUnder(const fs::path& dir, const std::string& suffix) {
  uint64_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().string().ends_with(suffix)) total += e.file_size();
  }
  return total;
}

// The pod's run folder; generated unless a pod of this very shape is there.
fs::path EnsurePod(const Shape& s) {
  const std::string tag = std::to_string(s.hosts) + "x" + std::to_string(s.gpus) + "_" + std::to_string(s.events) +
                          "_" + std::to_string(s.steps) + "steps";
  const fs::path logdir = fs::path(s.dir) / tag;
  const fs::path run = logdir / "plugins/profile/pod";
  if (fs::exists(logdir / "complete")) return run;
  fs::remove_all(logdir);
  tbprof::SynthOptions o;
  o.out_dir = logdir.string();
  o.run = "pod";
  o.hosts = s.hosts;
  o.gpus = s.gpus;
  o.steps = s.steps;
  o.events = s.events;
  const auto start = Clock::now();
  auto written = tbprof::GenerateSyntheticLogdir(o);
  if (!written.ok()) {
    std::fprintf(stderr, "summary_bench: cannot write the pod: %s\n", written.status().message().c_str());
    std::exit(1);
  }
  std::printf("generated %zu host files in %.1f s\n", written->size(), SecondsSince(start));
  std::FILE* done = std::fopen((logdir / "complete").c_str(), "w");
  if (done != nullptr) std::fclose(done);
  return run;
}

void RemoveSummaries(const fs::path& run) {
  std::vector<fs::path> doomed;
  for (const auto& e : fs::directory_iterator(run)) {
    if (e.path().string().ends_with(".tbprof-summary")) doomed.push_back(e.path());
  }
  for (const fs::path& p : doomed) fs::remove(p);
}

// `tbprof summarize RUN --shard i/N` for every i at once; the wall time, or a negative one when a shard failed.
double Summarize(const std::string& binary, const fs::path& run, int shards) {
  const auto start = Clock::now();
  std::fflush(stdout);  // a child would print what is buffered again
  std::vector<pid_t> children;
  for (int i = 0; i < shards; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      const std::string shard = std::to_string(i) + "/" + std::to_string(shards);
      std::freopen("/dev/null", "w", stdout);
      execl(binary.c_str(), binary.c_str(), "summarize", run.c_str(), "--shard", shard.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    children.push_back(pid);
  }
  bool ok = true;
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  const double seconds = SecondsSince(start);
  return ok ? seconds : -seconds;
}

struct Timed {
  int status = -1;
  double seconds = 0;
};

Timed Ask(Connection& c, const std::string& target) {
  const auto start = Clock::now();
  Timed t;
  t.status = c.Exchange("/data/plugin/profile/data?run=pod&" + target);
  t.seconds = SecondsSince(start);
  return t;
}

void Row(const std::string& what, double measured, const std::string& unit, double target, int status = 200) {
  const bool met = status == 200 && measured <= target;
  std::printf("  %-44s %9.3f %-3s  target <= %-7g %s%s\n", what.c_str(), measured, unit.c_str(), target,
              met ? "met" : "MISSED", status == 200 ? "" : (" (HTTP " + std::to_string(status) + ")").c_str());
}

void ColdServerAllHosts(const std::string& binary, const fs::path& logdir) {
  std::fflush(stdout);
  tbprof::bench::SoakServer server(binary, logdir, "--warm 0");
  if (!server.started()) {
    std::fprintf(stderr, "summary_bench: the server did not start\n");
    std::exit(1);
  }
  Connection c(server.port(), 600);
  std::printf("cold server, summaries present, ALL_HOSTS:\n");
  for (const char* tool : {"overview_page", "framework_op_stats", "kernel_stats", "pod_viewer"}) {
    const Timed t = Ask(c, std::string("tag=") + tool + "&host=ALL_HOSTS");
    Row(tool, t.seconds, "s", 1.0, t.status);
  }
  Row("peak RSS after the four op-statistics pages", tbprof::bench::StatusKb(server.pid(), "VmHWM:") / 1024.0, "MB",
      300);
  const Timed t = Ask(c, "tag=trace_analysis&host=ALL_HOSTS");
  Row("trace_analysis", t.seconds, "s", 1.0, t.status);
  Row("peak RSS after trace_analysis", tbprof::bench::StatusKb(server.pid(), "VmHWM:") / 1024.0, "MB", 300);
}

void RestartOneHost(const std::string& binary, const fs::path& logdir) {
  std::fflush(stdout);
  tbprof::bench::SoakServer server(binary, logdir, "--warm 0");
  Connection c(server.port(), 600);
  const Timed t = Ask(c, "tag=overview_page&host=worker0");
  std::printf("restarted server, one host with its summary:\n");
  Row("overview_page host=worker0", t.seconds, "s", 0.1, t.status);
}

// With the default --memory_mb such a server refuses the pod's ALL_HOSTS pages
// (413: every host's model counted); BIG_MEMORY_MB lets it read them all.
void WithoutSummaries(const std::string& binary, const fs::path& logdir, const fs::path& empty,
                      const std::string& big_memory_mb) {
  fs::create_directories(empty);
  std::fflush(stdout);
  tbprof::bench::SoakServer server(binary, logdir,
                                   "--warm 0 --memory_mb " + big_memory_mb + " --summary_dir " + empty.string());
  Connection c(server.port(), 600);
  std::printf("for comparison, a cold server without summaries, --memory_mb %s (no target):\n", big_memory_mb.c_str());
  for (const char* tool : {"overview_page", "trace_analysis"}) {
    const Timed t = Ask(c, std::string("tag=") + tool + "&host=ALL_HOSTS");
    std::printf("  %-44s %9.3f s    (HTTP %d), peak RSS so far %.0f MB\n", (std::string(tool) + " from the profiles").c_str(),
                t.seconds, t.status, tbprof::bench::StatusKb(server.pid(), "VmHWM:") / 1024.0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Shape shape = ShapeOf(argc, argv);
  const std::string binary = tbprof::bench::SoakServerBinary();
  const fs::path run = EnsurePod(shape);
  const fs::path logdir = run.parent_path().parent_path().parent_path();
  const uint64_t profile_bytes = BytesUnder(run, ".xplane.pb");
  std::printf("pod: %d hosts x %d GPUs, %d steps, %.1f MB a host (%.0f MB in all), under %s\n", shape.hosts,
              shape.gpus, shape.steps, profile_bytes / 1e6 / shape.hosts, profile_bytes / 1e6, run.c_str());
  RemoveSummaries(run);
  const double summarize_s = Summarize(binary, run, shape.shards);
  if (summarize_s < 0) {
    std::fprintf(stderr, "summary_bench: a summarize shard failed\n");
    return 1;
  }
  std::printf("summarized in %.1f s (%d shards at once; %.0f KB of summaries a host)\n", summarize_s, shape.shards,
              BytesUnder(run, ".tbprof-summary") / 1e3 / shape.hosts);
  ColdServerAllHosts(binary, logdir);
  RestartOneHost(binary, logdir);
  WithoutSummaries(binary, logdir, fs::path(shape.dir) / "no_summaries", Flag(argc, argv, "big_memory_mb", "16000"));
  return 0;
}
