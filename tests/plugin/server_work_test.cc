// Deferred work of the server (issue 14, the gaps left after findings 3 and
// 7): a conversion whose client leaves is cancelled while it runs and not
// cached; work is admitted by memory (the cache's bytes and the running
// conversions' estimates under --memory_mb); the network threads never list a
// directory, and the UI bundle is served from memory.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>
#include <variant>

#include <gtest/gtest.h>

#include "convert/base/cancellation.h"
#include "plugin/http_server.h"
#include "plugin/catalogue/logdir.h"
#include "plugin/routes.h"
#include "proto/xspace_builder.h"
#include "tests/plugin/plugin_test_util.h"

namespace tbprof {
namespace {

using namespace testing_plugin;

// Polls `done` for up to 30 s (a deadline against hanging, not a timing check).
template <typename Done>
bool WaitFor(Done&& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

bool Deferred(ProfileService& service, const std::string& target) {
  HttpRequest r;
  r.target = target;
  return std::holds_alternative<ProfileService::Deferred>(service.Begin(r));
}

// Removes the checkpoint hook however the test ends.
struct HookGuard {
  ~HookGuard() { SetCancellationCheckpointHook(nullptr); }
};

// --- cancellation -----------------------------------------------------------

TEST(PluginServerWork, AConversionWhoseClientLeavesStopsAtItsNextCheckpointAndIsNotCached) {
  ScratchDir t;
  // Two runs with the same profile: one converted whole to count the work a
  // whole conversion does, the other asked for by a client that leaves.
  WriteSyntheticXPlane(t.path() / "plugins/profile/whole/host1.xplane.pb", 7, 200000);
  fs::create_directories(t.path() / "plugins/profile/left");
  fs::copy_file(t.path() / "plugins/profile/whole/host1.xplane.pb", t.path() / "plugins/profile/left/host1.xplane.pb");
  InProcessServer server(t.path(), OneWorker());

  const uint64_t before_whole = CancellationCheckpoints();
  RawClient first(server.port());
  auto whole = first.Get("/data?run=whole&tag=trace_viewer@");
  ASSERT_TRUE(whole.has_value());
  ASSERT_EQ(whole->status, 200);
  const uint64_t whole_checkpoints = CancellationCheckpoints() - before_whole;
  // Model load (every 64k events and per plane), trace index (per row), JSON.
  ASSERT_GE(whole_checkpoints, 10u);

  // The first checkpoint of the abandoned conversion holds the worker until
  // the server has seen the client leave: the conversion is surely running then.
  HookGuard guard;
  std::atomic<bool> started{false}, held_once{false};
  SetCancellationCheckpointHook([&] {
    if (held_once.exchange(true)) return;
    started = true;
    std::shared_ptr<const CancellationToken> token = CurrentCancellation();
    WaitFor([&] { return token->cancelled(); });
  });
  const uint64_t before_left = CancellationCheckpoints();
  auto leaving = std::make_unique<RawClient>(server.port());
  ASSERT_TRUE(leaving->SendRaw("GET /data?run=left&tag=trace_viewer@ HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  ASSERT_TRUE(WaitFor([&] { return started.load(); }));
  leaving.reset();  // the client closes its connection mid-conversion
  ASSERT_TRUE(WaitFor([&] { return server.counts().cancelled_running == 1; }));
  SetCancellationCheckpointHook(nullptr);
  const uint64_t left_checkpoints = CancellationCheckpoints() - before_left;
  std::printf("checkpoints passed: whole conversion %llu, conversion whose client left %llu\n",
              static_cast<unsigned long long>(whole_checkpoints), static_cast<unsigned long long>(left_checkpoints));
  // It stopped at the checkpoint after the one that held it (and the checks
  // on the way out), far from the whole conversion's count.
  EXPECT_LE(left_checkpoints, 6u);
  EXPECT_LT(left_checkpoints * 3, whole_checkpoints);
  EXPECT_EQ(server.counts().finished, 1u);

  // Not cached, neither the answer nor a failure: the next client gets the whole answer.
  EXPECT_TRUE(Deferred(server.service(), "/data?run=left&tag=trace_viewer@"));
  RawClient later(server.port());
  auto again = later.Get("/data?run=left&tag=trace_viewer@");
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->status, 200);
  EXPECT_EQ(again->body, whole->body);
}

TEST(PluginServerWork, WorkWaitingForAWorkerIsNotStartedWhenItsClientLeaves) {
  ScratchDir t;
  WriteSyntheticXPlane(t.path() / "plugins/profile/r/host1.xplane.pb", 1, 20000);
  InProcessServer server(t.path(), OneWorker());
  // The only worker is held at its first checkpoint until the second request has come and gone.
  HookGuard guard;
  std::atomic<bool> started{false}, release{false}, held_once{false};
  SetCancellationCheckpointHook([&] {
    if (held_once.exchange(true)) return;
    started = true;
    WaitFor([&] { return release.load(); });
  });
  RawClient busy(server.port());
  ASSERT_TRUE(busy.SendRaw("GET /data?run=r&tag=overview_page HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  ASSERT_TRUE(WaitFor([&] { return started.load(); }));
  {
    RawClient gone(server.port());
    ASSERT_TRUE(gone.SendRaw("GET /data?run=r&tag=kernel_stats HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  }
  // The connection's end is seen while it waits; then the worker is let go.
  ASSERT_TRUE(WaitFor([&] { return server.counts().clients_left == 1; }));
  release = true;
  auto r = busy.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  ASSERT_TRUE(WaitFor([&] { return server.counts().not_started == 1; }));
  EXPECT_TRUE(Deferred(server.service(), "/data?run=r&tag=kernel_stats"));
}

// --- admission by memory -------------------------------------------------------

TEST(PluginServerWork, ConversionsWaitForMemoryAndNeverRunBeyondTheBudget) {
  ScratchDir t;
  for (int i = 0; i < 4; ++i) {
    WriteSyntheticXPlane(t.path() / ("plugins/profile/r" + std::to_string(i) + "/host1.xplane.pb"), 10 + i, 60000);
  }
  const uint64_t file_bytes = fs::file_size(t.path() / "plugins/profile/r0/host1.xplane.pb");
  ProfileServiceOptions so;
  so.cache_bytes = 1u << 20;  // models do not stay: each conversion loads its own
  so.runs_ttl = std::chrono::hours(1);
  HttpServerOptions ho;
  ho.worker_threads = 4;
  // A whole-trace conversion is estimated at 5x its file (model and JSON):
  // room for one, not two.
  ho.memory_budget_bytes = so.cache_bytes + 7 * file_bytes;
  InProcessServer server(t.path(), ho, so);
  {
    RawClient lister(server.port());  // the runs listed once, one at a time
    ASSERT_EQ(lister.Get("/runs")->status, 200);
    for (int i = 0; i < 4; ++i) {
      ASSERT_EQ(lister.Get("/hosts?run=r" + std::to_string(i) + "&tag=trace_viewer@")->status, 200);
    }
  }
  // The first conversion is held at its first checkpoint until the three
  // others wait (for memory: three workers are free).
  const HttpServer::WorkCounts listed = server.counts();
  ASSERT_EQ(listed.peak_running, 0);  // listings run on their own threads, not as conversions
  HookGuard guard;
  std::atomic<bool> held_once{false};
  SetCancellationCheckpointHook([&] {
    if (held_once.exchange(true)) return;
    WaitFor([&] { return server.counts().waited_for_memory >= 3; });
  });
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(std::make_unique<RawClient>(server.port()));
    ASSERT_TRUE(clients.back()->SendRaw("GET /data?run=r" + std::to_string(i) +
                                        "&tag=trace_viewer@ HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  }
  // Each client reads its answer as it comes (an answer being written counts
  // against the budget until read, so one read in a fixed order would hold
  // back the conversion whose client is read first).
  std::vector<std::optional<testing_plugin::RawResponse>> answers(clients.size());
  {
    std::vector<std::thread> readers;
    for (size_t i = 0; i < clients.size(); ++i) readers.emplace_back([&, i] { answers[i] = clients[i]->Read(); });
    for (auto& r : readers) r.join();
  }
  for (const auto& r : answers) {
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 200);
  }
  HttpServer::WorkCounts counts = server.counts();
  EXPECT_EQ(counts.finished - listed.finished, 4u);
  EXPECT_EQ(counts.waited_for_memory, 3u);
  EXPECT_EQ(counts.peak_running, 1);  // four workers, memory for one conversion at a time
  EXPECT_LE(counts.peak_admitted_bytes, ho.memory_budget_bytes);
}

TEST(PluginServerWork, AConversionThatCouldNeverFitIsRefusedWith413) {
  ScratchDir t;
  WriteSyntheticXPlane(t.path() / "plugins/profile/r/host1.xplane.pb", 1, 60000);
  ProfileServiceOptions so;
  so.cache_bytes = 64u << 20;
  HttpServerOptions ho;
  ho.memory_budget_bytes = so.cache_bytes + (2u << 20);  // room for listings, not for converting this profile
  InProcessServer server(t.path(), ho, so);
  RawClient c(server.port());
  auto r = c.Get("/data?run=r&tag=overview_page");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 413);
  EXPECT_NE(r->body.find("--memory_mb"), std::string::npos) << r->body;
  EXPECT_EQ(server.counts().refused_too_big, 1u);
  // Listings are small work and still answered.
  auto runs = c.Get("/runs");
  ASSERT_TRUE(runs.has_value());
  EXPECT_EQ(runs->status, 200);
}

// A profile of tiny events (no stats, short names): its model and its JSON
// are many times its file, so the server's size-based estimate is far too
// low. The work's claims (convert/base/memory_grant.h) stop it at the budget
// with a 413 instead of letting it run past; with room it is answered.
void WriteTinyEventsXPlane(const fs::path& path, int events) {
  tensorflow::profiler::XSpace space;
  space.add_hostnames("host1");
  {
    XPlaneBuilder plane = AddPlane(space, "/host:CPU", 1);
    XLineBuilder line = plane.AddLine(1, "t");
    for (int i = 0; i < events; ++i) line.AddEvent("a", int64_t{i} * 1000000, 500000);  // one a microsecond
  }
  WriteFile(path, space.SerializeAsString());
}

TEST(PluginServerWork, WorkNeedingMoreThanItsEstimateIsStoppedAtTheBudget) {
  ScratchDir t;
  WriteTinyEventsXPlane(t.path() / "plugins/profile/r/host1.xplane.pb", 300000);
  const uint64_t file_bytes = fs::file_size(t.path() / "plugins/profile/r/host1.xplane.pb");
  ASSERT_LT(file_bytes, 5u << 20);  // about 15 bytes an event
  ProfileServiceOptions so;
  so.cache_bytes = 1u << 20;
  HttpServerOptions ho;
  // Room for the estimate (5x the file for a whole trace), not for the ~25 MB of JSON.
  ho.memory_budget_bytes = so.cache_bytes + 6 * file_bytes;
  {
    InProcessServer server(t.path(), ho, so);
    RawClient c(server.port());
    for (const char* target : {"/data?run=r&tag=trace_viewer@&resolution=0", "/data?run=r&tag=trace_viewer"}) {
      SCOPED_TRACE(target);
      auto r = c.Get(target);
      ASSERT_TRUE(r.has_value());
      EXPECT_EQ(r->status, 413) << r->body.substr(0, 200);
      EXPECT_NE(r->body.find("--memory_mb"), std::string::npos) << r->body.substr(0, 200);
    }
    HttpServer::WorkCounts counts = server.counts();
    EXPECT_EQ(counts.refused_too_big, 0u);  // admitted by the estimate,
    EXPECT_EQ(counts.refused_growing_too_big, 2u);  // stopped by the claims
    EXPECT_LE(counts.peak_admitted_bytes, ho.memory_budget_bytes);
    // A window of it fits and is answered.
    auto window = c.Get("/data?run=r&tag=trace_viewer@&start_time_ms=0&end_time_ms=1");
    ASSERT_TRUE(window.has_value());
    EXPECT_EQ(window->status, 200);
  }
  ho.memory_budget_bytes = so.cache_bytes + (256u << 20);
  InProcessServer roomy(t.path(), ho, so);
  RawClient c(roomy.port());
  auto whole = c.Get("/data?run=r&tag=trace_viewer@&resolution=0");
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->status, 200);
  EXPECT_GT(whole->body.size(), 6 * file_bytes);  // more than the estimate allowed for
  const size_t at = whole->body.find("\"returnedEventsSize\":");
  ASSERT_NE(at, std::string::npos);
  EXPECT_GE(std::stoll(whole->body.substr(at + 21, 12)), 300000);  // every event of the file
}

// --- off the network threads ------------------------------------------------------

TEST(PluginServerWork, NetworkThreadsNeverListADirectory) {
  ScratchDir t;
  WriteSyntheticXPlane(t.path() / "plugins/profile/a/host1.xplane.pb", 1, 3000);
  WriteSyntheticXPlane(t.path() / "train/plugins/profile/b/host1.xplane.pb", 2, 3000);
  WriteFile(t.path() / "plugins/profile/legacy/h.pod_viewer.json", "{\"podStats\":[]}");
  for (auto ttl : {std::chrono::milliseconds(0), std::chrono::milliseconds(60000)}) {
    SCOPED_TRACE(ttl.count());
    ProfileServiceOptions so;
    so.runs_ttl = ttl;  // 0: every listing is stale, so every request would list
    InProcessServer server(t.path(), HttpServerOptions{}, so);
    const uint64_t on_network = DirectoryListingsOnNetworkThreads();
    const uint64_t listed = DirectoryListings();
    RawClient c(server.port());
    for (const char* target :
         {"/runs", "/hosts?run=a&tag=overview_page", "/run_tools?run=a", "/data?run=a&tag=overview_page",
          "/data?run=a&tag=overview_page", "/hosts?run=train/b&tag=trace_viewer@", "/data?run=train/b&tag=kernel_stats",
          "/data?run=legacy&tag=pod_viewer", "/hosts?run=legacy&tag=pod_viewer", "/data/runs",
          "/data/plugins_listing", "/runs?run_path=train/plugins/profile", "/hosts?run=b&run_path=train/plugins/profile",
          "/module_list?run=a", "/data?run=nosuchrun&tag=overview_page", "/"}) {
      auto r = c.Get(target);
      ASSERT_TRUE(r.has_value()) << target;
      EXPECT_LT(r->status, 500) << target;
    }
    EXPECT_GT(DirectoryListings(), listed);  // the logdir and runs were listed, by workers
    EXPECT_EQ(DirectoryListingsOnNetworkThreads(), on_network);
  }
}

TEST(PluginServerWork, TheUiBundleIsReadOnceAtStartAndServedFromMemory) {
  ScratchDir t;
  const fs::path web = t.path() / "web";
  WriteFile(web / "index.html", "<!DOCTYPE html><title>ui</title>");
  WriteFile(web / "assets/app.js", "console.log('app');");
  fs::create_directories(t.path() / "logdir");
  ProfileServiceOptions so;
  so.logdir = t.path() / "logdir";
  so.web_dir = web;
  auto service = ProfileService::Create(so);
  ASSERT_TRUE(service.ok());
  fs::remove_all(web);  // nothing is read from the web directory after start-up
  HttpRequest r;
  for (const auto& [target, body] : std::vector<std::pair<std::string, std::string>>{
           {"/", "<!DOCTYPE html><title>ui</title>"},
           {"/assets/app.js", "console.log('app');"},
           {"/some/ui/route", "<!DOCTYPE html><title>ui</title>"}}) {
    r.target = target;
    auto outcome = (*service)->Begin(r);
    ASSERT_TRUE(std::holds_alternative<HttpResponse>(outcome)) << target;
    EXPECT_EQ(std::get<HttpResponse>(outcome).status, 200) << target;
    EXPECT_EQ(std::get<HttpResponse>(outcome).Body(), body) << target;
  }
  r.target = "/assets/missing.js";
  EXPECT_EQ((*service)->Handle(r).status, 404);
}

}  // namespace
}  // namespace tbprof
