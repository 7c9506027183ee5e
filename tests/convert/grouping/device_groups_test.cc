// The device side of grouping on planes built by hand; every expected group
// below is worked out from the rules in device_groups.h.
#include "convert/grouping/device_groups.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "convert/model/schema.h"
#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

using ops_test::ToModel;
using tensorflow::profiler::XSpace;

const LineModel& LineNamed(const XSpaceModel& m, const XPlaneModel& p, std::string_view name) {
  for (const LineModel& l : p.lines) {
    if (m.Str(l.name) == name) return l;
  }
  ADD_FAILURE() << "no line " << name;
  return p.lines.front();
}

// The index of the event of `line` that begins at `begin_ps`.
uint32_t EventAt(const XPlaneModel& p, const LineModel& line, int64_t begin_ps) {
  for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
    if (p.events[e].begin_ps == begin_ps) return e;
  }
  ADD_FAILURE() << "no event at " << begin_ps;
  return line.first_event;
}

// A GPU plane of two streams ("stream 1", "stream 2") and a derived "XLA Ops"
// line, each holding (begin, duration) events in the order given.
using Spans = std::vector<std::pair<int64_t, int64_t>>;
std::unique_ptr<XSpaceModel> TwoStreams(const Spans& one, const Spans& two, const Spans& derived = {}) {
  XSpace space;
  XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 1);
  const std::pair<int64_t, const char*> lines[] = {
      {1, "stream 1"}, {2, "stream 2"}, {schema::kThreadIdDerivedMin, "XLA Ops"}};
  const Spans* spans[] = {&one, &two, &derived};
  for (int i = 0; i < 3; ++i) {
    XLineBuilder line = gpu.AddLine(lines[i].first, lines[i].second);
    for (auto [begin, duration] : *spans[i]) line.AddEvent("k" + std::to_string(begin), begin, duration);
  }
  return ToModel(space);
}

TEST(InheritGroupsOnDevice, UngroupedEventsTakeTheLatestEarlierGroupAcrossLines) {
  // Stream 2 is written out of time order.
  auto m = TwoStreams({{0, 5}, {20, 5}, {30, 5}}, {{50, 5}, {10, 5}, {40, 5}}, {{25, 5}});
  const XPlaneModel& p = m->planes[0];
  const LineModel &la = LineNamed(*m, p, "stream 1"), &lb = LineNamed(*m, p, "stream 2"),
                  &ld = LineNamed(*m, p, "XLA Ops");
  std::vector<int32_t> g(p.events.size(), kNoGroup);
  g[EventAt(p, la, 20)] = 5;
  g[EventAt(p, lb, 40)] = 7;

  InheritGroupsOnDevice(p, g);

  // In time order: a0 -, b10 -, a20 5, a30 ←5, b40 7, b50 ←7.
  EXPECT_EQ(g[EventAt(p, la, 0)], kNoGroup);  // nothing earlier has a group
  EXPECT_EQ(g[EventAt(p, lb, 10)], kNoGroup);
  EXPECT_EQ(g[EventAt(p, la, 20)], 5);
  EXPECT_EQ(g[EventAt(p, la, 30)], 5);
  EXPECT_EQ(g[EventAt(p, lb, 40)], 7);
  EXPECT_EQ(g[EventAt(p, lb, 50)], 7);
  EXPECT_EQ(g[EventAt(p, ld, 25)], kNoGroup);  // derived lines are not grouped
}

// xla walks the plane in Timespan order: begin ascending, then longer first.
// Two kernels that begin together on two streams: the longer comes first
// whichever stream it is on, so it cannot take the shorter one's group.
TEST(InheritGroupsOnDevice, ABeginTieGoesToTheLongerEvent) {
  auto m = TwoStreams({{0, 50}, {100, 5}, {200, 5}}, {{100, 30}, {200, 5}});
  const XPlaneModel& p = m->planes[0];
  const LineModel &la = LineNamed(*m, p, "stream 1"), &lb = LineNamed(*m, p, "stream 2");
  std::vector<int32_t> g(p.events.size(), kNoGroup);
  g[EventAt(p, la, 0)] = 3;
  g[EventAt(p, la, 100)] = 4;
  g[EventAt(p, lb, 200)] = 6;

  InheritGroupsOnDevice(p, g);

  // In time order: a0 3, b100 (30 long) ←3, a100 4, then at 200 the two
  // equal events in line order: a200 ←4, b200 6.
  EXPECT_EQ(g[EventAt(p, lb, 100)], 3);
  EXPECT_EQ(g[EventAt(p, la, 100)], 4);
  EXPECT_EQ(g[EventAt(p, la, 200)], 4);
  EXPECT_EQ(g[EventAt(p, lb, 200)], 6);
}

struct TpuPlane {
  XSpace space;
  std::unique_ptr<XSpaceModel> model;
  const XPlaneModel* plane = nullptr;
  const LineModel* steps = nullptr;
  const LineModel* ops = nullptr;
};

