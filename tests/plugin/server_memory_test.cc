// What the server holds against --memory_mb besides running conversions: the
// start-up warm-up goes through the same admission as requests, and a gzip'ed
// profile is inflated no further than its trailer claims (the trailer holds
// the size modulo 4 GiB, so a huge stream can claim to be small).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

#include "plugin/http_server.h"
#include "plugin/routes.h"
#include "tests/plugin/plugin_test_util.h"

namespace tbprof {
namespace {

using namespace testing_plugin;

// The warm-up converts the newest run's overview (estimated at 3x its file:
// the model and the answer) and its whole trace (5x). With room for the
// first only, the second is refused like a request, not run beside it.
TEST(PluginServerMemory, TheWarmUpIsAdmittedLikeARequest) {
  ScratchDir t;
  WriteSyntheticXPlane(t.path() / "plugins/profile/r/host1.xplane.pb", 1, 60000);
  const uint64_t file_bytes = fs::file_size(t.path() / "plugins/profile/r/host1.xplane.pb");
  ProfileServiceOptions so;
  so.cache_bytes = 1u << 20;
  HttpServerOptions ho;
  ho.memory_budget_bytes = so.cache_bytes + 4 * file_bytes;
  // How many of the two conversions the warm-up ran, and how many it refused as too big.
  auto warm_up = [&](const HttpServerOptions& options) {
    InProcessServer server(t.path(), options, so);
    const int computed = server.service().Warm(1, [&](ProfileService::Deferred work) {
      return server.server().RunAdmitted(std::move(work));
    });
    EXPECT_LE(server.counts().peak_admitted_bytes, options.memory_budget_bytes);
    return std::pair{computed, server.counts().refused_too_big};
  };
  EXPECT_EQ(warm_up(ho), std::pair(1, uint64_t{1}));
  ho.memory_budget_bytes = so.cache_bytes + 64 * file_bytes;
  EXPECT_EQ(warm_up(ho), std::pair(2, uint64_t{0}));
}

// 24 MiB of zeros, gzip'ed, with a trailer claiming 1 MiB: a stream of
// 4 GiB + 1 MiB would carry that trailer. It is estimated (and admitted) as
// 1 MiB and inflated no further: 413, naming the limit, and no memory spent.
TEST(PluginServerMemory, AGzipTrailerClaimingLessStopsTheInflationThere) {
  ScratchDir t;
  std::string gz = testing_plugin::Gzip(std::string(size_t{24} << 20, '\0'));
  const uint32_t claimed = 1u << 20;
  for (int i = 0; i < 4; ++i) gz[gz.size() - 4 + i] = static_cast<char>((claimed >> (8 * i)) & 0xff);
  WriteFile(t.path() / "plugins/profile/wrapped/host0.xplane.pb", gz);
  ProfileServiceOptions so;
  so.cache_bytes = 1u << 20;
  HttpServerOptions ho;
  ho.memory_budget_bytes = so.cache_bytes + (16u << 20);  // far less than the 24 MiB the stream holds
  InProcessServer server(t.path(), ho, so);
  RawClient c(server.port());
  auto r = c.Get("/data?run=wrapped&tag=overview_page");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 413) << r->body;
  EXPECT_NE(r->body.find("when decompressed"), std::string::npos) << r->body;
  EXPECT_EQ(r->body.find(t.path().string()), std::string::npos) << "the answer names a server path: " << r->body;
  EXPECT_EQ(server.counts().refused_too_big, 0u);  // admitted by the claim, stopped by the cap
  auto alive = c.Get("/runs");
  ASSERT_TRUE(alive.has_value());
  EXPECT_EQ(alive->status, 200);
}

}  // namespace
}  // namespace tbprof
