// What the server holds against --memory_mb besides running conversions: the
// start-up warm-up goes through the same admission as requests, and a gzip'ed
// profile is inflated no further than its trailer claims (the trailer holds
// the size modulo 4 GiB, so a huge stream can claim to be small).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

#include "bench/hostile_inputs.h"
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

// 24 MiB of zeros, gzip'ed, whose trailer claims 1 MiB.
std::string ZerosClaimingOneMiB() {
  std::string gz = testing_plugin::Gzip(std::string(size_t{24} << 20, '\0'));
  const uint32_t claimed = 1u << 20;
  for (int i = 0; i < 4; ++i) gz[gz.size() - 4 + i] = static_cast<char>((claimed >> (8 * i)) & 0xff);
  return gz;
}

// `gz` with a comment of `pad` bytes in its header (FCOMMENT): the same
// stream in a file as large as one that could hold 4 GiB more.
std::string WithHeaderComment(const std::string& gz, size_t pad) {
  std::string out = gz.substr(0, 10);
  out[3] = static_cast<char>(out[3] | 0x10);
  out += std::string(pad, 'c') + '\0';
  return out + gz.substr(10);
}

// 24 MiB of zeros, gzip'ed, with a trailer claiming 1 MiB, in a file of
// 4.2 MB (the deflate stream of 4 GiB + 1 MiB of zeros, which carries that
// trailer, is about that size). It is estimated (and admitted) as its file
// and inflated no further: 413, naming the limit, and no memory spent.
TEST(PluginServerMemory, AGzipTrailerClaimingLessStopsTheInflationThere) {
  ScratchDir t;
  WriteFile(t.path() / "plugins/profile/wrapped/host0.xplane.pb", WithHeaderComment(ZerosClaimingOneMiB(), 4'200'000));
  // Far less room than the 24 MiB the stream holds.
  const AnswerWithRoom a = AskWithRoom(t.path(), "/data?run=wrapped&tag=overview_page", 16u << 20);
  ASSERT_TRUE(a.response.has_value());
  EXPECT_EQ(a.response->status, 413) << a.response->body;
  EXPECT_NE(a.response->body.find("when decompressed"), std::string::npos) << a.response->body;
  EXPECT_EQ(a.response->body.find(t.path().string()), std::string::npos)
      << "the answer names a server path: " << a.response->body;
  EXPECT_EQ(a.counts.refused_too_big, 0u);  // admitted by the claim, stopped by the cap
  EXPECT_TRUE(a.alive_after);
}

// The same stream in its own small file cannot have wrapped: its trailer is
// wrong, and the file is damaged (422), found without keeping what it inflates to.
TEST(PluginServerMemory, AGzipTrailerThatCannotBeTrueIsADamagedFile) {
  ScratchDir t;
  const std::string gz = ZerosClaimingOneMiB();
  WriteFile(t.path() / "plugins/profile/wrapped/host0.xplane.pb", gz);
  const AnswerWithRoom a = AskWithRoom(t.path(), "/data?run=wrapped&tag=overview_page", 16u << 20);
  ASSERT_TRUE(a.response.has_value());
  EXPECT_EQ(a.response->status, 422) << a.response->body;
  EXPECT_EQ(a.response->body, "host0.xplane.pb: this profile file is damaged or incomplete (" +
                                  std::to_string(gz.size()) +
                                  " bytes; its gzip data inflates to 25165824 bytes, not the 1048576 its last bytes "
                                  "state); re-capture it");
  EXPECT_LE(a.counts.peak_admitted_bytes, a.budget_bytes);
}

// Issue 46 item 7, scaled down tenfold: a dense xplane of 2.5M events in one
// line (10 MB; 25M in 100 MB took --memory_mb 1024 to 1.8 GB) under a sixth
// of the bound, whole trace at resolution 0 then the overview: each answered
// (200, or 413 when it cannot fit), the process's peak RSS under the bound.
TEST(PluginServerMemory, ADenseXPlaneStaysUnderTheBound) {
  ScratchDir t;
  // 4M events: a 96 MB model, and grouping them into steps for the overview about as much again.
  bench::WriteDenseXPlane(t.path() / "plugins/profile/dense/host0.xplane.pb", 4'000'000);
  constexpr uint64_t kBoundMb = 160;
  ServeProcess server({"--logdir", t.path().string(), "--memory_mb", std::to_string(kBoundMb), "--cache_mb", "24",
                       "--warm", "0"},
                      (t.path() / "stderr.log").string());
  ASSERT_GT(server.port(), 0);
  RawClient c(server.port());
  for (const char* target : {"/data?run=dense&tag=trace_viewer@&resolution=0", "/data?run=dense&tag=overview_page"}) {
    auto r = c.Get(target);
    ASSERT_TRUE(r.has_value()) << target;
    EXPECT_TRUE(r->status == 200 || r->status == 413) << target << ": " << r->status << " " << r->body.substr(0, 200);
  }
  EXPECT_LT(server.PeakRssBytes(), kBoundMb << 20);
  auto alive = c.Get("/runs");
  ASSERT_TRUE(alive.has_value());
  EXPECT_EQ(alive->status, 200);
}

}  // namespace
}  // namespace tbprof
