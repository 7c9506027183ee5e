// Which planes grouping takes and which links it makes between them, by hand
// from xprof's grouping: every plane of the space takes part (the process's
// own host plane, its sub-processes' "/host:CPU [<pid>]" planes, custom
// planes), and a producer/consumer link joins only events of one process. An
// event's process is its plane's `process_id` stat, or, for a consumer, its
// own `_pid` stat; events with neither link only to each other.
#include <gtest/gtest.h>

#include <string_view>

#include "convert/grouping/group_events.h"
#include "proto/xspace_builder.h"
#include "tests/testing/grouping_fixtures.h"

namespace tbprof {
namespace {

using grouping_test::GroupSpace;
using tensorflow::profiler::XSpace;

constexpr int64_t kGeneric = 0;  // tsl's ContextType::kGeneric

// A step on the host whose op hands work (context 7) to a sub-process, which
// runs it under "serve" with a nested op. Process ids as given (< 0: none);
// `consumer_pid` >= 0 puts a `_pid` stat on the consumer.
XSpace TwoProcessSpace(int64_t host_pid, int64_t sub_pid, int64_t consumer_pid) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  if (host_pid >= 0) host.Int("process_id", host_pid);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("train", 0, 1000).Int("_r", 1).Int("step_num", 3);
  main.AddEvent("send:Send", 100, 100).Int("_pt", kGeneric).Int("_p", 7);
  XPlaneBuilder sub = AddPlane(space, "/host:CPU [200]", 1);
  if (sub_pid >= 0) sub.Int("process_id", sub_pid);
  XLineBuilder worker = sub.AddLine(5, "worker");
  XEventBuilder serve = worker.AddEvent("serve", 300, 200);
  serve.Int("_ct", kGeneric).Int("_c", 7);
  if (consumer_pid >= 0) serve.Int("_pid", consumer_pid);
  worker.AddEvent("compute:MatMul", 320, 100);
  worker.AddEvent("idle", 600, 50);
  return space;
}

TEST(GroupEventsProcesses, SubProcessWorkJoinsTheStepThatHandedItOver) {
  const auto g = GroupSpace(TwoProcessSpace(-1, -1, -1));
  const int32_t step = g.Of("/host:CPU", "train");
  ASSERT_NE(step, kNoGroup);
  g.ExpectIn("/host:CPU [200]", {"serve", "compute:MatMul"}, step);
  g.ExpectIn("/host:CPU [200]", {"idle"}, kNoGroup);
}

TEST(GroupEventsProcesses, LinksStayInsideAProcess) {
  // Each plane its own process: the link does not cross.
  const auto g = GroupSpace(TwoProcessSpace(100, 200, -1));
  EXPECT_NE(g.Of("/host:CPU", "train"), kNoGroup);
  EXPECT_EQ(g.Of("/host:CPU [200]", "serve"), kNoGroup);
  EXPECT_EQ(g.Of("/host:CPU [200]", "compute:MatMul"), kNoGroup);
  // One plane with a process, the other without: no link either.
  const auto hg = GroupSpace(TwoProcessSpace(100, -1, -1));
  EXPECT_EQ(hg.Of("/host:CPU [200]", "serve"), kNoGroup);
}

TEST(GroupEventsProcesses, AConsumerNamesTheProcessItServes) {
  const auto g = GroupSpace(TwoProcessSpace(100, 200, /*consumer_pid=*/100));
  const int32_t step = g.Of("/host:CPU", "train");
  EXPECT_EQ(g.Of("/host:CPU [200]", "serve"), step);
  EXPECT_EQ(g.Of("/host:CPU [200]", "compute:MatMul"), step);
}

// Roots on any plane start groups: a sub-process's own step groups its work,
// and roots are numbered by level, then by time, across planes.
TEST(GroupEventsProcesses, SubProcessRootsStartGroups) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  host.AddLine(0, "main").AddEvent("train", 500, 100).Int("_r", 1).Int("step_num", 1);
  XPlaneBuilder sub = AddPlane(space, "/host:CPU [9]", 1);
  XLineBuilder worker = sub.AddLine(1, "worker");
  worker.AddEvent("eval", 0, 200).Int("_r", 1).Int("step_num", 4);
  worker.AddEvent("op:Add", 10, 20);
  XPlaneBuilder custom = AddPlane(space, "/device:CUSTOM:Events", 2);
  custom.AddLine(0, "events").AddEvent("marker", 700, 10).Int("_r", 1);
  const auto g = GroupSpace(space);
  EXPECT_EQ(g.Of("/host:CPU [9]", "eval"), 0);  // earliest
  EXPECT_EQ(g.Of("/host:CPU [9]", "op:Add"), 0);
  EXPECT_EQ(g.Of("/host:CPU", "train"), 1);
  EXPECT_EQ(g.Of("/device:CUSTOM:Events", "marker"), 2);
  EXPECT_EQ(g.groups.group_names.at(0), "eval 4");
  EXPECT_EQ(g.groups.group_names.at(1), "train 1");
}

// A GPU plane that declares link stats takes part as a host plane does (an
// event consuming a link joins the step, with what nests in it) and keeps
// the GPU's inheritance: a later event of no group takes the step's.
TEST(GroupEventsProcesses, GpuPlaneWithLinksJoinsSteps) {
  XSpace space = TwoProcessSpace(-1, -1, -1);  // the host's step hands over context 7
  XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 2);
  XLineBuilder stream = gpu.AddLine(0, "stream");
  stream.AddEvent("marker", 200, 100).Int("_ct", kGeneric).Int("_c", 7);
  stream.AddEvent("inside", 210, 50);
  stream.AddEvent("later", 400, 50);
  const auto g = GroupSpace(space);
  const int32_t step = g.Of("/host:CPU", "train");
  ASSERT_NE(step, kNoGroup);
  g.ExpectIn("/device:GPU:0", {"marker", "inside", "later"}, step);
}

}  // namespace
}  // namespace tbprof
