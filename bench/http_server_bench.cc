// Throughput and latency of `tbprof serve` on the wire: an in-process server
// (2 network threads, as on the 2-core target machine) over a temporary
// logdir, loaded by keep-alive client connections for a fixed time.
//
//   TBPROF_BENCH_SECONDS      load duration per benchmark (default 5; the closing figures use 60)
//   TBPROF_BENCH_CONNECTIONS  concurrent client connections (default 4), one client thread each
//   TBPROF_BENCH_SERVER_THREADS  server network threads (default 2)
//
// Counters: req_per_s, p50_us / p99_us / p999_us / max_us (per-request round
// trip seen by the client), errors (non-200 or truncated responses).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <benchmark/benchmark.h>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/http_client.h"
#include "plugin/http_server.h"
#include "plugin/routes.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && std::atoi(v) > 0 ? std::atoi(v) : fallback;
}

// A logdir with 20 runs, one holding a small overview_page.json (~700 bytes,
// the size of a small tool answer).
class BenchLogdir {
 public:
  BenchLogdir() {
    char tmpl[] = "/tmp/tbprof_http_bench_XXXXXX";
    dir_ = mkdtemp(tmpl);
    for (int i = 0; i < 20; ++i) {
      fs::create_directories(dir_ / (i % 2 ? "train" : ".") / "plugins/profile" /
                             ("2024_01_01_00_00_" + std::to_string(10 + i)));
    }
    fs::path run = dir_ / "plugins/profile/2024_01_01_00_00_10";
    std::ofstream f(run / "host1.overview_page.json");
    f << "[{\"cols\":[{\"id\":\"selfTimePercent\",\"label\":\"Time (%)\",\"type\":\"number\"},"
         "{\"id\":\"category\",\"label\":\"Category\",\"type\":\"string\"}],\"p\":{\"device_duty_cycle_percent\":"
         "\"98.1%\",\"host_tf_op_percent\":\"3.2%\"},\"rows\":[";
    for (int i = 0; i < 8; ++i) f << (i ? "," : "") << "{\"c\":[{\"v\":0.15" << i << "},{\"v\":\"dot_general\"}]}";
    f << "]},{},{},{},{},{},{}]";
  }
  ~BenchLogdir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path() const { return dir_.string(); }

 private:
  fs::path dir_;
};

struct LoadResult {
  uint64_t requests = 0, errors = 0;
  double seconds = 0;
  std::vector<uint32_t> latencies_us;
};

// One keep-alive connection sending `request` back to back until `deadline`.
void ClientLoop(int port, const std::string& request, std::chrono::steady_clock::time_point deadline,
                LoadResult* out) {
  // Blocking reads, as a client that waits for every answer.
  tbprof::bench::Connection c(port, /*recv_timeout_s=*/0);
  if (!c.ok()) {
    ++out->errors;
    return;
  }
  out->latencies_us.reserve(1 << 20);
  while (std::chrono::steady_clock::now() < deadline) {
    auto t0 = std::chrono::steady_clock::now();
    int status = c.Send(request) ? c.ReadAnswer() : -1;
    if (status < 0) {  // not sent, or an answer cut short
      ++out->errors;
      break;
    }
    if (status != 200) ++out->errors;
    auto t1 = std::chrono::steady_clock::now();
    out->latencies_us.push_back(
        static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count()));
    ++out->requests;
  }
}

void RunLoad(benchmark::State& state, const std::string& target) {
  BenchLogdir logdir;
  ProfileServiceOptions so;
  so.logdir = logdir.path();
  so.web_dir = "/nonexistent";
  auto service = ProfileService::Create(so);
  if (!service.ok()) {
    state.SkipWithError(service.status().message().c_str());
    return;
  }
  HttpServerOptions ho;
  ho.port = 0;
  ho.io_threads = EnvInt("TBPROF_BENCH_SERVER_THREADS", 2);
  ho.log_level = LogLevel::kOff;
  HttpServer server(ho, service->get());
  if (Status st = server.Start(); !st.ok()) {
    state.SkipWithError(st.message().c_str());
    return;
  }
  std::thread server_thread([&] { server.Run(false); });
  const std::string request = "GET " + target + " HTTP/1.1\r\nHost: localhost\r\nUser-Agent: tbprof-bench\r\n\r\n";
  {
    // Warm the cache (the first /data converts and caches).
    LoadResult warm;
    ClientLoop(server.port(), request, std::chrono::steady_clock::now() + std::chrono::milliseconds(200), &warm);
  }
  const int connections = EnvInt("TBPROF_BENCH_CONNECTIONS", 4);
  const int seconds = EnvInt("TBPROF_BENCH_SECONDS", 5);
  LoadResult total;
  for (auto _ : state) {
    std::vector<LoadResult> results(static_cast<size_t>(connections));
    std::vector<std::thread> clients;
    auto start = std::chrono::steady_clock::now();
    auto deadline = start + std::chrono::seconds(seconds);
    for (int c = 0; c < connections; ++c) {
      clients.emplace_back(ClientLoop, static_cast<int>(server.port()), request, deadline, &results[static_cast<size_t>(c)]);
    }
    for (std::thread& t : clients) t.join();
    total.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (LoadResult& r : results) {
      total.requests += r.requests;
      total.errors += r.errors;
      total.latencies_us.insert(total.latencies_us.end(), r.latencies_us.begin(), r.latencies_us.end());
    }
  }
  server.Stop();
  server_thread.join();

  std::sort(total.latencies_us.begin(), total.latencies_us.end());
  auto pct = [&](double p) -> double {
    if (total.latencies_us.empty()) return 0;
    size_t i = std::min(total.latencies_us.size() - 1, static_cast<size_t>(p * total.latencies_us.size()));
    return total.latencies_us[i];
  };
  state.counters["req_per_s"] = total.seconds > 0 ? total.requests / total.seconds : 0;
  state.counters["requests"] = static_cast<double>(total.requests);
  state.counters["errors"] = static_cast<double>(total.errors);
  state.counters["p50_us"] = pct(0.50);
  state.counters["p99_us"] = pct(0.99);
  state.counters["p999_us"] = pct(0.999);
  state.counters["max_us"] = total.latencies_us.empty() ? 0 : total.latencies_us.back();
  state.counters["connections"] = connections;
  state.counters["server_threads"] = ho.io_threads;
}

void BM_HttpCachedSmallData(benchmark::State& state) {
  RunLoad(state, "/data/plugin/profile/data?run=2024_01_01_00_00_10&tag=overview_page&host=host1");
}
void BM_HttpRuns(benchmark::State& state) { RunLoad(state, "/data/plugin/profile/runs"); }

BENCHMARK(BM_HttpCachedSmallData)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);
BENCHMARK(BM_HttpRuns)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);

}  // namespace
}  // namespace tbprof

BENCHMARK_MAIN();
