// The server against greedy and hostile clients (issue 14, findings 3 and
// 5-8): memory bounded by configuration, a bounded worker queue, abandoned
// requests not started, accept errors backed off, bodies past 4 GiB gzip'ed
// whole, discovery off the network threads, runs with undecodable names, and
// the Host header check.
#include <sys/mman.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "convert/base/json.h"
#include "plugin/gzip.h"
#include "plugin/http_server.h"
#include "plugin/routes.h"
#include "tests/plugin/plugin_test_util.h"

namespace tbprof {
namespace {

using namespace testing_plugin;

bool Deferred(ProfileService& service, const std::string& target) {
  HttpRequest r;
  r.target = target;
  return std::holds_alternative<ProfileService::Deferred>(service.Begin(r));
}

// --- finding 3: memory per request -------------------------------------------

TEST(PluginServerLimits, AHostRepeatedInHostsIsReadAndSentOnce) {
  ScratchDir t;
  WriteSyntheticXPlane(t.path() / "plugins/profile/r/host1.xplane.pb", 1);
  WriteSyntheticXPlane(t.path() / "plugins/profile/r/host2.xplane.pb", 2);
  ProfileServiceOptions o;
  o.logdir = t.path();
  auto service = ProfileService::Create(o);
  ASSERT_TRUE(service.ok());
  auto get = [&](const std::string& hosts) {
    HttpRequest r;
    r.target = "/data?run=r&tag=trace_viewer@&resolution=0&hosts=" + hosts;
    return (*service)->Handle(r);
  };
  HttpResponse once = get("host1,host2");
  ASSERT_EQ(once.status, 200) << once.Body();
  std::string repeated = "host1,host2";
  for (int i = 0; i < 600; ++i) repeated += ",host1";
  HttpResponse many = get(repeated);
  ASSERT_EQ(many.status, 200);
  EXPECT_EQ(many.Body().size(), once.Body().size());  // before: ~300 times as large
  EXPECT_EQ(many.Body(), once.Body());
}

TEST(PluginServerLimits, AnswersOverMaxResponseAreRefusedBeforeTheyAreBuilt) {
  ScratchDir t;
  WriteSyntheticXPlane(t.path() / "plugins/profile/r/host1.xplane.pb", 1, 20000);
  ProfileServiceOptions o;
  o.logdir = t.path();
  o.max_response_bytes = 512 << 10;  // the ~15k events returned need at least 15k x 64 bytes
  auto service = ProfileService::Create(o);
  ASSERT_TRUE(service.ok());
  HttpRequest r;
  r.target = "/data?run=r&tag=trace_viewer@&resolution=0";
  HttpResponse all = (*service)->Handle(r);
  EXPECT_EQ(all.status, 413) << all.Body().substr(0, 200);
  EXPECT_NE(all.Body().find("events in this window"), std::string::npos) << all.Body();
  // A small answer from the same profile fits.
  r.target = "/data?run=r&tag=overview_page";
  EXPECT_EQ((*service)->Handle(r).status, 200);
}

// The hostile mix of the issue against a real `tbprof serve`, its peak RSS read
// from /proc: a host repeated 600 times, whole-trace responses four clients
// never read, a legacy file larger than a response may be, a gzip bomb for a
// client without gzip.
TEST(PluginServerLimits, PeakRssStaysBoundedUnderTheHostileMix) {
  ScratchDir t;
  WriteSyntheticXPlane(t.path() / "plugins/profile/r/host1.xplane.pb", 1, 60000);
  const fs::path run = t.path() / "plugins/profile/legacy";  // legacy files serve only runs without xplanes
  fs::create_directories(run);
  {
    // 300 MB legacy file, sparse (costs no disk): read whole, it cost 2x its size per request.
    std::ofstream f(run / "h.pod_viewer.json", std::ios::binary);
    f << "[";
    f.seekp((std::streamoff{300} << 20) - 2);
    f << "]";
  }
  WriteFile(run / "h.trace.json.gz", testing_plugin::Gzip(std::string(size_t{256} << 20, ' ')));
  ServeProcess server({"--logdir", t.path().string(), "--cache_mb", "64", "--max_response_mb", "32", "--warm", "0",
                       "--workers", "2"},
                      (t.path() / "stderr.log").string());
  ASSERT_GT(server.port(), 0);
  const uint64_t baseline = server.RssBytes();
  std::string repeated = "host1";
  for (int i = 0; i < 600; ++i) repeated += ",host1";
  {
    RawClient c(server.port());
    auto r = c.Get("/data?run=r&tag=trace_viewer@&resolution=0&hosts=" + repeated);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 200);
  }
  // Clients that ask for everything and never read.
  std::vector<std::unique_ptr<RawClient>> greedy;
  for (int i = 0; i < 4; ++i) {
    greedy.push_back(std::make_unique<RawClient>(server.port()));
    greedy.back()->SendRaw("GET /data?run=r&tag=trace_viewer@&resolution=0&n=" + std::to_string(i) +
                           " HTTP/1.1\r\nHost: localhost\r\n\r\n");
  }
  {
    RawClient c(server.port());
    auto r = c.Get("/data?run=legacy&tag=pod_viewer");
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 413);
  }
  for (int i = 0; i < 3; ++i) {
    RawClient c(server.port());
    auto r = c.Get("/data?run=legacy&tag=trace_viewer&i=" + std::to_string(i));  // no Accept-Encoding
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 413);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const uint64_t peak = server.PeakRssBytes();
  std::printf("hostile mix: baseline RSS %.1f MB, peak RSS %.1f MB (--cache_mb 64, --max_response_mb 32)\n",
              baseline / 1048576.0, peak / 1048576.0);
  // 64 MB of cache, two workers each with at most a 32 MB answer being built
  // (and its gzip'ed copy), a decoded 60k-event profile, and the process itself.
  EXPECT_LT(peak, uint64_t{400} << 20);
  RawClient alive(server.port());
  auto r = alive.Get("/version");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
}

