// xprof's StepIntersection scenarios (openxla/xprof xprof/utils/step_intersection_test.cc),
// rebuilt on our step spans and checked against the values xprof's test asserts.
//
// Ported scenarios (test — status — result):
//   EachHostShiftedBy1StepDuration   ported            pass (7 steps, host 0 starts at its step 3)
//   ExactlyNoShift                   ported            pass (10 steps, all start at 0)
//   EachHostShiftedByJustABit        ported            pass
//   SingleHost                       ported            pass
//   WithMaxSteps                     ported            pass (3 kept, 7 dropped)
//   NoStep                           ported            pass (0 steps, not an empty intersection)
//   EmptyIntersection                ported            pass
//   UnequalStepCounts                ported            pass (5)
//   OneHostEmpty                     ported            pass (0, not an empty intersection)
//   VaryingStepDurations             ported            pass (> 0)
//   GapsBetweenSteps                 ported            pass (5)
//   EmptyPerHostStepDb               ported            pass
//   StepWithStepsButNoCores          ported            pass (1 step with an empty span)
//   DebugString, BM_StepIntersection left out: debug text and a benchmark, no figures
// And through CombineOpStats (ALL_HOSTS): two hosts whose step numbers differ
// are aligned by time, not by number (counted by hand below); OpStatsFold,
// hosts added one at a time, each gone once added, combines as CombineOpStats
// combines them all at once, on a run whose hosts' steps differ.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "convert/analysis/op_stats/op_stats_combiner.h"
#include "convert/analysis/op_stats/op_stats_serial.h"
#include "convert/analysis/op_stats/step_intersection.h"

