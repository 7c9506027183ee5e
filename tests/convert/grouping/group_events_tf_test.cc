// TensorFlow's step grouping on a host and an (unnamed) device plane, built as
// xla's group_events_test.cc builds them: a step root launches a kernel
// through a function's executor; TensorFlow loops make one step per
// iteration.
//
// Ported scenarios (xla/tsl/profiler/utils/group_events_test.cc):
//   GroupEventsTest.GroupGpuTraceLegacyRootTest       ported  pass (kernel in group 0, named "train 123")
//   GroupEventsTest.GroupGpuTraceTest                 ported  pass (kernel in group 0, named "train 123")
//   GroupEventsTest.GroupTensorFlowLoopTest           ported  pass (kernel in group 0, named "10"; the
//                                                             SyncWait of the sync flag line in none)
//   GroupEventsTest.GroupMultipleTensorFlowLoopsTest  ported  pass (groups 0-3 named 10, 11, 0, 1 by
//                                                             start time)
// The tests set the host plane's process id (1) first; it is set here too.
// xla checks that the kernel carries a group_id stat; tbprof keeps groups
// beside the model, so the test reads the kernel's group there.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "convert/grouping/group_events.h"
#include "proto/xspace_builder.h"
#include "tests/testing/grouping_fixtures.h"

namespace tbprof {
namespace {

using grouping_test::GroupSpace;
using tensorflow::profiler::XSpace;

constexpr int64_t kTfExecutor = 2;  // tsl's ContextType::kTfExecutor

// The step root `root` (added by the caller) on the main thread, then a
// FunctionRun whose executor launches "matmul", which the device runs.
XSpace GpuTraceSpace(bool legacy_root) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  host.Int("process_id", 1);
  XLineBuilder main = host.AddLine(0, "main");
  if (legacy_root) {
    main.AddEvent("TraceContext", 0, 100).Str("graph_type", "train").Int("step_num", 123);
  } else {
    main.AddEvent("train", 0, 100).Int("step_num", 123).Int("_r", 1);
  }
  main.AddEvent("FunctionRun", 10, 90).Int("id", 0).Int("_pt", kTfExecutor).Int("_p", 0);
  XLineBuilder executor = host.AddLine(1, "tf_executor");
  executor.AddEvent("ExecutorState::Process", 20, 80).Int("id", 0).Int("_ct", kTfExecutor).Int("_c", 0);
  executor.AddEvent("matmul", 30, 70).Int("correlation_id", 100);
  XPlaneBuilder device = AddPlane(space, "", 1);
  device.AddLine(0, "stream").AddEvent("matmul", 200, 300).Int("correlation_id", 100);
  return space;
}

TEST(XprofScenarioGroupEvents, GroupGpuTraceLegacyRootTest) {
  const auto g = GroupSpace(GpuTraceSpace(/*legacy_root=*/true));
  EXPECT_EQ(g.Of("", "matmul"), 0);
  ASSERT_EQ(g.groups.group_names.size(), 1u);
  EXPECT_EQ(g.groups.group_names.at(0), "train 123");
}

TEST(XprofScenarioGroupEvents, GroupGpuTraceTest) {
  const auto g = GroupSpace(GpuTraceSpace(/*legacy_root=*/false));
  EXPECT_EQ(g.Of("", "matmul"), 0);
  ASSERT_EQ(g.groups.group_names.size(), 1u);
  EXPECT_EQ(g.groups.group_names.at(0), "train 123");
}

TEST(XprofScenarioGroupEvents, GroupTensorFlowLoopTest) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  host.Int("process_id", 1);
  XLineBuilder executor = host.AddLine(0, "tf_executor");
  executor.AddEvent("ExecutorState::Process", 5, 10)
      .Int("id", 0)
      .Int("iter_num", 10)
      .Int("_ct", kTfExecutor)
      .Int("_c", 0);
  executor.AddEvent("ExecutorState::Process", 20, 80)
      .Int("id", 0)
      .Int("iter_num", 10)
      .Int("_ct", kTfExecutor)
      .Int("_c", 0);
  executor.AddEvent("matmul", 30, 70).Int("correlation_id", 100);
  XPlaneBuilder device = AddPlane(space, "", 1);
  device.AddLine(0, "stream").AddEvent("matmul", 200, 300).Int("correlation_id", 100);
  device.AddLine(1, "Sync Flags").AddEvent("SyncWait", 200, 300).Int("Raw Value", 10);
  const auto g = GroupSpace(space);
  EXPECT_EQ(g.Of("", "matmul"), 0);
  EXPECT_EQ(g.Of("", "SyncWait"), kNoGroup);
  ASSERT_EQ(g.groups.group_names.size(), 1u);
  EXPECT_EQ(g.groups.group_names.at(0), "10");  // an executor step is named by its iter_num
}

TEST(XprofScenarioGroupEvents, GroupMultipleTensorFlowLoopsTest) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  host.Int("process_id", 1);
  // The profile holds the last two iterations of the first loop (step id 0)
  // and the first two of the second (step id 1), on two threads.
  auto add_iterations = [&](int64_t line_id, int64_t step_id, std::initializer_list<std::pair<int, int>> iterations) {
    XLineBuilder line = host.AddLine(line_id, "tf_executor " + std::to_string(line_id));
    for (auto [begin, iter] : iterations) {
      line.AddEvent("ExecutorState::Process", begin, 80)
          .Int("id", step_id)
          .Int("iter_num", iter)
          .Int("_ct", kTfExecutor)
          .Int("_c", step_id);
    }
  };
  add_iterations(0, 1, {{220, 0}, {320, 1}});
  add_iterations(1, 0, {{20, 10}, {120, 11}});
  const auto g = GroupSpace(space);
  // Groups by start time: iterations 10 (at 20), 11, 0, 1 (at 320).
  ASSERT_EQ(g.groups.group_names.size(), 4u);
  EXPECT_EQ(g.groups.group_names.at(0), "10");
  EXPECT_EQ(g.groups.group_names.at(1), "11");
  EXPECT_EQ(g.groups.group_names.at(2), "0");
  EXPECT_EQ(g.groups.group_names.at(3), "1");
}

}  // namespace
}  // namespace tbprof
