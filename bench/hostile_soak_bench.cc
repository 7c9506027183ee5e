// Hostile soak: `tbprof serve --memory_mb 1024` (a child process, loopback
// only) under a bounded run of well-formed traffic mixed with the attacks of
// issue 35, then its peak memory against the bound. Stops by itself.
//
// For TBPROF_BENCH_SECONDS (default 120, at most 300), all at once:
//   - two well-formed clients: listings, cached tool results, tool results
//     with a fresh parameter (new conversions), trace windows; every request
//     must be answered (a status line; 200, or 503/413 when memory is short);
//   - slow readers: up to 24 connections, each asking for a different whole
//     trace and never reading it;
//   - a dense xplane of tiny events asked for whole (trace_viewer, trace_viewer@);
//   - a gzip'ed xplane of 4 GiB + 1 MiB whose size trailer wraps to 1 MiB, and
//     a gzip'ed legacy overview_page.pb bomb;
//   - chunked garbage: chunk extensions, leading zeros and trailers that never end;
//   - cross-site captures: GET (an <img>), POST without the token, POST marked
//     cross-site; none may add a run.
// Reports the server's peak RSS (VmHWM, sampled every 250 ms and at the end)
// against --memory_mb, the well-formed requests and how they were answered,
// and the attacks that were not refused as expected.
//
//   TBPROF_SOAK_SERVER  server binary (default: tbprof beside this program)
//   TBPROF_SOAK_FLAGS   serve flags (default "--memory_mb 1024 --cache_mb 256 --warm 2")
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/hostile_inputs.h"
#include "bench/http_client.h"
#include "bench/soak_util.h"