// --- finding 7: bounded queue, abandoned requests, discovery, UTF-8 ---------

TEST(PluginServerLimits, AFullWorkerQueueAnswers503) {
  ScratchDir t;
  WriteSyntheticXPlane(t.path() / "plugins/profile/r/host1.xplane.pb", 1, 400000);  // ~0.5 s to convert
  HttpServerOptions ho = OneWorker();
  ho.max_queued = 1;
  InProcessServer server(t.path(), ho);
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < 10; ++i) {
    clients.push_back(std::make_unique<RawClient>(server.port()));
    ASSERT_TRUE(clients.back()->SendRaw("GET /data?run=r&tag=overview_page&n=" + std::to_string(i) +
                                        " HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  }
  int ok = 0, busy = 0;
  for (auto& c : clients) {
    auto r = c->Read();
    ASSERT_TRUE(r.has_value());
    if (r->status == 200) ++ok;
    if (r->status == 503) {
      ++busy;
      EXPECT_EQ(r->Header("retry-after"), "1");
    }
  }
  EXPECT_EQ(ok + busy, 10);
  EXPECT_GE(ok, 1);
  EXPECT_GE(busy, 1);  // before: all ten queued without bound
  // Once the queue drains, the same requests are answered (from the cache).
  RawClient again(server.port());
  EXPECT_EQ(again.Get("/data?run=r&tag=overview_page&n=9")->status, 200);
}

TEST(PluginServerLimits, WorkOfAClientThatHasGoneIsNotStarted) {
  ScratchDir t;
  WriteSyntheticXPlane(t.path() / "plugins/profile/r/host1.xplane.pb", 1, 400000);
  InProcessServer server(t.path(), OneWorker());
  RawClient slow(server.port());
  ASSERT_TRUE(slow.SendRaw("GET /data?run=r&tag=overview_page HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the worker is busy with it
  const std::string abandoned = "/data?run=r&tag=kernel_stats";
  {
    RawClient gone(server.port());
    ASSERT_TRUE(gone.SendRaw("GET " + abandoned + " HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  }  // closed while queued
  ASSERT_TRUE(slow.Read().has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // Never computed: still not in the cache.
  EXPECT_TRUE(Deferred(server.service(), abandoned));
}

TEST(PluginServerLimits, RunDiscoveryIsWorkForAWorker) {
  ScratchDir t;
  WriteFile(t.path() / "plugins/profile/r/h.pod_viewer.json", "{}");
  ProfileServiceOptions o;
  o.logdir = t.path();
  o.runs_ttl = std::chrono::hours(1);
  auto service = ProfileService::Create(o);
  ASSERT_TRUE(service.ok());
  // No index yet: walking the logdir is deferred (before: done on the network thread).
  for (const char* target : {"/runs", "/data/runs", "/data/plugins_listing", "/run_tools?run=r"}) {
    EXPECT_TRUE(Deferred(**service, target)) << target;
  }
  HttpRequest r;
  r.target = "/runs";
  EXPECT_EQ((*service)->Handle(r).Body(), "[\"r\"]");
  // A fresh index answers at once.
  EXPECT_FALSE(Deferred(**service, "/runs"));
  EXPECT_FALSE(Deferred(**service, "/data/runs"));
  // A run's own listing is a worker's job too, the first time; then it is fresh.
  EXPECT_TRUE(Deferred(**service, "/hosts?run=r&tag=pod_viewer"));
  r.target = "/hosts?run=r&tag=pod_viewer";
  EXPECT_EQ((*service)->Handle(r).status, 200);
  EXPECT_FALSE(Deferred(**service, "/hosts?run=r&tag=pod_viewer"));
}

TEST(PluginServerLimits, NamesThatAreNotUtf8AreSkippedAndTheJsonStaysValid) {
  ScratchDir t;
  WriteFile(t.path() / "plugins/profile/good/h.pod_viewer.json", "{}");
  WriteFile(t.path() / "plugins/profile/good/bad\xfehost.pod_viewer.json", "{}");
  WriteFile(t.path() / "plugins/profile/bad\xff\xfe run/h.pod_viewer.json", "{}");
  WriteFile(t.path() / "tb\xc3\x28/plugins/profile/x/h.pod_viewer.json", "{}");
  WriteFile(t.path() / "plugins/profile/caf\xc3\xa9/h.pod_viewer.json", "{}");  // valid UTF-8 stays
  ProfileServiceOptions o;
  o.logdir = t.path();
  auto service = ProfileService::Create(o);
  ASSERT_TRUE(service.ok());
  HttpRequest r;
  r.target = "/runs";
  HttpResponse runs = (*service)->Handle(r);
  boost::system::error_code ec;
  json::value v = json::parse(runs.Body(), ec);
  ASSERT_FALSE(ec) << runs.Body();
  EXPECT_EQ(v, json::value(json::array{"good", "caf\xc3\xa9"}));
  r.target = "/hosts?run=good&tag=pod_viewer";
  HttpResponse hosts = (*service)->Handle(r);
  json::value h = json::parse(hosts.Body(), ec);
  ASSERT_FALSE(ec) << hosts.Body();
  EXPECT_EQ(h, json::value(json::array{json::object{{"hostname", "h"}}}));
}

// --- finding 5: out of descriptors -------------------------------------------

TEST(PluginServerLimits, OutOfDescriptorsTheAcceptLoopBacksOffAndLogsOnceASecond) {
  ScratchDir t;
  WriteFile(t.path() / "plugins/profile/r/h.pod_viewer.json", "{}");
  const fs::path log = t.path() / "stderr.log";
  ServeProcess server({"--logdir", t.path().string(), "--warm", "0"}, log.string(), /*max_open_files=*/64);
  ASSERT_GT(server.port(), 0);
  std::vector<std::unique_ptr<RawClient>> idle;
  for (int i = 0; i < 100; ++i) idle.push_back(std::make_unique<RawClient>(server.port()));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const double cpu_before = server.CpuSeconds();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const double cpu = server.CpuSeconds() - cpu_before;
  const auto log_bytes = fs::file_size(log);
  std::printf("out of descriptors: %.2f s CPU in 3 s, %ju bytes of log\n", cpu, static_cast<uintmax_t>(log_bytes));
  EXPECT_LT(cpu, 0.5);          // before: one core spinning (~3 s)
  EXPECT_LT(log_bytes, 2000u);  // before: hundreds of MB; now a line a second at most
  EXPECT_NE(testing_plugin::ReadFile(log).find("accept failed"), std::string::npos);
  idle.clear();  // descriptors come back; the server accepts again
  bool answered = false;
  for (int i = 0; i < 50 && !answered; ++i) {
    RawClient c(server.port());
    auto r = c.Get("/version");
    answered = r.has_value() && r->status == 200;
    if (!answered) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(answered);
}

// --- finding 6: bodies past 4 GiB ---------------------------------------------

TEST(PluginServerLimits, GzipOfABodyPast4GiBIsWhole) {
  // 4 GiB + 1 MiB of anonymous zero pages (never touched, so never resident)
  // with a marker at the very end: a 32-bit length dropped all but 1 MiB of it.
  const size_t size = (size_t{4} << 30) + (size_t{1} << 20);
  void* mem = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  char* data = static_cast<char*>(mem);
  std::memcpy(data + size - 4, "END!", 4);
  auto gz = GzipCompress(std::string_view(data, size), 1);
  munmap(mem, size);
  ASSERT_TRUE(gz.ok()) << gz.status().message();
  // Inflated by zlib directly, counting instead of keeping.
  z_stream zs{};
  ASSERT_EQ(inflateInit2(&zs, 16 + MAX_WBITS), Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(gz->data());
  zs.avail_in = static_cast<uInt>(gz->size());
  std::vector<char> buf(1 << 20);
  uint64_t total = 0;
  std::string tail;
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buf.data());
    zs.avail_out = static_cast<uInt>(buf.size());
    rc = inflate(&zs, Z_NO_FLUSH);
    const size_t n = buf.size() - zs.avail_out;
    total += n;
    if (n >= 4) tail.assign(buf.data() + n - 4, 4);
  }
  inflateEnd(&zs);
  EXPECT_EQ(rc, Z_STREAM_END);
  EXPECT_EQ(total, uint64_t{size});
  EXPECT_EQ(tail, "END!");
}

// --- finding 8: Host header ---------------------------------------------------

// One raw request on a fresh connection, and its answer (empty when none came).
RawResponse SendOneRequest(int port, const std::string& request) {
  RawClient c(port);
  c.SendRaw(request);
  auto r = c.Read();
  return r.has_value() ? *r : RawResponse{};
}

TEST(PluginServerLimits, HostHeaderNamesOfALocalServer) {
  for (const char* ok : {"localhost", "localhost:6006", "LOCALHOST:1", "127.0.0.1", "127.0.0.1:8080", "[::1]",
                         "[::1]:6006", "localhost.", "localhost:", "localhost:65535"}) {
    EXPECT_TRUE(IsAllowedLocalHost(ok, {})) << ok;
  }
  for (const char* bad : {"evil.example.com", "evil.example.com:6006", "127.0.0.1.evil.com", "localhost.evil.com",
                          "[::2]:80", "[::1]x", "10.0.0.1", "a:b:c", "", "localhost:7210@evil.com",
                          "localhost:abc", "127.0.0.1:80x", "[::1]:6006@evil.com", "localhost:123456"}) {
    EXPECT_FALSE(IsAllowedLocalHost(bad, {})) << bad;
  }
  EXPECT_TRUE(IsAllowedLocalHost("MyBox:6006", {"mybox"}));
  EXPECT_FALSE(IsAllowedLocalHost("otherbox", {"mybox"}));
}

TEST(PluginServerLimits, ALocalServerRefusesRequestsForOtherHosts) {
  ScratchDir t;
  WriteFile(t.path() / "plugins/profile/r/h.pod_viewer.json", "{}");
  HttpServerOptions ho;
  ho.allowed_hosts = {"tunnel.example"};
  InProcessServer server(t.path(), ho);
  auto get = [&](const std::string& host_line) {
    return SendOneRequest(server.port(), "GET /runs HTTP/1.1\r\n" + host_line + "\r\n");
  };
  RawResponse rebound = get("Host: attacker.example:6006\r\n");
  EXPECT_EQ(rebound.status, 403);  // before: 200 with the run list
  EXPECT_EQ(rebound.body.find("\"r\""), std::string::npos);
  EXPECT_EQ(get("Host: localhost:6006\r\n").status, 200);
  EXPECT_EQ(get("Host: 127.0.0.1\r\n").status, 200);
  EXPECT_EQ(get("Host: [::1]:80\r\n").status, 200);
  EXPECT_EQ(get("Host: tunnel.example:443\r\n").status, 200);
  // A port that is not digits, or a Host that names nothing: before, 200 with the run list.
  for (const char* line : {"Host: localhost:7210@evil.com\r\n", "Host: localhost:abc\r\n", "Host:\r\n",
                           "Host: \r\n"}) {
    RawResponse r = get(line);
    EXPECT_EQ(r.status, 403) << line;
    EXPECT_EQ(r.body.find("\"r\""), std::string::npos) << line;
  }
}

// Raw requests to a server over a logdir of one run, "r", whose host "h"
// has a pod viewer file.
class RawRequests {
 public:
  RawRequests() : server_(OneRun(dir_), HttpServerOptions{}) {}
  RawResponse operator()(const std::string& request) { return SendOneRequest(server_.port(), request); }

 private:
  static fs::path OneRun(const ScratchDir& dir) {
    WriteFile(dir.path() / "plugins/profile/r/h.pod_viewer.json", "{}");
    return dir.path();
  }
  ScratchDir dir_;
  InProcessServer server_;
};

// Error answers quote the request; raw bytes in it come back as U+FFFD, so
// that every error body is UTF-8 (before: the bytes as sent).
TEST(PluginServerLimits, ErrorAnswersAreUtf8WhateverBytesTheRequestHeld) {
  RawRequests send;
  RawResponse host = send("GET /runs HTTP/1.1\r\nHost: \xff\xfe.example\r\n\r\n");
  EXPECT_EQ(host.status, 403);
  EXPECT_TRUE(IsValidUtf8(host.body)) << host.body;
  EXPECT_NE(host.body.find("\xef\xbf\xbd\xef\xbf\xbd.example"), std::string::npos) << host.body;
  for (const char* target : {"/data/plugin/profile/data?run=%FF%FE&tag=pod_viewer&host=h",
                             "/data/plugin/profile/data?run=r&tag=%C0%AF&host=h",
                             "/data/plugin/profile/data?run=r&tag=pod_viewer&host=%FF"}) {
    RawResponse r = send(std::string("GET ") + target + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
    EXPECT_GE(r.status, 400) << target;
    EXPECT_TRUE(IsValidUtf8(r.body)) << target << ": " << r.body;
  }
}

// RFC 9112 3.2: exactly one Host header in HTTP/1.1 (none is allowed in HTTP/1.0).
TEST(PluginServerLimits, RequestsWithTwoHostHeadersOrNoneAreRefused) {
  RawRequests send;
  RawResponse two = send("GET /runs HTTP/1.1\r\nHost: localhost\r\nHost: attacker.example\r\n\r\n");
  EXPECT_EQ(two.status, 400);
  EXPECT_EQ(two.body, "more than one Host header");
  EXPECT_EQ(send("GET /runs HTTP/1.1\r\nHost: attacker.example\r\nHost: localhost\r\n\r\n").status, 400);
  RawResponse none = send("GET /runs HTTP/1.1\r\n\r\n");
  EXPECT_EQ(none.status, 400);
  EXPECT_EQ(none.body, "an HTTP/1.1 request needs a Host header");
  EXPECT_EQ(send("GET /runs HTTP/1.0\r\n\r\n").status, 200);
  EXPECT_EQ(send("GET /runs HTTP/1.1\r\nHost: localhost\r\n\r\n").status, 200);
}

// --- logging ---------------------------------------------------------------------

TEST(PluginServerLimits, OneLinePerRequestOnlyWithVerbose) {
  ScratchDir t;
  WriteFile(t.path() / "plugins/profile/r/h.pod_viewer.json", "{}");
  for (bool verbose : {false, true}) {
    const fs::path log = t.path() / (verbose ? "verbose.log" : "quiet.log");
    std::vector<std::string> args = {"--logdir", t.path().string(), "--warm", "0"};
    if (verbose) args.push_back("--verbose");
    ServeProcess server(args, log.string());
    ASSERT_GT(server.port(), 0);
    for (const char* target : {"/runs", "/data?run=r&tag=pod_viewer", "/data?run=nope&tag=x", "/runs?run=%zz"}) {
      RawClient c(server.port());
      ASSERT_TRUE(c.Get(target).has_value());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the line is written after the answer
    EXPECT_EQ(server.Stop(), 0);
    std::string text = testing_plugin::ReadFile(log);
    size_t lines = std::count(text.begin(), text.end(), '\n');
    size_t requests = 0;
    for (size_t at = text.find(" GET "); at != std::string::npos; at = text.find(" GET ", at + 1)) ++requests;
    EXPECT_EQ(requests, verbose ? 4u : 0u) << text;
    if (!verbose) {
      EXPECT_LE(lines, 1u) << text;  // at most the shutdown notice
    }
  }
}

}  // namespace
}  // namespace tbprof