// Steps at [0,100] [100,200] [200,300] [300,400]; ops at 50, 200, 250, 350
// and 390, each 10 long.
TpuPlane MakeTpuPlane() {
  TpuPlane t;
  XPlaneBuilder tpu = AddPlane(t.space, "/device:TPU:0", 1);
  XLineBuilder steps = tpu.AddLine(1, "Steps");
  for (int64_t begin : {0, 100, 200, 300}) steps.AddEvent("step", begin, 100);
  XLineBuilder ops = tpu.AddLine(2, "XLA Ops");
  for (int64_t begin : {50, 200, 250, 350, 390}) ops.AddEvent("fusion", begin, 10);
  t.model = ToModel(t.space);
  t.plane = &t.model->planes[0];
  t.steps = &LineNamed(*t.model, *t.plane, "Steps");
  t.ops = &LineNamed(*t.model, *t.plane, "XLA Ops");
  return t;
}

TEST(GroupTpuPlane, StepsOfOneGroupMergeAndOpsTakeTheStepTheyOverlap) {
  TpuPlane t = MakeTpuPlane();
  const XPlaneModel& p = *t.plane;
  std::vector<int32_t> g(p.events.size(), kNoGroup);
  const uint32_t s0 = EventAt(p, *t.steps, 0), s1 = EventAt(p, *t.steps, 100), s2 = EventAt(p, *t.steps, 200),
                 s3 = EventAt(p, *t.steps, 300);
  g[s0] = 1;
  g[s1] = 1;
  g[s3] = 2;
  g[EventAt(p, *t.ops, 390)] = 9;  // already grouped: kept
  std::vector<EventGroups::TpuStep> steps;

  GroupTpuPlane(p, t.steps, {s0, s1, s2, s3}, g, steps);

  ASSERT_EQ(steps.size(), 2u);  // s0+s1 merged; s2 ungrouped, dropped
  EXPECT_EQ(steps[0].group, 1);
  EXPECT_EQ(steps[0].events, (std::vector<uint32_t>{s0, s1}));
  EXPECT_EQ(steps[1].group, 2);
  EXPECT_EQ(steps[1].events, (std::vector<uint32_t>{s3}));
  EXPECT_EQ(g[EventAt(p, *t.ops, 50)], 1);
  EXPECT_EQ(g[EventAt(p, *t.ops, 200)], 1);         // touches the merged step's end: both ends count
  EXPECT_EQ(g[EventAt(p, *t.ops, 250)], kNoGroup);  // inside the dropped step only
  EXPECT_EQ(g[EventAt(p, *t.ops, 350)], 2);
  EXPECT_EQ(g[EventAt(p, *t.ops, 390)], 9);
}

TEST(GroupTpuPlane, WithNoGroupedStepEveryStepIsKeptAndNothingIsGrouped) {
  TpuPlane t = MakeTpuPlane();
  const XPlaneModel& p = *t.plane;
  std::vector<int32_t> g(p.events.size(), kNoGroup);
  std::vector<uint32_t> order = {EventAt(p, *t.steps, 0), EventAt(p, *t.steps, 100), EventAt(p, *t.steps, 200),
                                 EventAt(p, *t.steps, 300)};
  std::vector<EventGroups::TpuStep> steps;

  GroupTpuPlane(p, t.steps, order, g, steps);

  ASSERT_EQ(steps.size(), 4u);
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].group, kNoGroup);
    EXPECT_EQ(steps[i].events, (std::vector<uint32_t>{order[i]}));
  }
  for (int32_t v : g) EXPECT_EQ(v, kNoGroup);
}

TEST(GroupTpuPlane, WithoutAStepLineTheGroupingEventsHoldTheOthers) {
  TpuPlane t = MakeTpuPlane();
  const XPlaneModel& p = *t.plane;
  std::vector<int32_t> g(p.events.size(), kNoGroup);
  // The "Steps" line's events stand in for modules here: no step line given.
  const uint32_t m0 = EventAt(p, *t.steps, 0), m2 = EventAt(p, *t.steps, 200);
  g[m0] = 3;
  g[m2] = 4;
  std::vector<EventGroups::TpuStep> steps;

  GroupTpuPlane(p, nullptr, {m0, m2}, g, steps);

  EXPECT_TRUE(steps.empty());
  EXPECT_EQ(g[EventAt(p, *t.ops, 50)], 3);
  EXPECT_EQ(g[EventAt(p, *t.ops, 200)], 4);  // begins with the second module
  EXPECT_EQ(g[EventAt(p, *t.ops, 250)], 4);
  EXPECT_EQ(g[EventAt(p, *t.ops, 350)], kNoGroup);
  // Unheld events of the module line itself take a holder too.
  EXPECT_EQ(g[EventAt(p, *t.steps, 100)], 3);
}

}  // namespace
}  // namespace tbprof