namespace tbprof {
namespace {

constexpr uint64_t kStepPs = 2000000000;
constexpr uint32_t kStepsPerHost = 10;

// xprof's CreateStepDatabaseResultForHost: `n` steps from `first_begin`, the
// last step of host 0 1 ps shorter so that host 0 is the chief.
std::vector<StepSpan> HostSteps_(uint32_t host, uint32_t n, uint64_t first_begin, uint64_t gap = 0) {
  std::vector<StepSpan> out;
  uint64_t begin = first_begin;
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t duration = host == 0 && i == n - 1 ? kStepPs - 1 : kStepPs;
    out.push_back({begin, begin + duration});
    begin += kStepPs + gap;
  }
  return out;
}

std::vector<std::vector<StepSpan>> Shifted(uint32_t hosts, uint32_t n, uint64_t shift) {
  std::vector<std::vector<StepSpan>> out;
  for (uint32_t h = 0; h < hosts; ++h) out.push_back(HostSteps_(h, n, h * shift));
  return out;
}

TEST(XprofScenarioStepIntersection, EachHostShiftedBy1StepDuration) {
  StepIntersection s(kStepsPerHost, Shifted(4, kStepsPerHost, kStepPs));
  EXPECT_EQ(s.StepsDropped(), 0u);
  EXPECT_EQ(s.NumSteps(), kStepsPerHost - 4 + 1);
  EXPECT_EQ(s.FirstStepIndex(0), 3u);
}

TEST(XprofScenarioStepIntersection, ExactlyNoShift) {
  StepIntersection s(kStepsPerHost, Shifted(4, kStepsPerHost, 0));
  EXPECT_EQ(s.StepsDropped(), 0u);
  EXPECT_EQ(s.NumSteps(), kStepsPerHost);
  for (size_t h = 0; h < 4; ++h) EXPECT_EQ(s.FirstStepIndex(h), 0u);
}

TEST(XprofScenarioStepIntersection, EachHostShiftedByJustABit) {
  StepIntersection s(kStepsPerHost, Shifted(4, kStepsPerHost, 100));
  EXPECT_EQ(s.StepsDropped(), 0u);
  EXPECT_EQ(s.NumSteps(), kStepsPerHost);
  for (size_t h = 0; h < 4; ++h) EXPECT_EQ(s.FirstStepIndex(h), 0u);
}

TEST(XprofScenarioStepIntersection, SingleHost) {
  StepIntersection s(kStepsPerHost, Shifted(1, kStepsPerHost, 0));
  EXPECT_EQ(s.StepsDropped(), 0u);
  EXPECT_EQ(s.NumSteps(), kStepsPerHost);
  EXPECT_EQ(s.FirstStepIndex(0), 0u);
}

TEST(XprofScenarioStepIntersection, WithMaxSteps) {
  StepIntersection s(3, Shifted(4, kStepsPerHost, 0));
  EXPECT_EQ(s.StepsDropped(), kStepsPerHost - 3);
  EXPECT_EQ(s.NumSteps(), 3u);
}

TEST(XprofScenarioStepIntersection, NoStep) {
  StepIntersection s(100, std::vector<std::vector<StepSpan>>(4));
  EXPECT_EQ(s.NumSteps(), 0u);
  EXPECT_FALSE(s.EmptyIntersect());
}

TEST(XprofScenarioStepIntersection, EmptyIntersection) {
  std::vector<std::vector<StepSpan>> hosts = {HostSteps_(0, 10, 0), HostSteps_(1, 5, 8 * kStepPs),
                                              HostSteps_(2, 10, 11 * kStepPs)};
  StepIntersection s(100, hosts);
  EXPECT_EQ(s.StepsDropped(), 0u);
  EXPECT_EQ(s.NumSteps(), 0u);
  EXPECT_TRUE(s.EmptyIntersect());
}

TEST(XprofScenarioStepIntersection, UnequalStepCounts) {
  StepIntersection s(kStepsPerHost, {HostSteps_(0, 5, 0), HostSteps_(1, 10, 0)});
  EXPECT_EQ(s.StepsDropped(), 0u);
  EXPECT_EQ(s.NumSteps(), 5u);
}

TEST(XprofScenarioStepIntersection, OneHostEmpty) {
  StepIntersection s(kStepsPerHost, {HostSteps_(0, 5, 0), {}});
  EXPECT_EQ(s.NumSteps(), 0u);
  EXPECT_FALSE(s.EmptyIntersect());
}

TEST(XprofScenarioStepIntersection, VaryingStepDurations) {
  std::vector<StepSpan> long_steps;
  for (uint64_t i = 0; i < 5; ++i) long_steps.push_back({i * 2 * kStepPs, (i + 1) * 2 * kStepPs});
  StepIntersection s(kStepsPerHost, {long_steps, HostSteps_(1, 10, 0)});
  EXPECT_GT(s.NumSteps(), 0u);
}

TEST(XprofScenarioStepIntersection, GapsBetweenSteps) {
  StepIntersection s(kStepsPerHost, {HostSteps_(0, 5, 0, kStepPs), HostSteps_(1, 5, 0, kStepPs)});
  EXPECT_EQ(s.StepsDropped(), 0u);
  EXPECT_EQ(s.NumSteps(), 5u);
}

TEST(XprofScenarioStepIntersection, EmptyPerHostStepDb) {
  StepIntersection s(10, {});
  EXPECT_EQ(s.NumSteps(), 0u);
  EXPECT_EQ(s.StepsDropped(), 0u);
  EXPECT_FALSE(s.EmptyIntersect());
}

TEST(XprofScenarioStepIntersection, StepWithStepsButNoCores) {
  StepIntersection s(10, {{StepSpan{}}});
  EXPECT_EQ(s.NumSteps(), 1u);
  EXPECT_EQ(s.StepsDropped(), 0u);
}

constexpr int64_t kUs = 1000000;

OpMetrics Op(const std::string& name, uint64_t occurrences, uint64_t time_ps, uint64_t self_ps, uint64_t min_ps) {
  OpMetrics m;
  m.name = name;
  m.category = "MatMul";
  m.occurrences = occurrences, m.time_ps = time_ps, m.self_time_ps = self_ps, m.min_time_ps = min_ps;
  return m;
}

void AddKernel(OpStats& s, uint32_t block, uint64_t total_ns, uint64_t min_ns, uint64_t max_ns, uint32_t times) {
  auto* r = s.kernel_stats_db.add_reports();
  r->set_name("volta_sgemm_128x64_nn");
  r->set_op_name("dense/MatMul");
  r->add_block_dim(block), r->add_grid_dim(4);
  r->set_total_duration_ns(total_ns), r->set_min_duration_ns(min_ns), r->set_max_duration_ns(max_ns);
  r->set_occurrences(times);
}

// `n` steps of 100 µs numbered from `first_num`, the first at `first_begin_us`.
OpStats HostWithSteps(const std::string& name, const std::string& hardware, int64_t first_num, int64_t first_begin_us,
                      int n) {
  OpStats s;
  s.run_environment.hostnames = {name};
  s.run_environment.hardware_type = hardware;
  HostSteps hs;
  hs.hostname = name;
  for (int i = 0; i < n; ++i) {
    StepInfo st;
    st.step_num = first_num + i;
    st.begin_ps = (first_begin_us + 100 * i) * kUs;
    st.duration_ps = 100 * kUs;
    st.type_ps[DEVICE_COMPUTE_32] = static_cast<uint64_t>(10 + i);
    hs.steps.push_back(st);
  }
  s.steps.push_back(hs);
  return s;
}

// Host a: steps 1..4 over 0-400 µs; b: 101..103 over 100-400 µs; c: 201..203
// over 200-500 µs; a coordinator (no devices) with steps far later. b and c
// span the least time, b first: the chief. Common to a, b and c are 200-400
// µs: a's steps 3 and 4, b's 102 and 103, c's 201 and 202, each numbered as
// b's. The coordinator's steps are left out (the run has GPUs).
std::vector<OpStats> FourHosts() {
  std::vector<OpStats> hosts;
  hosts.push_back(HostWithSteps("a", "GPU", 1, 0, 4));
  hosts.push_back(HostWithSteps("b", "GPU", 101, 100, 3));
  hosts.push_back(HostWithSteps("c", "GPU", 201, 200, 3));
  hosts.push_back(HostWithSteps("coordinator", "CPU_ONLY", 1, 5000, 2));
  hosts[0].host_op_metrics_db.ops["MatMul"] = Op("MatMul", 2, 10, 8, 3);
  hosts[1].host_op_metrics_db.ops["MatMul"] = Op("MatMul", 1, 5, 5, 5);
  hosts[2].host_op_metrics_db.ops["Conv2D"] = Op("Conv2D", 7, 70, 60, 9);
  for (OpStats& h : hosts) h.host_op_metrics_db.total_time_ps = 1000;
  AddKernel(hosts[0], 128, 100, 10, 40, 4);
  AddKernel(hosts[1], 256, 70, 70, 70, 1);  // other launch dims: a row of its own
  AddKernel(hosts[2], 128, 50, 5, 30, 2);
  return hosts;
}

// Host a numbers its steps 1..4 over 0-400 µs, host b 101..103 over 100-400 µs
// (it started profiling a step later): the common steps are a's 2..4 and all
// of b's, matched by time; each keeps its host's timing, numbered as on the
// chief (b, whose steps span less time).
TEST(StepIntersectionCombine, HostsWithDifferentStepNumbersAlignByTime) {
  auto host = [](const char* name, int64_t first_num, int64_t first_begin_us, int n) {
    return std::make_shared<const OpStats>(HostWithSteps(name, "CPU_ONLY", first_num, first_begin_us, n));
  };
  OpStats c = CombineOpStats({host("a", 1, 0, 4), host("b", 101, 100, 3)});
  ASSERT_EQ(c.steps.size(), 2u);
  ASSERT_EQ(c.steps[0].steps.size(), 3u);
  ASSERT_EQ(c.steps[1].steps.size(), 3u);
  EXPECT_EQ(c.steps[0].steps[0].begin_ps, 100 * kUs);  // a's second step
  EXPECT_EQ(c.steps[1].steps[0].begin_ps, 100 * kUs);  // b's first
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(c.steps[0].steps[i].step_num, 101 + i);
    EXPECT_EQ(c.steps[1].steps[i].step_num, 101 + i);
  }
}

