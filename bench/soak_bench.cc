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
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/http_client.h"
#include "bench/soak_util.h"

namespace {

namespace fs = std::filesystem;
using tbprof::bench::Connection;
using tbprof::bench::Env;
using Clock = tbprof::bench::SoakClock;

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

// Three xplane runs, a legacy run, and the hostile files in runs of their
// own (legacy files serve runs without xplanes).
void BuildLogdir(const fs::path& logdir) {
  std::fprintf(stderr, "soak: building the logdir in %s\n", logdir.c_str());
  tbprof::bench::WriteSynthetic(logdir / "plugins/profile/train/worker0.xplane.pb", 1, 300000, 2, "soak");
  tbprof::bench::WriteSynthetic(logdir / "plugins/profile/train/worker1.xplane.pb", 2, 300000, 2, "soak");
  tbprof::bench::WriteSynthetic(logdir / "plugins/profile/eval/worker0.xplane.pb", 3, 200000, 2, "soak");
  tbprof::bench::WritePodViewerJson(logdir / "plugins/profile/legacy/h.pod_viewer.json");
  {
    fs::create_directories(logdir / "plugins/profile/hostile");
    std::ofstream big(logdir / "plugins/profile/hostile/h.pod_viewer.json", std::ios::binary);
    big << "[";
    big.seekp((std::streamoff{2} << 30) - 2);  // 2 GiB, sparse
    big << "]";
  }
  WriteFile(logdir / "plugins/profile/hostile/h.trace.json.gz", GzipOf(std::string(size_t{1} << 30, ' ')));
  WriteFile(logdir / "plugins/profile/bomb/h.xplane.pb", GzipOf(std::string(size_t{1} << 30, '\0')));
}

struct Tally {
  uint64_t requests = 0, errors = 0, hostile = 0, hostile_unexpected = 0;
  std::vector<uint32_t> latencies_us;
  std::vector<std::string> unexpected;
};

// What every client needs to know of the server under test.
struct Target {
  int port = 0;
  pid_t pid = 0;
  Clock::time_point deadline;
};

// Cached answers three times out of four, else a trace window or a tool with
// a fresh parameter (a new cache entry); every answer must be 200.
void WellFormedClient(const Target& server, int seed, Tally* t, std::atomic<bool>* server_died) {
  std::mt19937 rng(static_cast<unsigned>(seed));
  auto c = std::make_unique<Connection>(server.port);
  const std::vector<std::string> cached = {
      "/data/plugin/profile/runs",
      "/data/plugin/profile/hosts?run=train&tag=trace_viewer@",
      "/data/plugin/profile/run_tools?run=train",
      "/data/plugin/profile/data?run=train&tag=overview_page",
      "/data/plugin/profile/data?run=eval&tag=framework_op_stats",
      "/data/plugin/profile/data?run=legacy&tag=pod_viewer",
  };
  uint64_t n = 0;
  while (Clock::now() < server.deadline) {
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
        if (kill(server.pid, 0) != 0) *server_died = true;
        c = std::make_unique<Connection>(server.port);
      }
    }
  }
}

