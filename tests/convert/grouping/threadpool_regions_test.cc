// Thread pool regions (threadpool_regions.h) and how grouping uses them.
//
// Ported scenario (xla/tsl/profiler/utils/preprocess_xplane_test.cc):
//   PreprocessXPlane.ThreadPoolPreprocessorTest  ported  pass (one region at 200 ps lasting
//                                                              100 ps, consumer id 123)
// The other cases are worked out by hand from the mutator's rule (a region
// from each StartRegion carrying `_c` to every later StopRegion of the line)
// and from nesting: the work a closure does nests in its region, so it joins
// the group of the event that scheduled the closure.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "convert/grouping/group_events.h"
#include "convert/grouping/threadpool_regions.h"
#include "proto/xspace_builder.h"
#include "tests/testing/grouping_fixtures.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

using grouping_test::GroupSpace;
using ops_test::ToModel;
using tensorflow::profiler::XSpace;

TEST(XprofScenarioPreprocess, ThreadPoolPreprocessorTest) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = plane.AddLine(0, "main");
  main.AddEvent(std::string(kThreadpoolRecordName), 100, 100).Int("_pt", kThreadpoolEventContextType).Int("_p", 123);
  XLineBuilder pool = plane.AddLine(1, "pool");
  pool.AddEvent(std::string(kThreadpoolStartRegionName), 200, 0).Int("_ct", kThreadpoolEventContextType).Int("_c", 123);
  pool.AddEvent(std::string(kThreadpoolStopRegionName), 300, 0).Int("_ct", kThreadpoolEventContextType).Int("_c", 123);
  auto m = ToModel(space);
  ASSERT_TRUE(MayHaveThreadpoolRegions(*m));
  std::vector<ThreadpoolRegion> regions = FindThreadpoolRegions(*m, m->planes[0]);
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].line, 1u);
  EXPECT_EQ(regions[0].begin_ps, 200);
  EXPECT_EQ(regions[0].end_ps - regions[0].begin_ps, 100);
  EXPECT_EQ(regions[0].consumer_id, 123);
}

TEST(ThreadpoolRegions, PairingFollowsTheMutator) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU", 0);
  XLineBuilder pool = plane.AddLine(1, "pool");
  const std::string start(kThreadpoolStartRegionName), stop(kThreadpoolStopRegionName);
  pool.AddEvent(stop, 50, 0);                  // no start yet: nothing
  pool.AddEvent(start, 100, 0);                // no `_c`: not a start
  pool.AddEvent(stop, 150, 0);                 // still nothing open
  pool.AddEvent(start, 200, 0).Int("_c", 7);   // opens
  pool.AddEvent(stop, 260, 0);                 // [200, 260]
  pool.AddEvent(stop, 290, 0);                 // the start is kept: [200, 290]
  pool.AddEvent(start, 400, 0).Int("_c", 8);   // reopens
  pool.AddEvent(stop, 450, 0);                 // [400, 450]
  auto m = ToModel(space);
  std::vector<ThreadpoolRegion> regions = FindThreadpoolRegions(*m, m->planes[0]);
  ASSERT_EQ(regions.size(), 3u);
  EXPECT_EQ(regions[0].begin_ps, 200);
  EXPECT_EQ(regions[0].end_ps, 260);
  EXPECT_EQ(regions[1].begin_ps, 200);
  EXPECT_EQ(regions[1].end_ps, 290);
  EXPECT_EQ(regions[1].consumer_id, 7);
  EXPECT_EQ(regions[2].begin_ps, 400);
  EXPECT_EQ(regions[2].end_ps, 450);
  EXPECT_EQ(regions[2].consumer_id, 8);
}

TEST(ThreadpoolRegions, NoneWithoutBothMarkers) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU", 0);
  plane.AddLine(1, "pool").AddEvent(std::string(kThreadpoolStartRegionName), 200, 0).Int("_c", 1);
  auto m = ToModel(space);
  EXPECT_FALSE(MayHaveThreadpoolRegions(*m));
  EXPECT_TRUE(FindThreadpoolRegions(*m, m->planes[0]).empty());
}

// A step whose op schedules a closure; the pool thread runs it (and, later,
// work of no closure).
XSpace ClosureSpace() {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = plane.AddLine(0, "main");
  main.AddEvent("train", 0, 1000).Int("_r", 1).Int("step_num", 5);
  main.AddEvent("schedule:ParallelMap", 50, 150);
  main.AddEvent(std::string(kThreadpoolRecordName), 100, 0).Int("_pt", kThreadpoolEventContextType).Int("_p", 42);
  XLineBuilder pool = plane.AddLine(1, "pool");
  pool.AddEvent("before:Add", 200, 50);
  pool.AddEvent(std::string(kThreadpoolStartRegionName), 300, 0).Int("_ct", kThreadpoolEventContextType).Int("_c", 42);
  pool.AddEvent("work:MatMul", 310, 90);
  pool.AddEvent("inner:Add", 320, 10);
  pool.AddEvent("async:Send", 330, 10).Int("_a", 1);
  pool.AddEvent(std::string(kThreadpoolStopRegionName), 450, 0).Int("_ct", kThreadpoolEventContextType).Int("_c", 42);
  pool.AddEvent("after:Add", 500, 100);
  return space;
}