namespace {

namespace fs = std::filesystem;
using tbprof::bench::Connection;
using tbprof::bench::Env;
using Clock = tbprof::bench::SoakClock;

// A gzip member of `zeros` zero bytes, streamed (never held inflated).
void WriteGzipOfZeros(const fs::path& path, uint64_t zeros) { tbprof::bench::WriteGzipStream(path, "", zeros, '\0', ""); }

// Answers by status, for one kind of traffic.
struct Tally {
  std::mutex mu;
  std::map<int, uint64_t> by_status;  // -1: no answer
  std::vector<std::string> notes;
  void Add(int status, const std::string& what) {
    std::lock_guard<std::mutex> lock(mu);
    ++by_status[status];
    if (status < 0 && notes.size() < 5) notes.push_back(what);
  }
  uint64_t Count(int status) {
    std::lock_guard<std::mutex> lock(mu);
    return by_status[status];
  }
  std::string Summary() {
    std::lock_guard<std::mutex> lock(mu);
    std::string out;
    uint64_t total = 0;
    for (const auto& [status, n] : by_status) {
      total += n;
      out += " " + (status < 0 ? std::string("unanswered") : std::to_string(status)) + ":" + std::to_string(n);
    }
    return std::to_string(total) + " (" + (out.empty() ? "" : out.substr(1)) + ")";
  }
};

size_t CountRuns(const fs::path& profile_dir) {
  size_t n = 0;
  std::error_code ec;
  for (fs::directory_iterator it(profile_dir, ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n;
}

// The runs served: two to convert, a dense one of tiny events, the wrapped
// gzip'ed xplane and the legacy gzip bomb, and a legacy JSON run.
void BuildLogdir(const fs::path& profile) {
  tbprof::bench::WriteSynthetic(profile / "train/worker0.xplane.pb", 1, 150000, 2, "hostile soak");
  tbprof::bench::WriteSynthetic(profile / "eval/worker0.xplane.pb", 2, 100000, 1, "hostile soak");
  tbprof::bench::WriteSynthetic(profile / "dense/host0.xplane.pb", 3, 1500000, 8, "hostile soak");  // many small events
  WriteGzipOfZeros(profile / "wrapped/host0.xplane.pb", (uint64_t{4} << 30) + (uint64_t{1} << 20));
  WriteGzipOfZeros(profile / "legacyz/host0.overview_page.pb", uint64_t{1} << 30);
  tbprof::bench::WritePodViewerJson(profile / "legacy/h.pod_viewer.json");
}

// The traffic of one soak: where it goes, until when, and how it was answered.
struct Traffic {
  int port = 0;
  Clock::time_point deadline;
  Tally well, slow, dense, chunked, csrf;
  std::atomic<uint64_t> well_latency_max_ms{0};
};

void WellFormed(Traffic& t, unsigned seed) {
  std::mt19937 rng(seed);
  const std::vector<std::string> cheap = {
      "/data/plugin/profile/runs", "/data/plugin/profile/hosts?run=train&tag=trace_viewer@",
      "/data/plugin/profile/run_tools?run=train", "/data/plugin/profile/data?run=train&tag=overview_page",
      "/data/plugin/profile/data?run=legacy&tag=pod_viewer"};
  auto c = std::make_unique<Connection>(t.port, 120);
  for (uint64_t n = 0; Clock::now() < t.deadline; ++n) {
    std::string target;
    if (n % 3 != 2) {
      target = cheap[rng() % cheap.size()];
    } else if (rng() % 2 == 0) {
      const double start = (rng() % 1000) / 10.0;
      target = "/data/plugin/profile/data?run=train&tag=trace_viewer@&start_time_ms=" + std::to_string(start) +
               "&end_time_ms=" + std::to_string(start + 5 + rng() % 20) + "&resolution=" + std::to_string(1000);
    } else {
      const char* tools[] = {"kernel_stats", "input_pipeline_analyzer", "framework_op_stats"};
      target = std::string("/data/plugin/profile/data?run=") + (rng() % 2 ? "train" : "eval") + "&tag=" +
               tools[rng() % 3] + "&fresh=" + std::to_string(rng());
    }
    const auto t0 = Clock::now();
    const int status = c->Exchange(target, "Host: localhost\r\nAccept-Encoding: gzip\r\n");
    const uint64_t ms = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
    uint64_t seen = t.well_latency_max_ms.load();
    while (ms > seen && !t.well_latency_max_ms.compare_exchange_weak(seen, ms)) {
    }
    t.well.Add(status, target);
    if (status < 0) c = std::make_unique<Connection>(t.port, 120);
    if (status == 503) std::this_thread::sleep_for(std::chrono::milliseconds(200));  // as Retry-After asks
  }
}

// Each asks for a different whole trace (its own cache key) and never reads it.
void SlowReaders(Traffic& t) {
  std::vector<std::unique_ptr<Connection>> held;
  for (int i = 0; Clock::now() < t.deadline; ++i) {
    if (held.size() < 24) {
      auto c = std::make_unique<Connection>(t.port, 1);
      const std::string run = i % 2 ? "train" : "eval";
      if (c->Send("GET /data/plugin/profile/data?run=" + run + "&tag=trace_viewer@&resolution=0&slow=" +
                  std::to_string(i) + " HTTP/1.1\r\nHost: localhost\r\n\r\n")) {
        t.slow.Add(0, "");  // 0: sent, not read
        held.push_back(std::move(c));
      }
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
}

// Whole traces of the dense profile, the wrapped gzip and the legacy bomb: answered, whatever the answer.
void Heavy(Traffic& t) {
  const std::vector<std::string> targets = {
      "/data/plugin/profile/data?run=dense&tag=trace_viewer@&resolution=0",
      "/data/plugin/profile/data?run=dense&tag=trace_viewer", "/data/plugin/profile/data?run=wrapped&tag=overview_page",
      "/data/plugin/profile/data?run=legacyz&tag=overview_page", "/data/plugin/profile/run_tools?run=wrapped"};
  for (uint64_t n = 0; Clock::now() < t.deadline; ++n) {
    Connection c(t.port, 300);
    const std::string& target = targets[n % targets.size()];
    t.dense.Add(c.Exchange(target + "&n=" + std::to_string(n)), target);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

// Framing that never ends: the server must answer 400 and close, not buffer it.
void ChunkedGarbage(Traffic& t) {
  const std::string head = "POST /runs HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string kinds[] = {"1;ext=", "", "0\r\n"};
  for (uint64_t n = 0; Clock::now() < t.deadline; ++n) {
    Connection c(t.port, 10);
    const std::string& kind = kinds[n % 3];
    std::string piece(64 * 1024, n % 3 == 0 ? 'a' : '0');
    if (n % 3 == 2) {
      piece.clear();
      for (int i = 0; piece.size() < 64 * 1024; ++i) piece += "X-T" + std::to_string(i) + ": v\r\n";
    }
    c.Send(head + kind);
    for (int i = 0; i < 64 && c.Send(piece); ++i) {  // up to 4 MiB, until the server stops reading
    }
    t.chunked.Add(c.ReadAnswer(), kind);
  }
}

// What a page of another site can send; none may capture.
void CrossSite(Traffic& t) {
  const std::string target = "/data/plugin/profile/capture_profile?service_addr=127.0.0.1:1&duration=100&num_retry=0";
  const std::string requests[] = {
      "GET " + target + " HTTP/1.1\r\nHost: localhost\r\n\r\n",
      "POST " + target + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nOrigin: http://127.0.0.1:1\r\n\r\n",
      "POST " + target + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nSec-Fetch-Site: cross-site\r\n\r\n",
      "POST " + target + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n",
  };
  for (uint64_t n = 0; Clock::now() < t.deadline; ++n) {
    Connection c(t.port, 30);
    c.Send(requests[n % 4]);
    t.csrf.Add(c.ReadAnswer(), requests[n % 4].substr(0, 40));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

int main() {
  const int seconds = std::min(300, std::max(10, std::atoi(Env("TBPROF_BENCH_SECONDS", "120").c_str())));
  const std::string server_bin = tbprof::bench::SoakServerBinary();
  const std::string flags = Env("TBPROF_SOAK_FLAGS", "--memory_mb 1024 --cache_mb 256 --warm 2");
  uint64_t memory_mb = 0;
  if (size_t at = flags.find("--memory_mb "); at != std::string::npos) memory_mb = std::stoull(flags.substr(at + 12));

  char tmpl[] = "/tmp/tbprof_hostile_soak_XXXXXX";
  const fs::path logdir = mkdtemp(tmpl);
  const fs::path profile = logdir / "plugins/profile";
  std::fprintf(stderr, "hostile soak: building the logdir in %s\n", logdir.c_str());
  BuildLogdir(profile);
  const size_t runs_before = CountRuns(profile);
  tbprof::bench::SoakServer server(server_bin, logdir, flags);
  if (!server.started()) {
    std::fprintf(stderr, "hostile soak: %s did not start\n", server_bin.c_str());
    return 1;
  }
  std::fprintf(stderr, "hostile soak: %d s against %s %s (port %d)\n", seconds, server_bin.c_str(), flags.c_str(),
               server.port());

  Traffic t;
  t.port = server.port();
  t.deadline = Clock::now() + std::chrono::seconds(seconds);
  std::vector<std::thread> threads;
  threads.emplace_back(WellFormed, std::ref(t), 1u);
  threads.emplace_back(WellFormed, std::ref(t), 2u);
  for (void (*traffic)(Traffic&) : {SlowReaders, Heavy, ChunkedGarbage, CrossSite}) {
    threads.emplace_back(traffic, std::ref(t));
  }
  bool died = false;
  uint64_t peak_kb = server.WatchPeakKb(t.deadline, &died);
  for (std::thread& thread : threads) thread.join();
  peak_kb = std::max(peak_kb, tbprof::bench::StatusKb(server.pid(), "VmHWM:"));
  server.Stop();
  const size_t runs_after = CountRuns(profile);
  std::error_code ec;
  fs::remove_all(logdir, ec);

  const uint64_t csrf_refused = t.csrf.Count(403) + t.csrf.Count(405);
  std::printf("hostile soak %d s, %s (%s)\n", seconds, flags.c_str(), server_bin.c_str());
  std::printf("  peak RSS %.0f MiB, bound --memory_mb %llu: %s\n", peak_kb / 1024.0,
              static_cast<unsigned long long>(memory_mb),
              memory_mb == 0 ? "no bound" : peak_kb / 1024 <= memory_mb ? "within" : "EXCEEDED");
  std::printf("  well-formed: %s, slowest %llu ms\n", t.well.Summary().c_str(),
              static_cast<unsigned long long>(t.well_latency_max_ms.load()));
  for (const std::string& n : t.well.notes) std::printf("    unanswered: %s\n", n.c_str());
  std::printf("  slow readers (sent, never read): %s\n", t.slow.Summary().c_str());
  std::printf("  dense xplane, wrapped gzip, legacy gzip bomb: %s\n", t.dense.Summary().c_str());
  std::printf("  chunked garbage: %s\n", t.chunked.Summary().c_str());
  std::printf("  cross-site captures: %s, runs added %zu\n", t.csrf.Summary().c_str(), runs_after - runs_before);
  const bool ok = !died && t.well.Count(-1) == 0 && (memory_mb == 0 || peak_kb / 1024 <= memory_mb) &&
                  runs_after == runs_before && t.chunked.Count(400) + t.chunked.Count(431) > 0 &&
                  csrf_refused > 0 && t.csrf.Count(200) == 0;
  std::printf("  %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