// One attack after another, each on a new connection, each with the refusal
// it must get (0: the answer is not read). `all`: also the ones that would
// exhaust an unprotected server.
void HostileClient(const Target& server, bool all, Tally* t) {
  std::string repeated = "worker0";
  for (int i = 0; i < 600; ++i) repeated += ",worker0";
  struct Case {
    std::string request;
    int expected;  // 0: the answer is not read
    bool dangerous;
  };
  const std::vector<Case> cases = {
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
  while (Clock::now() < server.deadline) {
    const Case& k = cases[n++ % cases.size()];
    if (k.dangerous && !all) continue;
    Connection c(server.port);
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
}

// The well-formed clients' tallies as one.
Tally Total(const std::vector<Tally>& well_formed) {
  Tally total;
  for (const Tally& t : well_formed) {
    total.requests += t.requests;
    total.errors += t.errors;
    total.latencies_us.insert(total.latencies_us.end(), t.latencies_us.begin(), t.latencies_us.end());
    total.unexpected.insert(total.unexpected.end(), t.unexpected.begin(), t.unexpected.end());
  }
  std::sort(total.latencies_us.begin(), total.latencies_us.end());
  return total;
}

}  // namespace

int main() {
  const int seconds = std::atoi(Env("TBPROF_BENCH_SECONDS", "60").c_str());
  const std::string cache_mb = Env("TBPROF_SOAK_CACHE_MB", "256");
  const bool all_hostile = Env("TBPROF_SOAK_HOSTILE", "all") == "all";
  const std::string server_bin = tbprof::bench::SoakServerBinary();
  const std::string extra = Env("TBPROF_SOAK_FLAGS", "--max_response_mb 64 --max_inflate_mb 256 --memory_mb 512");

  char tmpl[] = "/tmp/tbprof_soak_XXXXXX";
  const fs::path logdir = mkdtemp(tmpl);
  BuildLogdir(logdir);
  tbprof::bench::SoakServer server(server_bin, logdir, "--cache_mb " + cache_mb + " --warm 0 " + extra);
  if (!server.started()) {
    std::fprintf(stderr, "soak: %s did not start\n", server_bin.c_str());
    return 1;
  }
  const uint64_t start_rss_kb = tbprof::bench::StatusKb(server.pid(), "VmRSS:");
  const Target target{server.port(), server.pid(), Clock::now() + std::chrono::seconds(seconds)};

  std::fprintf(stderr, "soak: %d s against %s (port %d), cache_mb %s, hostile=%s\n", seconds, server_bin.c_str(),
               target.port, cache_mb.c_str(), all_hostile ? "all" : "safe");
  std::atomic<bool> server_died{false};
  std::vector<Tally> well(3);
  Tally hostile;
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) threads.emplace_back(WellFormedClient, target, i + 1, &well[static_cast<size_t>(i)], &server_died);
  threads.emplace_back(HostileClient, target, all_hostile, &hostile);
  uint64_t peak_kb = server.WatchPeakKb(target.deadline, nullptr);
  for (std::thread& t : threads) t.join();
  peak_kb = std::max(peak_kb, tbprof::bench::StatusKb(server.pid(), "VmHWM:"));
  const uint64_t end_rss_kb = tbprof::bench::StatusKb(server.pid(), "VmRSS:");
  const int status = server.Stop();
  std::error_code ec;
  fs::remove_all(logdir, ec);

  const Tally total = Total(well);
  auto pct = [&](double p) -> double {
    if (total.latencies_us.empty()) return 0;
    return total.latencies_us[std::min(total.latencies_us.size() - 1,
                                       static_cast<size_t>(p * static_cast<double>(total.latencies_us.size())))] /
           1000.0;
  };
  std::printf("soak %d s, 3 well-formed clients + 1 hostile, --cache_mb %s %s (%s)\n", seconds, cache_mb.c_str(),
              extra.c_str(), server_bin.c_str());
  std::printf("  well-formed: %llu requests, %.0f req/s, p50 %.2f ms, p99 %.2f ms, max %.2f ms, errors %llu\n",
              static_cast<unsigned long long>(total.requests), total.requests / static_cast<double>(seconds), pct(0.5),
              pct(0.99), total.latencies_us.empty() ? 0.0 : total.latencies_us.back() / 1000.0,
              static_cast<unsigned long long>(total.errors));
  for (const std::string& u : total.unexpected) std::printf("    error: %s\n", u.c_str());
  std::printf("  hostile: %llu requests, %llu not answered with the expected refusal\n",
              static_cast<unsigned long long>(hostile.hostile),
              static_cast<unsigned long long>(hostile.hostile_unexpected));
  for (const std::string& u : hostile.unexpected) std::printf("    unexpected: %s\n", u.c_str());
  std::printf("  server RSS: start %.0f MB, peak %.0f MB (%.2fx --cache_mb), end %.0f MB; %s\n", start_rss_kb / 1024.0,
              peak_kb / 1024.0, peak_kb / 1024.0 / std::atof(cache_mb.c_str()), end_rss_kb / 1024.0,
              server_died ? "the server DIED" : (WIFEXITED(status) ? "exited cleanly" : "killed by a signal"));
  return total.errors == 0 && !server_died ? 0 : 1;
}
