// stragglers: the band over ranks' step times, by hand; NCCL bus bandwidth
// from a real trace's recorded message sizes, by hand.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "convert/analysis/trace_analysis/stragglers.h"
#include "convert/kineto/kineto_reader.h"
#include "convert/load/profile_file.h"
#include "tests/convert/kineto/kineto_trace_writer.h"

namespace tbprof::trace_analysis {
namespace {

namespace fs = std::filesystem;

TEST(Stragglers, SlowRankOutsideTheBandIsFlaggedWithItsReason) {
  // Step times 100, 102, 98, 150 µs: median 101, MAD median(1, 1, 3, 49) = 2;
  // the band's edge max(111.1, 107) = 111.1: only rank 3 straggles, by its idle time.
  std::vector<StragglerInput> ranks = {{0, 100.0, 80.0, 10.0, 10.0, "h0"},
                                       {1, 102.0, 81.0, 10.0, 11.0, "h1"},
                                       {2, 98.0, 79.0, 10.0, 9.0, "h2"},
                                       {3, 150.0, 80.0, 12.0, 58.0, "h3"}};
  Stragglers s = FindStragglers(ranks);
  EXPECT_DOUBLE_EQ(*s.median_us, 101.0);
  EXPECT_DOUBLE_EQ(*s.mad_us, 2.0);
  EXPECT_DOUBLE_EQ(*s.threshold_us, 101.0 * 1.1);
  ASSERT_EQ(s.rows.size(), 4u);
  EXPECT_FALSE(s.rows[0].straggler || s.rows[1].straggler || s.rows[2].straggler);
  EXPECT_TRUE(s.rows[3].straggler);
  EXPECT_EQ(s.rows[3].reason,
            "step time 150.0 µs is 48.5 % above the median 101.0 µs; most of it idle time (+47.5 µs)");
  std::string json;
  AppendStragglersJson(s, {}, json);
  EXPECT_NE(json.find(R"("median_us":101,"mad_us":2,"threshold_us":111.10000000000001})"), std::string::npos) << json;
  EXPECT_NE(json.find(R"({"rank":0,"host":"h0","step_time_us":100,"compute_us":80,"communication_us":10,"idle_us":10,"straggler":false,"reason":null})"),
            std::string::npos)
      << json;
}

TEST(Stragglers, ManyRanksUseTheMadBand) {
  // 1000 ± 50 µs spread: median 1000, MAD 50, edge max(1100, 1150) = 1150.
  std::vector<StragglerInput> ranks;
  const double times[] = {950, 1000, 1050, 950, 1050, 1120, 1000};
  for (int i = 0; i < 7; ++i) ranks.push_back({i, times[i], std::nullopt, std::nullopt, std::nullopt, "h" + std::to_string(i)});
  Stragglers s = FindStragglers(ranks);
  EXPECT_DOUBLE_EQ(*s.threshold_us, 1150.0);
  for (const StragglerRow& r : s.rows) EXPECT_FALSE(r.straggler) << r.figures.rank;
}

TEST(Stragglers, WithoutStepsNothingIsJudged) {
  Stragglers s = FindStragglers({{0, std::nullopt, 1.0, 2.0, 3.0, "h0"}});
  EXPECT_FALSE(s.median_us.has_value());
  EXPECT_FALSE(s.rows[0].straggler);
  std::string json;
  AppendStragglersJson(s, {}, json);
  EXPECT_NE(json.find(R"("median_us":null)"), std::string::npos);
  EXPECT_NE(json.find(R"("step_time_us":null)"), std::string::npos);
}

TEST(Stragglers, MeanStepTimeOfTheHostsSteps) {
  testing_kineto::TraceWriter t;
  t.Host("user_annotation", "ProfilerStep#3", 0, 100'000, R"("External id": 1)");
  t.Host("user_annotation", "ProfilerStep#4", 100'000, 140'000, R"("External id": 2)");
  auto model = ParseKinetoTrace(t.Json(), "t.pt.trace.json");
  ASSERT_TRUE(model.ok());
  EXPECT_DOUBLE_EQ(*MeanStepTimeUs(**model), 120.0);
}

TEST(Stragglers, AllGatherBusBandwidthFromTheKernelsMessageSize) {
  // vLLM on 8 B200s: one ncclDevKernel_AllGather_RING_LL, _allgather_base of
  // 201088 BFloat16 out (25136 in), group of 8, 21.953 µs.
  auto model = LoadProfileFile((fs::path(TBPROF_TESTDATA) / "kineto_nvidia/b200_vllm_eager.pt.trace.json.gz").string());
  ASSERT_TRUE(model.ok());
  std::vector<CollectiveRow> rows = CollectiveBandwidth(**model, 0);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].name, "_allgather_base");
  EXPECT_EQ(rows[0].count, 1);
  EXPECT_DOUBLE_EQ(rows[0].bytes, 201088.0 * 2);
  EXPECT_EQ(rows[0].time_ps, 21'953'000);
  EXPECT_NEAR(*rows[0].bus_bandwidth_gbps, 201088.0 * 2 / 21.953e-6 / 1e9 * 7 / 8, 1e-9);
  // No NCCL kernels with sizes: no rows.
  auto bert = LoadProfileFile((fs::path(TBPROF_TESTDATA) / "kineto_nvidia/h100_bert_small.pt.trace.json.gz").string());
  ASSERT_TRUE(bert.ok());
  EXPECT_TRUE(CollectiveBandwidth(**bert, 0).empty());
}

}  // namespace
}  // namespace tbprof::trace_analysis
