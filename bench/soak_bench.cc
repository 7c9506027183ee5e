// Soak: `tbprof serve` (a child process, loopback only) under a bounded run
// of mixed traffic, then its figures. Stops by itself.
//
// Traffic, all at once for TBPROF_BENCH_SECONDS (default 60):
//   - cached: runs, hosts, run_tools, overview_page and a legacy JSON that are
//     in the cache after their first request;
//   - uncached: trace_viewer@ windows at random offsets and resolutions, and
//     tool results with a fresh parameter, each a new cache entry (the cache
//     evicts under --cache_mb);
//   - hostile (one client): a host repeated 600 times, whole traces asked for
//     and never read, a legacy file over --max_response_mb, a gzip bomb for a
//     client without gzip, a gzip'ed-xplane bomb, path escapes, a foreign Host
//     header, malformed and half-sent requests.
// Reports req/s and latency (p50/p99) of the well-formed requests, their
// errors (anything but 200; must be 0), the hostile answers that were not the
// expected refusal, and the server's peak RSS (VmHWM) against --cache_mb.
//
//   TBPROF_SOAK_SERVER   server binary (default: tbprof beside this program)
//   TBPROF_SOAK_CACHE_MB --cache_mb (default 256)
//   TBPROF_SOAK_FLAGS    extra serve flags (default "--max_response_mb 64 --max_inflate_mb 256
//                        --memory_mb 512": twice the cache for cache and conversions together)
//   TBPROF_SOAK_HOSTILE  "all" (default) or "safe": only the requests that cannot
//                        exhaust an unprotected server (to measure one for comparison)
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/http_client.h"
#include "synthetic/profile_generator.h"

