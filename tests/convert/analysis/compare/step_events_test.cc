// HTA's trace diff (facebookresearch/HolisticTraceAnalysis,
// tests/test_trace_diff.py) on the trace pair of its tests, copied to
// tests/realdata/kineto_hta/trace_compare: the CPU events of iteration 1010,
// compared by name. Expected values are the ones that test states:
//   base summary (test_get_ops_summary): ProfilerStep#1010 1 × 122149 us,
//     aten::as_strided 1 × 0, aten::empty 1 × 0, cudaEventQuery 1 × 4,
//     cudaLaunchKernel 1 × 4, nccl:all_reduce 1 × 67; six CPU events;
//   ops_diff: added AddmmBackward0, All2All_Pooled_Req, CatBackward0; deleted
//     nccl:all_reduce; unchanged the five others;
//   counts_change_categories (cpu): '=' 5, '+' 3, '-' 1.
// The added ops' durations (HTA's test names them only) are read by hand from
// test.json.gz: All2All_Pooled_Req 311 us, AddmmBackward0 207, CatBackward0 11.
#include "convert/analysis/compare/step_events.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "convert/analysis/compare/regression_check.h"
#include "convert/analysis/compare/run_comparison.h"
#include "convert/load/profile_file.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
const fs::path kPair = fs::path(TBPROF_TESTDATA) / "kineto_hta/trace_compare";

std::unique_ptr<XSpaceModel> Load(const char* file) {
  auto m = LoadProfileFile((kPair / file).string());
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : std::make_unique<XSpaceModel>();
}

std::shared_ptr<const StepEventRows> StepRows(const XSpaceModel& m, int64_t step) {
  auto rows = HostEventsOfStep({&m}, step);
  EXPECT_TRUE(rows.ok()) << rows.status().message();
  return std::make_shared<const StepEventRows>(StepEventRows{step, rows.ok() ? *rows : std::vector<OpDeltaRow>{}});
}

TEST(StepEvents, HtaIterationSummaryOfTheBaseTrace) {
  auto base = Load("base.json.gz");
  auto rows = HostEventsOfStep({base.get()}, 1010);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  std::map<std::string, std::pair<double, double>> got;
  double events = 0;
  for (const OpDeltaRow& r : *rows) {
    got[r.name] = {*r.occurrences_a, *r.time_us_a};
    events += *r.occurrences_a;
    EXPECT_FALSE(r.self_time_us_a.has_value()) << r.name;  // not computed: unknown, not 0
  }
  const std::map<std::string, std::pair<double, double>> hta = {
      {"ProfilerStep#1010", {1, 122149}}, {"aten::as_strided", {1, 0}},   {"aten::empty", {1, 0}},
      {"cudaEventQuery", {1, 4}},         {"cudaLaunchKernel", {1, 4}},   {"nccl:all_reduce", {1, 67}}};
  EXPECT_EQ(got, hta);
  EXPECT_EQ(events, 6);  // test_num_cpu_events
}

TEST(StepEvents, HtaOpsDiffOfIteration1010) {
  auto base = Load("base.json.gz");
  auto test = Load("test.json.gz");
  RunFigures a, b;
  a.step_events = StepRows(*base, 1010);
  b.step_events = StepRows(*test, 1010);
  RunComparison c = CompareRuns(a, b, StepAlignment::kAverage);
  EXPECT_EQ(c.step_a, 1010);
  EXPECT_EQ(c.step_b, 1010);
  std::set<std::string> added, removed, unchanged;
  std::map<char, int> counts_change;  // HTA's counts_change_categories
  for (const OpDeltaRow& r : c.step_events) {
    if (r.presence == RowPresence::kAdded) added.insert(r.name);
    if (r.presence == RowPresence::kRemoved) removed.insert(r.name);
    if (r.presence == RowPresence::kBoth && r.Delta() == 0.0) unchanged.insert(r.name);
    double diff = r.occurrences_b.value_or(0) - r.occurrences_a.value_or(0);
    ++counts_change[diff > 0 ? '+' : diff < 0 ? '-' : '='];
  }
  EXPECT_EQ(added, (std::set<std::string>{"AddmmBackward0", "All2All_Pooled_Req", "CatBackward0"}));
  EXPECT_EQ(removed, (std::set<std::string>{"nccl:all_reduce"}));
  EXPECT_EQ(unchanged, (std::set<std::string>{"ProfilerStep#1010", "aten::as_strided", "aten::empty", "cudaEventQuery",
                                              "cudaLaunchKernel"}));
  EXPECT_EQ(counts_change, (std::map<char, int>{{'=', 5}, {'+', 3}, {'-', 1}}));
  std::map<std::string, double> delta;
  for (const OpDeltaRow& r : c.step_events) delta[r.name] = *r.Delta();
  EXPECT_EQ(delta["All2All_Pooled_Req"], 311);
  EXPECT_EQ(delta["AddmmBackward0"], 207);
  EXPECT_EQ(delta["CatBackward0"], 11);
  EXPECT_EQ(delta["nccl:all_reduce"], -67);
  // Largest |delta| first.
  ASSERT_GE(c.step_events.size(), 2u);
  EXPECT_EQ(c.step_events[0].name, "All2All_Pooled_Req");
  // --fail-if on a host event of the step.
  auto crossed = ParseRegressionCheck("event:AddmmBackward0>+100us");
  ASSERT_TRUE(crossed.ok()) << crossed.status().message();
  EXPECT_EQ(EvaluateRegressionCheck(*crossed, c).result, CheckOutcome::Result::kCrossed);
  auto gone = ParseRegressionCheck("event:nccl:all_reduce<-60us");
  ASSERT_TRUE(gone.ok()) << gone.status().message();
  EXPECT_EQ(EvaluateRegressionCheck(*gone, c).result, CheckOutcome::Result::kCrossed);
}

// The step's span decides: step 1009 of the base trace holds, by hand count
// of base.json.gz, ProfilerStep#1009 (100298 us), aten::empty (2), the first
// cudaEventQuery (10), the first cudaLaunchKernel (4), the first
// nccl:all_reduce (66) and aten::as_strided (0); aten::zeros before it and
// aten::zero_ after 1010 are in neither step.
TEST(StepEvents, EventsBelongToTheStepTheyBeginIn) {
  auto base = Load("base.json.gz");
  auto rows = HostEventsOfStep({base.get()}, 1009);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  std::map<std::string, double> time;
  for (const OpDeltaRow& r : *rows) time[r.name] = *r.time_us_a;
  const std::map<std::string, double> by_hand = {{"ProfilerStep#1009", 100298}, {"aten::empty", 2},
                                                 {"cudaEventQuery", 10},       {"cudaLaunchKernel", 4},
                                                 {"nccl:all_reduce", 66},      {"aten::as_strided", 0}};
  EXPECT_EQ(time, by_hand);
}

TEST(StepEvents, AMissingStepNamesTheStepsTheRunHas) {
  auto base = Load("base.json.gz");
  auto rows = HostEventsOfStep({base.get()}, 7);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(rows.status().message().find("no step 7"), std::string::npos) << rows.status().message();
  EXPECT_NE(rows.status().message().find("1009, 1010"), std::string::npos) << rows.status().message();
}

}  // namespace
}  // namespace tbprof
