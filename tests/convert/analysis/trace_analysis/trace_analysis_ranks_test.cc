// Sections 7–9 in the whole trace_analysis answer over two ranks (the
// ALL_HOSTS form), one made slow, built with the trace writer.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "convert/analysis/trace_analysis/trace_analysis.h"
#include "convert/kineto/kineto_reader.h"
#include "tests/convert/kineto/kineto_trace_writer.h"

namespace tbprof::trace_analysis {
namespace {

using testing_kineto::TraceWriter;

// Two steps of `step_us`, each an aten::mm (20 µs) launching a 30 µs kernel
// at the step's start + 10 µs, then a cudaDeviceSynchronize to its end.
// `stated_rank` >= 0: the trace's distributedInfo states it.
std::unique_ptr<XSpaceModel> Rank(int64_t step_us, int stated_rank = -1) {
  TraceWriter t;
  if (stated_rank >= 0) t.Rank(stated_rank);
  for (int i = 0; i < 2; ++i) {
    const int64_t b = i * step_us * 1000;
    const std::string n = std::to_string(i + 1);
    t.Host("user_annotation", "ProfilerStep#" + n, b, step_us * 1000, R"("External id": )" + std::to_string(10 + i));
    t.Host("cpu_op", "aten::mm", b + 1'000, 20'000,
           R"("External id": )" + std::to_string(20 + i) +
               R"(, "Input Dims": [[64, 32], [32, 16]], "Input type": ["float", "float"])");
    t.Launch(b + 2'000, 4'000, b + 10'000, 30'000, "gemm", 100 + i, 20 + i);
    t.Host("cuda_runtime", "cudaDeviceSynchronize", b + 25'000, step_us * 1000 - 26'000,
           R"("correlation": )" + std::to_string(200 + i));
  }
  auto m = ParseKinetoTrace(t.Json(), "rank.pt.trace.json");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

TEST(TraceAnalysisRanks, SlowRankStragglesAndEachRankHasItsPathAndRoofline) {
  auto fast = Rank(100), slow = Rank(150);
  std::vector<RankModel> ranks = {{fast.get(), "rank0", 0}, {slow.get(), "rank1", 1}};
  boost::json::object doc = boost::json::parse(TraceAnalysisJson(ranks, {})).as_object();

  // Step times 100 and 150 µs: median 125, two ranks, so the edge is 137.5.
  const auto& st = doc.at("stragglers").as_object();
  EXPECT_EQ(st.at("band").at("threshold_us").to_number<double>(), 137.5);
  const auto& rows = st.at("rows").as_array();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("straggler"), false);
  EXPECT_EQ(rows[1].at("straggler"), true);
  EXPECT_EQ(rows[1].at("step_time_us").to_number<double>(), 150.0);
  // The GPU span runs from the first kernel (10) to the last one's end: 100 + 40 or 150 + 40;
  // 60 µs of kernels, the rest idle: the slow rank's extra 50 µs are idle time.
  EXPECT_EQ(rows[0].at("compute_us").to_number<double>(), 60.0);
  EXPECT_EQ(rows[0].at("idle_us").to_number<double>(), 70.0);
  EXPECT_EQ(rows[1].at("idle_us").to_number<double>(), 120.0);
  EXPECT_EQ(rows[1].at("communication_us").to_number<double>(), 0.0);
  EXPECT_EQ(rows[1].at("reason"), "step time 150.0 µs is 20.0 % above the median 125.0 µs; most of it idle time (+25.0 µs)");

  // Each rank's first step: start → mm (1) → launch (1) → kernel start (8) → kernel (30) → the sync's end
  // (step − 1 − 40) → the step's end (1): the step's span.
  const auto& cp = doc.at("critical_path").as_object();
  EXPECT_EQ(cp.at("step").to_number<int64_t>(), 1);
  EXPECT_EQ(cp.at("length_us").to_number<double>(), 150.0);  // the slow rank sets the step
  const auto& per_rank = cp.at("per_rank").as_array();
  ASSERT_EQ(per_rank.size(), 2u);
  EXPECT_EQ(per_rank[0].at("length_us").to_number<double>(), 100.0);
  EXPECT_EQ(per_rank[1].at("length_us").to_number<double>(), 150.0);
  double shares[2] = {0, 0};
  for (const auto& s : cp.at("segments").as_array()) {
    shares[s.at("rank").to_number<int64_t>()] += s.at("share_pctg").to_number<double>();
  }
  EXPECT_NEAR(shares[0], 100.0, 1e-9);
  EXPECT_NEAR(shares[1], 100.0, 1e-9);

  // aten::mm [64,32]×[32,16] in float, twice a rank: 2·64·16·32 FLOPs a call in 30 µs.
  const auto& roofline = doc.at("op_roofline").at("rows").as_array();
  ASSERT_EQ(roofline.size(), 2u);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(roofline[r].at("rank").to_number<int64_t>(), r);
    EXPECT_EQ(roofline[r].at("count").to_number<int64_t>(), 2);
    EXPECT_EQ(roofline[r].at("flops").to_number<double>(), 2 * 2.0 * 64 * 16 * 32);
    EXPECT_EQ(roofline[r].at("bytes").to_number<double>(), 2 * (64.0 * 32 + 32 * 16 + 64 * 16) * 4);
  }
}

TEST(TraceAnalysisRanks, AskedStepAndAStepARankLacks) {
  auto fast = Rank(100);
  std::vector<RankModel> ranks = {{fast.get(), "rank0", 0}};
  TraceAnalysisOptions options;
  options.critical_path_step = 2;
  boost::json::object doc = boost::json::parse(TraceAnalysisJson(ranks, {}, options)).as_object();
  EXPECT_EQ(doc.at("critical_path").at("step").to_number<int64_t>(), 2);
  options.critical_path_step = 5;
  doc = boost::json::parse(TraceAnalysisJson(ranks, {}, options)).as_object();
  const auto& cp = doc.at("critical_path").as_object();
  EXPECT_TRUE(cp.at("step").is_null());
  EXPECT_TRUE(cp.at("length_us").is_null());
  EXPECT_EQ(cp.at("reason"), "critical_path: no step 5 in this profile; its steps: 1, 2");
}

// Two runs side by side whose traces both state rank 0: every row of every
// section names its host, so a client tells them apart without relying on
// the order of the rows.
TEST(TraceAnalysisRanks, EveryRowNamesItsHost) {
  auto fast = Rank(100, 0), slow = Rank(150, 0);
  std::vector<RankModel> ranks = {{slow.get(), "hostB", 0}, {fast.get(), "hostA", 1}};
  boost::json::object doc = boost::json::parse(TraceAnalysisJson(ranks, {})).as_object();
  int rows = 0;
  std::function<void(const boost::json::value&)> walk = [&](const boost::json::value& v) {
    if (v.is_array()) {
      for (const auto& x : v.as_array()) walk(x);
    } else if (v.is_object()) {
      const auto& o = v.as_object();
      if (o.contains("rank")) {
        ++rows;
        ASSERT_TRUE(o.contains("host")) << boost::json::serialize(o);
        EXPECT_TRUE(o.at("host") == "hostA" || o.at("host") == "hostB") << boost::json::serialize(o);
      }
      for (const auto& [k, x] : o) walk(x);
    }
  };
  for (const auto& [section, v] : doc) walk(v);
  EXPECT_GT(rows, 20);
  // The GPU span: 10 µs to the last kernel's end, 100 + 40 or 150 + 40.
  std::map<std::string, double> span;
  for (const auto& r : doc.at("temporal_breakdown").at("rows").as_array()) {
    span[std::string(r.at("host").as_string())] = r.at("kernel_time_us").to_number<double>();
  }
  EXPECT_EQ(span["hostA"], 130.0);
  EXPECT_EQ(span["hostB"], 180.0);
  for (const auto& r : doc.at("stragglers").at("rows").as_array()) {
    EXPECT_EQ(r.at("straggler").as_bool(), r.at("host") == "hostB");
  }
  int roofline_rows = 0;
  for (const auto& r : doc.at("op_roofline").at("rows").as_array()) {
    EXPECT_EQ(r.at("rank").to_number<int>(), 0);
    ++roofline_rows;
  }
  EXPECT_EQ(roofline_rows, 2);  // one aten::mm row per host
}

}  // namespace
}  // namespace tbprof::trace_analysis