namespace {

namespace fs = std::filesystem;
using tbprof::bench::Connection;
using Clock = std::chrono::steady_clock;

std::string Env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

std::string ReadFile(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

uint64_t StatusKb(pid_t pid, const char* field) {
  std::string s = ReadFile("/proc/" + std::to_string(pid) + "/status");
  size_t at = s.find(field);
  return at == std::string::npos ? 0 : std::strtoull(s.c_str() + at + std::strlen(field), nullptr, 10);
}

std::string GzipOf(const std::string& in) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, in.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

void WriteFile(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

void Synth(const fs::path& path, uint64_t seed, int64_t events) {
  tbprof::SynthOptions o;
  o.gpus = 2;
  o.steps = 20;
  o.events = events;
  o.seed = seed;
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  tbprof::Status s = tbprof::WriteSyntheticXSpace(o, 0, out);
  if (!s.ok()) {
    std::fprintf(stderr, "soak: cannot write %s: %s\n", path.c_str(), s.message().c_str());
    std::exit(1);
  }
}

struct Tally {
  uint64_t requests = 0, errors = 0, hostile = 0, hostile_unexpected = 0;
  std::vector<uint32_t> latencies_us;
  std::vector<std::string> unexpected;
};

}  // namespace

int main() {
  const int seconds = std::atoi(Env("TBPROF_BENCH_SECONDS", "60").c_str());
  const std::string cache_mb = Env("TBPROF_SOAK_CACHE_MB", "256");
  const bool all_hostile = Env("TBPROF_SOAK_HOSTILE", "all") == "all";
  std::error_code ec;
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  const std::string server_bin = Env("TBPROF_SOAK_SERVER", (exe_dir / "tbprof").string());

  char tmpl[] = "/tmp/tbprof_soak_XXXXXX";
  const fs::path logdir = mkdtemp(tmpl);
  std::fprintf(stderr, "soak: building the logdir in %s\n", logdir.c_str());
  Synth(logdir / "plugins/profile/train/worker0.xplane.pb", 1, 300000);
  Synth(logdir / "plugins/profile/train/worker1.xplane.pb", 2, 300000);
  Synth(logdir / "plugins/profile/eval/worker0.xplane.pb", 3, 200000);
  std::string pod = "{\"podStats\":[";
  for (int i = 0; i < 2000; ++i) pod += (i ? ",{\"step\":" : "{\"step\":") + std::to_string(i) + "}";
  WriteFile(logdir / "plugins/profile/legacy/h.pod_viewer.json", pod + "]}");
  // Hostile files, in their own runs (legacy files serve runs without xplanes).
  {
    fs::create_directories(logdir / "plugins/profile/hostile");
    std::ofstream big(logdir / "plugins/profile/hostile/h.pod_viewer.json", std::ios::binary);
    big << "[";
    big.seekp((std::streamoff{2} << 30) - 2);  // 2 GiB, sparse
    big << "]";
  }
  WriteFile(logdir / "plugins/profile/hostile/h.trace.json.gz", GzipOf(std::string(size_t{1} << 30, ' ')));
  WriteFile(logdir / "plugins/profile/bomb/h.xplane.pb", GzipOf(std::string(size_t{1} << 30, '\0')));

  int out_pipe[2];
  if (pipe(out_pipe) != 0) return 1;
  std::vector<std::string> args = {server_bin, "serve", "--port", "0", "--logdir", logdir.string(), "--cache_mb",
                                   cache_mb, "--warm", "0", "--log_level", "warn"};
  std::istringstream extra(Env("TBPROF_SOAK_FLAGS", "--max_response_mb 64 --max_inflate_mb 256 --memory_mb 512"));
  for (std::string a; extra >> a;) args.push_back(a);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    close(out_pipe[0]);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out_pipe[1]);
  FILE* out = fdopen(out_pipe[0], "r");
  char line[1024] = {0};
  if (fgets(line, sizeof line, out) == nullptr) {
    std::fprintf(stderr, "soak: %s did not start\n", server_bin.c_str());
    return 1;
  }
  const char* at = std::strstr(line, "http://127.0.0.1:");
  const int port = at ? std::atoi(at + 17) : 0;
  const uint64_t start_rss_kb = StatusKb(pid, "VmRSS:");

  const auto deadline = Clock::now() + std::chrono::seconds(seconds);
  std::atomic<bool> server_died{false};
  auto well_formed = [&](int seed, Tally* t) {
    std::mt19937 rng(static_cast<unsigned>(seed));
    auto c = std::make_unique<Connection>(port);
    std::vector<std::string> cached = {
        "/data/plugin/profile/runs",
        "/data/plugin/profile/hosts?run=train&tag=trace_viewer@",
        "/data/plugin/profile/run_tools?run=train",
        "/data/plugin/profile/data?run=train&tag=overview_page",
        "/data/plugin/profile/data?run=eval&tag=framework_op_stats",
        "/data/plugin/profile/data?run=legacy&tag=pod_viewer",
    };
    uint64_t n = 0;
    while (Clock::now() < deadline) {
      std::string target;
      if (n++ % 4 != 3) {
        target = cached[rng() % cached.size()];
      } else if (rng() % 2 == 0) {
        const double start = (rng() % 1000) / 10.0;
        target = "/data/plugin/profile/data?run=train&tag=trace_viewer@&hosts=worker0,worker1&start_time_ms=" +
                 std::to_string(start) + "&end_time_ms=" + std::to_string(start + 5 + rng() % 20) +
                 "&resolution=" + std::to_string(500 + rng() % 4000);
      } else {
        const char* tools[] = {"kernel_stats", "input_pipeline_analyzer", "pod_viewer", "tf_data_bottleneck_analysis"};
        target = std::string("/data/plugin/profile/data?run=") + (rng() % 2 ? "train" : "eval") +
                 "&tag=" + tools[rng() % 4] + "&fresh=" + std::to_string(rng());
      }
      const auto t0 = Clock::now();
      const int status = c->Exchange(target, "Host: localhost\r\nAccept-Encoding: gzip\r\n");
      t->latencies_us.push_back(static_cast<uint32_t>(
          std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count()));
      ++t->requests;
      if (status != 200) {
        ++t->errors;
        if (t->unexpected.size() < 5) t->unexpected.push_back(std::to_string(status) + " " + target);
        if (status < 0) {
          if (kill(pid, 0) != 0) server_died = true;
          c = std::make_unique<Connection>(port);
        }
      }
    }
  };
  auto hostile = [&](Tally* t) {
    std::string repeated = "worker0";
    for (int i = 0; i < 600; ++i) repeated += ",worker0";
    struct Case {
      std::string request;
      int expected;  // 0: the answer is not read
      bool dangerous;
    };
    std::vector<Case> cases = {
        {"GET /data/plugin/profile/data?run=train&tag=trace_viewer@&resolution=0&hosts=" + repeated +
             " HTTP/1.1\r\nHost: localhost\r\n\r\n",
         0, true},
        {"GET /data/plugin/profile/data?run=train&tag=trace_viewer@&resolution=0 HTTP/1.1\r\nHost: localhost\r\n\r\n", 0,
         true},
        {"GET /data/plugin/profile/data?run=hostile&tag=pod_viewer HTTP/1.1\r\nHost: localhost\r\n\r\n", 413, true},
        {"GET /data/plugin/profile/data?run=hostile&tag=trace_viewer HTTP/1.1\r\nHost: localhost\r\n\r\n", 413, true},
        {"GET /data/plugin/profile/data?run=bomb&tag=overview_page HTTP/1.1\r\nHost: localhost\r\n\r\n", 413, true},
        {"GET /data/plugin/profile/data?run=..%2F..%2Fetc&tag=overview_page HTTP/1.1\r\nHost: localhost\r\n\r\n", 400,
         false},
        {"GET /runs HTTP/1.1\r\nHost: attacker.example\r\n\r\n", 403, false},
        {"GET /runs HTTP/1.1\r\nHost: localhost\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n", 431, false},
        {"GET /runs HTTP/1.1\r\nHost: loc", 0, false},  // half a request, then gone
    };
    uint64_t n = 0;
    while (Clock::now() < deadline) {
      const Case& k = cases[n++ % cases.size()];
      if (k.dangerous && !all_hostile) continue;
      Connection c(port);
      ++t->hostile;
      if (!c.Send(k.request)) {
        ++t->hostile_unexpected;
        continue;
      }
      if (k.expected == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        continue;  // closed without reading
      }
      const int status = c.ReadAnswer();
      if (status != k.expected) {
        ++t->hostile_unexpected;
        if (t->unexpected.size() < 5) t->unexpected.push_back(std::to_string(status) + " for " + k.request.substr(0, 80));
      }
    }
  };

  std::fprintf(stderr, "soak: %d s against %s (port %d), cache_mb %s, hostile=%s\n", seconds, server_bin.c_str(), port,
               cache_mb.c_str(), all_hostile ? "all" : "safe");
  std::vector<Tally> tallies(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) threads.emplace_back(well_formed, i + 1, &tallies[static_cast<size_t>(i)]);
  threads.emplace_back(hostile, &tallies[3]);
  uint64_t peak_kb = 0;
  while (Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    peak_kb = std::max(peak_kb, StatusKb(pid, "VmHWM:"));
  }
  for (std::thread& t : threads) t.join();
  peak_kb = std::max(peak_kb, StatusKb(pid, "VmHWM:"));
  const uint64_t end_rss_kb = StatusKb(pid, "VmRSS:");
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  fclose(out);
  fs::remove_all(logdir, ec);

  Tally total;
  for (int i = 0; i < 3; ++i) {
    Tally& t = tallies[static_cast<size_t>(i)];
    total.requests += t.requests;
    total.errors += t.errors;
    total.latencies_us.insert(total.latencies_us.end(), t.latencies_us.begin(), t.latencies_us.end());
    total.unexpected.insert(total.unexpected.end(), t.unexpected.begin(), t.unexpected.end());
  }
  std::sort(total.latencies_us.begin(), total.latencies_us.end());
  auto pct = [&](double p) -> double {
    if (total.latencies_us.empty()) return 0;
    return total.latencies_us[std::min(total.latencies_us.size() - 1,
                                       static_cast<size_t>(p * static_cast<double>(total.latencies_us.size())))] /
           1000.0;
  };
  std::printf("soak %d s, 3 well-formed clients + 1 hostile, --cache_mb %s %s (%s)\n", seconds, cache_mb.c_str(),
              extra.str().c_str(), server_bin.c_str());
  std::printf("  well-formed: %llu requests, %.0f req/s, p50 %.2f ms, p99 %.2f ms, max %.2f ms, errors %llu\n",
              static_cast<unsigned long long>(total.requests), total.requests / static_cast<double>(seconds), pct(0.5),
              pct(0.99), total.latencies_us.empty() ? 0.0 : total.latencies_us.back() / 1000.0,
              static_cast<unsigned long long>(total.errors));
  for (const std::string& u : total.unexpected) std::printf("    error: %s\n", u.c_str());
  std::printf("  hostile: %llu requests, %llu not answered with the expected refusal\n",
              static_cast<unsigned long long>(tallies[3].hostile),
              static_cast<unsigned long long>(tallies[3].hostile_unexpected));
  for (const std::string& u : tallies[3].unexpected) std::printf("    unexpected: %s\n", u.c_str());
  std::printf("  server RSS: start %.0f MB, peak %.0f MB (%.2fx --cache_mb), end %.0f MB; %s\n", start_rss_kb / 1024.0,
              peak_kb / 1024.0, peak_kb / 1024.0 / std::atof(cache_mb.c_str()), end_rss_kb / 1024.0,
              server_died ? "the server DIED" : (WIFEXITED(status) ? "exited cleanly" : "killed by a signal"));
  return total.errors == 0 && !server_died ? 0 : 1;
}
