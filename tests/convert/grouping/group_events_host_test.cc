// Host grouping beyond nesting and launches: eager execution as xprof's
// grouping marks it (MarkEagerlyExecutedGpuKernels and
// MarkEagerlyExecutedCpuTfOps: a TF op or a launched kernel ran eagerly when
// the nearest EagerKernelExecute above it ran a single op, `is_func` 0), and
// the iterator ops an executor step runs on other threads (ConnectInterThread).
//
// Ported scenarios (xla/tsl/profiler/utils/group_events_test.cc):
//   GroupEventsTest.EagerOpTest     ported  pass (CPU op eager, CPU function not; of four kernels
//                                                 only the eager op's)
//   GroupEventsTest.FunctionOpTest  ported  pass (the op and the kernel inside a tf.function: not eager)
// The xla tests leave the device plane unnamed, as here (every plane takes
// part in grouping, and a correlation_id off the host plane marks a kernel).
// The cases below the ports are worked out by hand from the same rule.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <string>

#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/tools/tool_registry.h"
#include "convert/grouping/group_events.h"
#include "proto/xspace_builder.h"
#include "tests/testing/grouping_fixtures.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

using grouping_test::EagerByName;
using ops_test::ToModel;
using tensorflow::profiler::XSpace;

constexpr int64_t kTfExecutor = 2;  // tsl's ContextType::kTfExecutor

TEST(XprofScenarioGroupEvents, EagerOpTest) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = host.AddLine(0, "main");
  XPlaneBuilder gpu = AddPlane(space, "", 1);
  XLineBuilder stream = gpu.AddLine(0, "stream");
  // A TF1 op, under no EagerKernelExecute.
  main.AddEvent("tf1 matmul", 10, 90).Int("correlation_id", 100);
  stream.AddEvent("tf1_kernel_matmul", 200, 300).Int("correlation_id", 100);
  // An EagerKernelExecute without is_func (TF before the stat): not eager.
  main.AddEvent("EagerKernelExecute", 100, 200);
  main.AddEvent("legacy matmul", 110, 190).Int("correlation_id", 101);
  stream.AddEvent("legacy_kernel_matmul", 300, 400).Int("correlation_id", 101);
  // A single op run eagerly.
  main.AddEvent("EagerKernelExecute", 200, 300).Int("is_func", 0);
  main.AddEvent("eager op matmul", 210, 290).Int("correlation_id", 102);
  stream.AddEvent("eager_op_kernel_matmul", 400, 500).Int("correlation_id", 102);
  // A function called eagerly.
  main.AddEvent("EagerKernelExecute", 300, 400).Int("is_func", 1);
  main.AddEvent("eager func matmul", 310, 390).Int("correlation_id", 103);
  stream.AddEvent("eager_func_kernel_matmul", 500, 600).Int("correlation_id", 103);
  // CPU TF ops, one run eagerly, one in a function.
  main.AddEvent("EagerKernelExecute", 400, 500).Int("is_func", 0);
  main.AddEvent("eager_op_cpu_kernel:Matmul", 410, 490);
  main.AddEvent("EagerKernelExecute", 500, 600).Int("is_func", 1);
  main.AddEvent("eager_func_cpu_kernel:Matmul", 510, 590);

  auto m = ToModel(space);
  EventGroups g = GroupEvents(*m);
  EXPECT_TRUE(g.computed);
  EXPECT_TRUE(EagerByName(*m, g, "/host:CPU", "eager_op_cpu_kernel:Matmul"));
  EXPECT_FALSE(EagerByName(*m, g, "/host:CPU", "eager_func_cpu_kernel:Matmul"));
  EXPECT_FALSE(EagerByName(*m, g, "", "tf1_kernel_matmul"));
  EXPECT_FALSE(EagerByName(*m, g, "", "legacy_kernel_matmul"));
  EXPECT_TRUE(EagerByName(*m, g, "", "eager_op_kernel_matmul"));
  EXPECT_FALSE(EagerByName(*m, g, "", "eager_func_kernel_matmul"));
}

// FunctionOpTest's space: an EagerKernelExecute (is_func as given, none when
// negative) holding a FunctionRun whose executor, on another thread, runs a
// launch of "matmul" and the CPU op "add:Add".
XSpace FunctionOpSpace(int64_t is_func, std::string_view device_plane = "/device:GPU:0") {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("TraceContext", 0, 100).Int("step_num", 123);
  XEventBuilder execute = main.AddEvent("EagerKernelExecute", 10, 90);
  if (is_func >= 0) execute.Int("is_func", is_func);
  main.AddEvent("FunctionRun", 10, 90).Int("id", 0).Int("_pt", kTfExecutor).Int("_p", 0);
  XLineBuilder executor = host.AddLine(1, "tf_executor");
  executor.AddEvent("ExecutorState::Process", 20, 80).Int("id", 0).Int("_ct", kTfExecutor).Int("_c", 0);
  executor.AddEvent("matmul", 30, 30).Int("correlation_id", 100);
  executor.AddEvent("add:Add", 70, 20);
  XPlaneBuilder gpu = AddPlane(space, device_plane, 1);
  gpu.AddLine(0, "stream").AddEvent("matmul", 200, 300).Int("correlation_id", 100);
  return space;
}

