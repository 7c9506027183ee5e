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
//     cross-site; none may add a run;
//   - issue 46's attacks, in turn: tfprof patterns `(.*)*x` and 400 nested
//     groups, a code trace 200,000 frames deep (code and advise views), a
//     20,000-character name under `(a|b)*`, one `a/a/…/a` name of 40 KB; PyTorch
//     traces of 200,000 devices, of one 128 MB name, of 33M copies of one arg
//     (.gz) and cut short (.gz); a dense xplane of 25M events in one line
//     (100 MB), whole at resolution 0 then its overview; each must get its
//     expected answer (or 503 while other work holds the memory);
//   - clients that ask for a heavy conversion and leave after 300 ms.
// At the end the server must still answer /runs.
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
#include <iterator>
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
      const std::string what = status == -1      ? std::string("unanswered")
                               : status <= -1000 ? "unexpected " + std::to_string(-1000 - status)
                                                 : std::to_string(status);
      out += " " + what + ":" + std::to_string(n);
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

void WriteBytes(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

// A PyTorch trace of 20,000 small operators, gzip'ed and cut at two thirds.
void WriteCutGzipTrace(const fs::path& path) {
  std::string json = "{\"traceEvents\": [";
  for (int i = 0; i < 20000; ++i) {
    json += std::string(i ? "," : "") + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op" + std::to_string(i % 97) +
            "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(i * 10) + ",\"dur\":5}";
  }
  json += "]}";
  const fs::path whole = path.string() + ".whole";
  tbprof::bench::WriteGzipOfRepeats(whole, json, " ", 0, "", 6);
  std::ifstream in(whole, std::ios::binary);
  std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(whole);
  WriteBytes(path, gz.substr(0, gz.size() * 2 / 3));
}

// The crafted inputs of issue 46 items 1-5 and 7, each a run.
void BuildIssue46Runs(const fs::path& profile) {
  WriteBytes(profile / "tfprof_deep/profile_1", tbprof::bench::TfprofProfileBytes("deep", 200000));
  std::string ab;
  for (int i = 0; i < 20000; ++i) ab += i % 3 ? 'a' : 'b';
  WriteBytes(profile / "tfprof_ab/profile_1", tbprof::bench::TfprofProfileBytes(ab + "c", 0));
  std::string scopes = "a";
  while (scopes.size() < 40000) scopes += "/a";
  WriteBytes(profile / "tfprof_scopes/profile_1", tbprof::bench::TfprofProfileBytes(scopes, 0));
  WriteBytes(profile / "torch_devices/h.pt.trace.json", tbprof::bench::ManyDevicesTrace(200000));
  tbprof::bench::WriteHugeNameTrace(profile / "torch_name/h.pt.trace.json", uint64_t{128} << 20);
  tbprof::bench::WriteRepeatedArgsTrace(profile / "torch_args/h.pt.trace.json.gz", "k", 33'000'000);
  WriteCutGzipTrace(profile / "torch_cut/h.pt.trace.json.gz");
  tbprof::bench::WriteDenseXPlane(profile / "dense25m/host0.xplane.pb", 25'000'000);
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
  BuildIssue46Runs(profile);
}

// The traffic of one soak: where it goes, until when, and how it was answered.
struct Traffic {
  int port = 0;
  Clock::time_point deadline;
  Tally well, slow, dense, chunked, csrf, leavers;
  std::map<std::string, Tally> attacks;  // by attack, filled before the threads start
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

// One attack of issue 46: the request and the answers it may get.
struct Attack {
  std::string name, target;
  std::vector<int> expected;
};

const std::vector<Attack>& Issue46Attacks() {
  const std::string nested = std::string(400, '(') + "." + std::string(400, ')') + "*";
  const std::string data = "/data/plugin/profile/data?run=";
  static const std::vector<Attack> kAttacks = {
      {"regex (.*)*x", data + "tfprof_deep&tag=tfprof&view=scope&show_name_regexes=(.*)*x", {200}},
      {"regex 400 nested groups", data + "tfprof_deep&tag=tfprof&view=scope&show_name_regexes=" + nested, {400}},
      {"code trace 200k deep (code)", data + "tfprof_deep&tag=tfprof&view=code", {422}},
      {"code trace 200k deep (advise)", data + "tfprof_deep&tag=tfprof&view=advise", {422}},
      {"20k name, (a|b)*", data + "tfprof_ab&tag=tfprof&view=scope&show_name_regexes=(a%7Cb)*", {200}},
      {"a/a/.../a 40 KB", data + "tfprof_scopes&tag=tfprof&view=scope", {200, 413, 422}},
      {"torch 200k devices overview", data + "torch_devices&tag=overview_page", {200, 413}},
      {"torch 200k devices trace", data + "torch_devices&tag=trace_viewer@&resolution=0", {200, 413}},
      {"torch 128 MB name", data + "torch_name&tag=overview_page", {413}},
      {"torch 33M args .gz", data + "torch_args&tag=overview_page", {200, 413}},
      {"torch cut .gz", data + "torch_cut&tag=overview_page", {422}},
      {"dense 25M trace@ resolution=0", data + "dense25m&tag=trace_viewer@&resolution=0", {200, 413}},
      {"dense 25M overview", data + "dense25m&tag=overview_page", {200, 413}},
  };
  return kAttacks;
}

// The attacks in turn, each with a fresh parameter (a new conversion); 503
// (other work holds the memory) is allowed beside each one's answers.
void Issue46(Traffic& t, size_t first) {
  const std::vector<Attack>& attacks = Issue46Attacks();
  for (uint64_t n = first; Clock::now() < t.deadline; ++n) {
    const Attack& a = attacks[n % attacks.size()];
    Connection c(t.port, 300);
    const int status = c.Exchange(a.target + "&n=" + std::to_string(n));
    const bool expected =
        status == 503 || std::find(a.expected.begin(), a.expected.end(), status) != a.expected.end();
    t.attacks.at(a.name).Add(expected ? status : status < 0 ? -1 : -1000 - status, a.name);
  }
}

// Each asks for a conversion that takes seconds, then leaves.
void Leavers(Traffic& t) {
  const std::string targets[] = {"/data/plugin/profile/data?run=torch_devices&tag=trace_viewer@&resolution=0",
                                 "/data/plugin/profile/data?run=dense25m&tag=overview_page",
                                 "/data/plugin/profile/data?run=tfprof_deep&tag=tfprof&view=scope&show_name_regexes=(.*)*x"};
  for (uint64_t n = 0; Clock::now() < t.deadline; ++n) {
    {
      Connection c(t.port, 1);
      const bool sent = c.Send("GET " + targets[n % 3] + "&leave=" + std::to_string(n) +
                               " HTTP/1.1\r\nHost: localhost\r\n\r\n");
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      t.leavers.Add(sent ? 0 : -1, "not sent");  // 0: sent, then left
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace

int main() {
  const int seconds = std::min(300, std::max(10, std::atoi(Env("TBPROF_BENCH_SECONDS", "120").c_str())));
  const std::string server_bin = tbprof::bench::SoakServerBinary();
  const auto [flags, memory_mb] =
      tbprof::bench::SoakFlagsFrom("TBPROF_SOAK_FLAGS", "--memory_mb 1024 --cache_mb 256 --warm 2");

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
  for (const auto& a : Issue46Attacks()) t.attacks[a.name];
  t.port = server.port();
  t.deadline = Clock::now() + std::chrono::seconds(seconds);
  std::vector<std::thread> threads;
  threads.emplace_back(WellFormed, std::ref(t), 1u);
  threads.emplace_back(WellFormed, std::ref(t), 2u);
  threads.emplace_back(Issue46, std::ref(t), size_t{0});
  threads.emplace_back(Issue46, std::ref(t), Issue46Attacks().size() / 2);
  for (void (*traffic)(Traffic&) : {SlowReaders, Heavy, ChunkedGarbage, CrossSite, Leavers}) {
    threads.emplace_back(traffic, std::ref(t));
  }
  bool died = false;
  uint64_t peak_kb = server.WatchPeakKb(t.deadline, &died);
  for (std::thread& thread : threads) thread.join();
  peak_kb = std::max(peak_kb, tbprof::bench::StatusKb(server.pid(), "VmHWM:"));
  const int alive_status = died ? -1 : Connection(server.port(), 30).Exchange("/data/plugin/profile/runs");
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
  // An attack's unexpected answer S is tallied as -1000 - S, none as -1.
  bool attacks_ok = true;
  for (auto& [name, tally] : t.attacks) {
    std::printf("  issue 46, %s: %s\n", name.c_str(), tally.Summary().c_str());
    for (const auto& [status, n] : tally.by_status) attacks_ok = attacks_ok && status >= 0;
    attacks_ok = attacks_ok && !tally.by_status.empty();  // each one tried and answered
  }
  std::printf("  clients that left mid-conversion: %s\n", t.leavers.Summary().c_str());
  std::printf("  /runs after the traffic: %d\n", alive_status);
  const bool ok = !died && alive_status == 200 && attacks_ok && t.well.Count(-1) == 0 &&
                  (memory_mb == 0 || peak_kb / 1024 <= memory_mb) &&
                  runs_after == runs_before && t.chunked.Count(400) + t.chunked.Count(431) > 0 &&
                  csrf_refused > 0 && t.csrf.Count(200) == 0;
  std::printf("  %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