TEST(ThreadpoolRegions, ClosureWorkJoinsTheSchedulingStep) {
  const auto g = GroupSpace(ClosureSpace());
  const int32_t step = g.Of("/host:CPU", "train");
  ASSERT_NE(step, kNoGroup);
  EXPECT_EQ(g.Of("/host:CPU", "schedule:ParallelMap"), step);
  // The region holds the work, directly or nested.
  EXPECT_EQ(g.Of("/host:CPU", "work:MatMul"), step);
  EXPECT_EQ(g.Of("/host:CPU", "inner:Add"), step);
  EXPECT_EQ(g.Of("/host:CPU", std::string(kThreadpoolStopRegionName)), step);
  // Outside the region, or async (which nests in nothing): no group.
  EXPECT_EQ(g.Of("/host:CPU", "before:Add"), kNoGroup);
  EXPECT_EQ(g.Of("/host:CPU", "after:Add"), kNoGroup);
  EXPECT_EQ(g.Of("/host:CPU", "async:Send"), kNoGroup);
}

// By hand: two stops after one start make two regions from that start, one
// inside the other; the work of both joins the step, whether it lies in the
// shorter one or only in the longer one.
TEST(ThreadpoolRegions, WorkOfRegionsFromOneStartJoinsTheStep) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = plane.AddLine(0, "main");
  main.AddEvent("train", 0, 1000).Int("_r", 1).Int("step_num", 5);
  main.AddEvent(std::string(kThreadpoolRecordName), 100, 0).Int("_pt", kThreadpoolEventContextType).Int("_p", 42);
  XLineBuilder pool = plane.AddLine(1, "pool");
  pool.AddEvent(std::string(kThreadpoolStartRegionName), 300, 0).Int("_ct", kThreadpoolEventContextType).Int("_c", 42);
  pool.AddEvent("first:Add", 310, 20);
  pool.AddEvent(std::string(kThreadpoolStopRegionName), 350, 0);
  pool.AddEvent("second:Mul", 360, 20);
  pool.AddEvent(std::string(kThreadpoolStopRegionName), 400, 0);
  pool.AddEvent("after:Sub", 450, 20);
  const auto g = GroupSpace(space);
  const int32_t step = g.Of("/host:CPU", "train");
  ASSERT_NE(step, kNoGroup);
  g.ExpectIn("/host:CPU", {"first:Add", "second:Mul"}, step);
  g.ExpectIn("/host:CPU", {"after:Sub"}, kNoGroup);
}

// Without the region the same work stays ungrouped: only the StartRegion
// instant carries the link itself.
TEST(ThreadpoolRegions, WithoutAStopTheWorkStaysUngrouped) {
  XSpace space = ClosureSpace();
  space.mutable_planes(0)->mutable_lines(1)->mutable_events()->RemoveLast();  // after:Add
  space.mutable_planes(0)->mutable_lines(1)->mutable_events()->RemoveLast();  // StopRegion
  const auto g = GroupSpace(space);
  const int32_t step = g.Of("/host:CPU", "train");
  EXPECT_EQ(g.Of("/host:CPU", std::string(kThreadpoolStartRegionName)), step);
  EXPECT_EQ(g.Of("/host:CPU", "work:MatMul"), kNoGroup);
}

// The trace viewer shows each region as xprof's preprocessed file has it: an
// event "ThreadpoolListener::Region" on the pool thread, with the step's group.
TEST(ThreadpoolRegions, TraceShowsTheRegionOnItsThread) {
  const std::string path = ops_test::WriteSpace(ClosureSpace(), "threadpool_regions");
  boost::json::value trace = ops_test::RunXPlaneTool("trace_viewer", path);
  int64_t pool_tid = -1, train_group = -1;
  const boost::json::array& events = trace.at("traceEvents").as_array();
  for (const boost::json::value& v : events) {
    const boost::json::object& e = v.as_object();
    if (e.at("ph") == "M" && e.at("name") == "thread_name" && e.at("args").at("name") == "pool") {
      pool_tid = e.at("tid").to_number<int64_t>();
    }
    // The trace names a step root by its step ("train 5").
    if (e.at("ph") == "X" && e.at("name") == "train 5") train_group = e.at("args").at("group_id").to_number<int64_t>();
  }
  ASSERT_EQ(pool_tid, 1);
  ASSERT_GE(train_group, 0);
  int regions = 0;
  for (const boost::json::value& v : events) {
    const boost::json::object& e = v.as_object();
    if (e.at("ph") != "X" || e.at("name") != "ThreadpoolListener::Region") continue;
    ++regions;
    EXPECT_EQ(e.at("tid").to_number<int64_t>(), pool_tid);
    EXPECT_EQ(e.at("args").at("group_id").to_number<int64_t>(), train_group);
    EXPECT_DOUBLE_EQ(e.at("ts").to_number<double>(), 0.0003);  // µs: 300 ps
    EXPECT_DOUBLE_EQ(e.at("dur").to_number<double>(), 0.00015);
  }
  EXPECT_EQ(regions, 1);
}

}  // namespace
}  // namespace tbprof