TEST(XprofScenarioGroupEvents, FunctionOpTest) {
  auto m = ToModel(FunctionOpSpace(/*is_func=*/-1, /*device_plane=*/""));
  EventGroups g = GroupEvents(*m);
  EXPECT_TRUE(g.computed);
  EXPECT_FALSE(EagerByName(*m, g, "/host:CPU", "add:Add"));
  EXPECT_FALSE(EagerByName(*m, g, "", "matmul"));
}

// By hand: the same space, its EagerKernelExecute running a single op. The
// mark crosses the producer/consumer link to the executor's thread, and the
// launch to the kernel.
TEST(GroupEventsEager, SingleOpReachesOtherThreadsAndKernels) {
  auto m = ToModel(FunctionOpSpace(/*is_func=*/0));
  EventGroups g = GroupEvents(*m);
  EXPECT_TRUE(EagerByName(*m, g, "/host:CPU", "add:Add"));
  EXPECT_TRUE(EagerByName(*m, g, "/device:GPU:0", "matmul"));
  // The nearest EagerKernelExecute decides: a function call nested in it is not eager.
  XSpace nested;
  XPlaneBuilder nested_host = AddPlane(nested, "/host:CPU", 0);
  XLineBuilder main = nested_host.AddLine(0, "main");
  main.AddEvent("EagerKernelExecute", 0, 100).Int("is_func", 0);
  main.AddEvent("EagerKernelExecute", 10, 80).Int("is_func", 1);
  main.AddEvent("inner:Mul", 20, 10);
  main.AddEvent("outer:Add", 95, 5);
  auto n = ToModel(nested);
  EventGroups ng = GroupEvents(*n);
  EXPECT_FALSE(EagerByName(*n, ng, "/host:CPU", "inner:Mul"));
  EXPECT_TRUE(EagerByName(*n, ng, "/host:CPU", "outer:Add"));
}

// A file that comes grouped keeps its own stats: nothing is computed, and
// an op is eager only where the file says so.
TEST(GroupEventsEager, GroupedFileIsNotMarked) {
  XSpace space = FunctionOpSpace(/*is_func=*/0);
  XPlaneBuilder sub_process = AddPlane(space, "/host:CPU [2]", 2);
  XLineBuilder main = sub_process.AddLine(0, "main");
  main.AddEvent("step", 0, 10).Int("group_id", 0);
  auto m = ToModel(space);
  EventGroups g = GroupEvents(*m);
  EXPECT_FALSE(g.computed);
  EXPECT_FALSE(EagerByName(*m, g, "/host:CPU", "add:Add"));
}

namespace json = boost::json;


// By hand: the eager op is "Eager" on host and device in framework_op_stats,
// the other "Function"; the overview counts the eager shares of op time:
// host 360 of 360 + 380 µs self time, device 100 of 100 + 300 µs.
TEST(GroupEventsEager, EagerOpsReachTheTools) {
  const std::string path = ops_test::WriteSpace(grouping_test::EagerAndFunctionSpace(), "eager_ops");
  json::value tf_stats = ops_test::RunXPlaneTool("framework_op_stats", path);
  const json::value& table = tf_stats.as_array()[0];
  size_t mode = SIZE_MAX, type = SIZE_MAX, op = SIZE_MAX;
  const json::array& cols = table.at("cols").as_array();
  for (size_t c = 0; c < cols.size(); ++c) {
    if (cols[c].at("id") == "eager") mode = c;
    if (cols[c].at("id") == "host_or_device") type = c;
    if (cols[c].at("id") == "operation") op = c;
  }
  ASSERT_NE(mode, SIZE_MAX);
  ASSERT_NE(type, SIZE_MAX);
  ASSERT_NE(op, SIZE_MAX);
  std::map<std::string, std::string> modes;
  for (const auto& row : table.at("rows").as_array()) {
    const auto& c = row.at("c").as_array();
    modes[std::string(c[type].at("v").as_string()) + " " + std::string(c[op].at("v").as_string())] =
        std::string(c[mode].at("v").as_string());
  }
  EXPECT_EQ(modes["Host a/add"], "Eager");
  EXPECT_EQ(modes["Host b/mul"], "Function");
  EXPECT_EQ(modes["Device a/add"], "Eager");
  EXPECT_EQ(modes["Device b/mul"], "Function");

  json::value overview = ops_test::RunXPlaneTool("overview_page", path);
  const json::value& analysis = overview.as_array()[0];
  EXPECT_EQ(analysis.at("p").at("host_op_time_eager_percent"), "48.6%");
  EXPECT_EQ(analysis.at("p").at("device_op_time_eager_percent"), "25.0%");
}