TEST(OpStatsFold, HostsAddedOneAtATimeAndDroppedCombineAsAllAtOnce) {
  std::vector<std::shared_ptr<const OpStats>> all;
  for (OpStats& h : FourHosts()) all.push_back(std::make_shared<const OpStats>(std::move(h)));
  OpStatsFold fold;
  {
    std::vector<OpStats> hosts = FourHosts();
    for (OpStats& h : hosts) {
      fold.Add(std::move(h));
      h = OpStats{};  // what a caller that drops each host leaves behind
    }
  }
  const OpStats folded = std::move(fold).Finish();

  ASSERT_EQ(folded.steps.size(), 3u);
  const char* names[] = {"a", "b", "c"};
  const int64_t first_begin_us[] = {200, 200, 200};
  const uint64_t first_compute[] = {12, 11, 10};  // a's third step, b's second, c's first
  for (size_t h = 0; h < 3; ++h) {
    SCOPED_TRACE(names[h]);
    EXPECT_EQ(folded.steps[h].hostname, names[h]);
    ASSERT_EQ(folded.steps[h].steps.size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
      const StepInfo& st = folded.steps[h].steps[k];
      EXPECT_EQ(st.step_num, static_cast<int64_t>(102 + k));
      EXPECT_EQ(st.begin_ps, (first_begin_us[h] + 100 * static_cast<int64_t>(k)) * kUs);
      EXPECT_EQ(st.type_ps.at(DEVICE_COMPUTE_32), first_compute[h] + k);
    }
  }
  EXPECT_FALSE(folded.empty_step_intersection);
  const OpMetrics& matmul = folded.host_op_metrics_db.ops.at("MatMul");
  EXPECT_EQ(matmul.occurrences, 3u);
  EXPECT_EQ(matmul.time_ps, 15u);
  EXPECT_EQ(matmul.self_time_ps, 13u);
  EXPECT_EQ(matmul.min_time_ps, 3u);
  EXPECT_EQ(folded.host_op_metrics_db.ops.at("Conv2D").occurrences, 7u);
  EXPECT_EQ(folded.host_op_metrics_db.total_time_ps, 4000u);
  EXPECT_EQ(folded.run_environment.host_count, 4);
  EXPECT_EQ(folded.run_environment.hardware_type, "GPU");
  // a's and c's launches of the same kernel are one row (100 + 50 ns), b's its own.
  ASSERT_EQ(folded.kernel_stats_db.reports_size(), 2);
  const auto& merged = folded.kernel_stats_db.reports(0);
  EXPECT_EQ(merged.block_dim(0), 128u);
  EXPECT_EQ(merged.total_duration_ns(), 150u);
  EXPECT_EQ(merged.min_duration_ns(), 5u);
  EXPECT_EQ(merged.max_duration_ns(), 40u);
  EXPECT_EQ(merged.occurrences(), 6u);
  EXPECT_EQ(folded.kernel_stats_db.reports(1).block_dim(0), 256u);

  // Every field, against the hosts combined all at once from shared copies.
  EXPECT_EQ(SerializeOpStats(folded), SerializeOpStats(CombineOpStats(all)));
}

TEST(OpStatsFold, NoHostIsAnEmptyOpStats) {
  EXPECT_EQ(SerializeOpStats(OpStatsFold().Finish()), SerializeOpStats(OpStats{}));
}

}  // namespace
}  // namespace tbprof
