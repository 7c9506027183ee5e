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
// are aligned by time, not by number (counted by hand below).
#include <gtest/gtest.h>

#include <memory>

#include "convert/analysis/op_stats/op_stats_combiner.h"
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

// Host a numbers its steps 1..4 over 0-400 µs, host b 101..103 over 100-400 µs
// (it started profiling a step later): the common steps are a's 2..4 and all
// of b's, matched by time; each keeps its host's timing, numbered as on the
// chief (b, whose steps span less time).
TEST(StepIntersectionCombine, HostsWithDifferentStepNumbersAlignByTime) {
  constexpr int64_t kUs = 1000000;
  auto host = [&](const char* name, int64_t first_num, int64_t first_begin_us, int n) {
    auto s = std::make_shared<OpStats>();
    HostSteps hs;
    hs.hostname = name;
    for (int i = 0; i < n; ++i) {
      StepInfo st;
      st.step_num = first_num + i;
      st.begin_ps = (first_begin_us + 100 * i) * kUs;
      st.duration_ps = 100 * kUs;
      hs.steps.push_back(st);
    }
    s->steps.push_back(hs);
    return std::shared_ptr<const OpStats>(s);
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

}  // namespace
}  // namespace tbprof