// By hand: xprof marks TensorFlow ops ("name:Type"), not tf.data's iterator
// ops, so an iterator run inside an eager op stays out of the eager share.
TEST(GroupEventsEager, OnlyTensorFlowOpsCountAsEagerOnTheHost) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("EagerKernelExecute", 0, 100).Int("is_func", 0);
  main.AddEvent("a/add:AddV2", 10, 80);
  main.AddEvent("Iterator::Prefetch", 20, 10);
  const OpStats stats = ops_test::OpStatsOf(space);
  const auto& ops = stats.host_op_metrics_db.ops;
  ASSERT_TRUE(ops.count("a/add") && ops.count("Iterator::Prefetch"));
  EXPECT_TRUE(ops.at("a/add").is_eager);
  EXPECT_FALSE(ops.at("Iterator::Prefetch").is_eager);
}

// By hand: an executor step's IteratorGetNext runs on another thread, linked
// by step id and iteration (xprof's ConnectInterThread); one of another
// iteration stays out of the step.
TEST(GroupEventsLinks, IteratorGetNextJoinsItsExecutorStep) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("train", 0, 100).Int("step_num", 7).Int("_r", 1);
  main.AddEvent("ExecutorState::Process", 10, 80).Int("id", 5).Int("iter_num", 0);
  XLineBuilder pool = host.AddLine(1, "tf_data");
  pool.AddEvent("IteratorGetNextOp::DoCompute", 20, 30).Int("id", 5).Int("iter_num", 0);
  pool.AddEvent("Iterator::Prefetch", 25, 10);
  pool.AddEvent("IteratorGetNextAsOptionalOp::DoCompute", 60, 10).Int("id", 5).Int("iter_num", 1);
  auto m = ToModel(space);
  EventGroups g = GroupEvents(*m);
  ASSERT_EQ(g.group_names.size(), 1u);
  EXPECT_EQ(g.group_names.at(0), "train 7");
  EXPECT_EQ(g.Group(0, 2), 0);         // IteratorGetNextOp::DoCompute
  EXPECT_EQ(g.Group(0, 3), 0);         // nested in it
  EXPECT_EQ(g.Group(0, 4), kNoGroup);  // iteration 1: no executor step of it
}

// By hand (xprof's ProcessTfDataSteps): a FunctionRun root whose step id is
// one tf.data's captured functions run under is no step; the training step
// and the functions run outside tf.data stay roots.
TEST(GroupEventsRoots, TfDataFunctionRunsAreNoSteps) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("train", 0, 1000).Int("_r", 1).Int("step_num", 3);
  main.AddEvent("FunctionRun", 1200, 100).Int("_r", 1).Int("id", 90);  // a tf.function call of its own
  XLineBuilder pool = host.AddLine(1, "tf_data_private_threadpool");
  pool.AddEvent("InstantiatedCapturedFunction::Run", 100, 100).Int("id", 55);
  pool.AddEvent("FunctionRun", 110, 80).Int("_r", 1).Int("id", 55);
  pool.AddEvent("map/add:AddV2", 120, 10);
  pool.AddEvent("InstantiatedCapturedFunction::RunAsync", 300, 100).Int("id", 56);
  pool.AddEvent("FunctionRun", 310, 80).Int("_r", 1).Int("id", 56);
  auto m = ToModel(space);
  EventGroups g = GroupEvents(*m);
  ASSERT_EQ(g.group_names.size(), 2u);
  EXPECT_EQ(g.group_names.at(0), "train 3");
  EXPECT_EQ(g.group_names.at(1), "1");  // an implicit root is named by its group
  EXPECT_EQ(g.Group(0, 1), 1);          // the FunctionRun of its own
  for (uint32_t e = 2; e < 7; ++e) EXPECT_EQ(g.Group(0, e), kNoGroup) << e;  // the tf.data thread
}

// By hand (xprof's GetGroupName reads graph_type, iter_num and step_num with
// GetContextStat: the root's own, else its nearest ancestor's, breadth
// first): a root inside an event that names them, and a root linked from a
// producer that does.
TEST(GroupEventsRoots, GroupNamesComeFromTheRootOrItsAncestors) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("outer", 0, 1000).Str("graph_type", "eval").Int("step_num", 42);
  main.AddEvent("step", 100, 200).Int("_r", 1);
  main.AddEvent("dispatch", 2000, 10).Int("_pt", 0).Int("_p", 9).Int("iter_num", 7);
  XLineBuilder worker = host.AddLine(1, "worker");
  worker.AddEvent("work", 2100, 100).Int("_r", 1).Int("_ct", 0).Int("_c", 9);
  auto m = ToModel(space);
  EventGroups g = GroupEvents(*m);
  ASSERT_EQ(g.group_names.size(), 2u);
  EXPECT_EQ(g.group_names.at(0), "eval 42");
  EXPECT_EQ(g.group_names.at(1), "work 7");
}

}  // namespace
}  // namespace tbprof
