// A real `tbprof serve --memory_mb 256` given a small .gz PyTorch trace whose
// one event carries 8 million args (100 MB of JSON, 128 MB as stats and
// 8 million names): the
// importer's claims stop it with 413 before the process passes its bound
// (unclaimed, it answered 200 at 328 MB peak), and the server stays up.
#include <gtest/gtest.h>

#include <string>

#include "tests/plugin/plugin_test_util.h"

namespace tbprof {
namespace {

using testing_plugin::RawClient;
using testing_plugin::ScratchDir;
using testing_plugin::ServeProcess;

TEST(KinetoServeMemory, MillionsOfArgsStopAt413UnderTheBound) {
  ScratchDir t;
  std::string json = "{\"schemaVersion\":1,\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,"
                     "\"tid\":1,\"ts\":1,\"dur\":2,\"args\":{";
  json.reserve(json.size() + 8'000'000 * 13 + 16);
  for (int i = 0; i < 8'000'000; ++i) json += "\"k" + std::to_string(i) + "\":1,";  // distinct: a repeated key is one arg
  json += "\"k\":1}}]}\n";
  testing_plugin::WriteFile(t.path() / "plugins/profile/args/h.pt.trace.json.gz", testing_plugin::Gzip(json));
  json = std::string();
  constexpr uint64_t kBoundBytes = uint64_t{256} << 20;
  ServeProcess server({"--logdir", t.path().string(), "--memory_mb", "256", "--cache_mb", "16", "--warm", "0"},
                      (t.path() / "stderr.log").string());
  ASSERT_GT(server.port(), 0);
  RawClient c(server.port());
  auto r = c.Get("/data?run=args&tag=overview_page&host=h");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 413) << r->body.substr(0, 200);
  EXPECT_NE(r->body.find("loading the profile"), std::string::npos) << r->body.substr(0, 200);
  EXPECT_LT(server.PeakRssBytes(), kBoundBytes);
  auto alive = c.Get("/runs");
  ASSERT_TRUE(alive.has_value());
  EXPECT_EQ(alive->status, 200);
}

}  // namespace
}  // namespace tbprof
