// Grouping, steps, op metrics and kernel stats of hand-built XSpaces; every
// expected number is derived in the fixture comments (tests/testing/ops_fixtures.cc).
#include <gtest/gtest.h>

#include "convert/analysis/op_stats/op_stats_combiner.h"
#include "convert/analysis/op_stats_pages/op_stats_to_input_pipeline.h"
#include "convert/analysis/op_stats_pages/op_stats_to_pod_viewer.h"
#include "convert/analysis/op_stats_pages/step_diagnostics.h"
#include "convert/analysis/op_names/tf_op_utils.h"
#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/grouping/existing_groups.h"
#include "convert/grouping/group_events.h"
#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

using ops_test::kUs;

uint64_t TypeUs(const StepInfo& s, int type) {
  auto it = s.type_ps.find(type);
  return it == s.type_ps.end() ? 0 : it->second / kUs;
}

TEST(OpsGrouping, StepRootsAndLaunchLinksGiveGroups) {
  auto model = ops_test::ToModel(ops_test::GpuTwoStepSpace());
  EventGroups g = GroupEvents(*model);
  EXPECT_FALSE(g.was_grouped);
  ASSERT_EQ(g.group_names.size(), 2u);
  EXPECT_EQ(g.group_names[0], "train 1");
  EXPECT_EQ(g.group_names[1], "train 2");
  // Host plane is planes[0], GPU plane planes[1]; events in file order.
  std::vector<int32_t> host_expected = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
  EXPECT_EQ(g.group_of[0], host_expected);
  std::vector<int32_t> gpu_expected = {0, 0, 0, 1, 1};
  EXPECT_EQ(g.group_of[1], gpu_expected);
}

TEST(OpsGrouping, ExistingGroupIdsAreRead) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU");
  XLineBuilder t = host.AddLine(1, "main");
  t.AddEvent("train", 0, 10 * kUs).Int("group_id", 42).Str("step_name", "train 42");
  t.AddEvent("x:X", kUs, kUs).Int("group_id", 42);
  t.AddEvent("y:Y", 20 * kUs, kUs);
  auto model = ops_test::ToModel(space);
  ASSERT_TRUE(IsXSpaceGrouped(*model));
  EventGroups g = GroupEvents(*model);
  EXPECT_TRUE(g.was_grouped);
  std::vector<int32_t> expected = {42, 42, kNoGroup};
  EXPECT_EQ(g.group_of[0], expected);
  EXPECT_EQ(g.group_names[42], "train 42");
}

TEST(OpsGrouping, NestedRootOfSameLevelJoinsOuterGroup) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU");
  XLineBuilder t = host.AddLine(1, "main");
  t.AddEvent("outer", 0, 10 * kUs).Int("_r", 1);
  t.AddEvent("inner", kUs, kUs).Int("_r", 1);  // same level inside: no own group
  t.AddEvent("batch", 2 * kUs, kUs).Int("_r", 2);  // higher level: its own group, processed first
  auto model = ops_test::ToModel(space);
  EventGroups g = GroupEvents(*model);
  std::vector<int32_t> expected = {1, 1, 0};
  EXPECT_EQ(g.group_of[0], expected);
  EXPECT_EQ(g.group_names[0], "batch 0");
  EXPECT_EQ(g.group_names[1], "outer 1");
}

TEST(OpsGrouping, ProducerConsumerLinksAcrossThreads) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU");
  XLineBuilder a = host.AddLine(1, "a");
  a.AddEvent("FunctionRun", 0, 10 * kUs).Int("_r", 1).Int("_pt", 2).Int("_p", 77).Int("id", 77);
  XLineBuilder b = host.AddLine(2, "b");
  b.AddEvent("ExecutorState::Process", 2 * kUs, 5 * kUs).Int("_ct", 2).Int("_c", 77);
  b.AddEvent("op:Op", 3 * kUs, kUs);
  auto model = ops_test::ToModel(space);
  EventGroups g = GroupEvents(*model);
  std::vector<int32_t> expected = {0, 0, 0};
  EXPECT_EQ(g.group_of[0], expected);
  EXPECT_EQ(g.group_names[0], "0");  // FunctionRun is an implicit root: no prefix, no step_num
}

TEST(OpsSteps, GpuStepBreakdownFromDeviceEvents) {
  OpStats s = ops_test::OpStatsOf(ops_test::GpuTwoStepSpace());
  ASSERT_EQ(s.steps.size(), 1u);
  ASSERT_EQ(s.steps[0].steps.size(), 2u);
  const StepInfo& a = s.steps[0].steps[0];
  EXPECT_EQ(a.step_num, 0);
  EXPECT_EQ(a.step_name, "train 1");
  EXPECT_EQ(a.begin_ps, 25 * kUs);
  EXPECT_EQ(a.duration_ps, static_cast<uint64_t>(60 * kUs));
  EXPECT_EQ(TypeUs(a, DEVICE_COMPUTE_32), 55u);  // memcpy(5, MemcpyH2D is not MEMCPYHToD) + gemm 40 + relu 10
  EXPECT_EQ(TypeUs(a, UNKNOWN_TIME), 5u);        // gap [70, 75)
  EXPECT_EQ(TypeUs(a, HOST_PREPARE), 0u);        // current xprof: no host events when a device exists
  const StepInfo& b = s.steps[0].steps[1];
  EXPECT_EQ(b.step_name, "train 2");
  EXPECT_EQ(b.duration_ps, static_cast<uint64_t>(35 * kUs));
  EXPECT_EQ(TypeUs(b, DEVICE_COMPUTE_32), 35u);
  EXPECT_EQ(s.compute_32bit_ps, static_cast<uint64_t>(90 * kUs));
  EXPECT_EQ(s.compute_16bit_ps, 0u);
}

TEST(OpsSteps, CpuOnlyStepUsesHostEvents) {
  OpStats s = ops_test::OpStatsOf(ops_test::CpuInputBoundSpace());
  ASSERT_EQ(s.steps[0].steps.size(), 1u);
  const StepInfo& st = s.steps[0].steps[0];
  EXPECT_EQ(st.step_name, "train 7");
  EXPECT_EQ(st.duration_ps, static_cast<uint64_t>(100 * kUs));
  EXPECT_EQ(TypeUs(st, HOST_COMPUTE), 40u);
  EXPECT_EQ(TypeUs(st, HOST_WAIT_INPUT), 30u);
  EXPECT_EQ(TypeUs(st, UNKNOWN_TIME), 30u);
  EXPECT_EQ(s.run_environment.device_type, "CPU");
  EXPECT_EQ(s.run_environment.hardware_type, "CPU_ONLY");
}

TEST(OpsOpMetrics, HostSelfTimesAndIdle) {
  OpStats s = ops_test::OpStatsOf(ops_test::GpuTwoStepSpace());
  const auto& ops = s.host_op_metrics_db.ops;
  ASSERT_TRUE(ops.count("model/dense/MatMul"));
  const OpMetrics& mm = ops.at("model/dense/MatMul");
  EXPECT_EQ(mm.category, "MatMul");
  EXPECT_EQ(mm.occurrences, 2u);
  EXPECT_EQ(mm.time_ps, static_cast<uint64_t>(50 * kUs));       // 30 + 20
  EXPECT_EQ(mm.self_time_ps, static_cast<uint64_t>(48 * kUs));  // minus nested ReadVariableOp (2)
  EXPECT_EQ(ops.at("model/dense/MatMul/ReadVariableOp").self_time_ps, static_cast<uint64_t>(2 * kUs));
  EXPECT_EQ(ops.at("model/relu").occurrences, 1u);
  EXPECT_EQ(s.host_op_metrics_db.total_op_time_ps, static_cast<uint64_t>(60 * kUs));
  EXPECT_EQ(s.host_op_metrics_db.total_time_ps, static_cast<uint64_t>(220 * kUs));  // [10, 230)
  EXPECT_EQ(ops.at("IDLE").self_time_ps, static_cast<uint64_t>(160 * kUs));
  EXPECT_FALSE(ops.count("train"));
  EXPECT_FALSE(ops.count("cuLaunchKernel"));
}

TEST(OpsOpMetrics, DeviceOpsKeyedByFrameworkOpAndKernel) {
  OpStats s = ops_test::OpStatsOf(ops_test::GpuTwoStepSpace());
  const auto& ops = s.device_op_metrics_db.ops;
  ASSERT_TRUE(ops.count("model/dense/MatMul/volta_h884gemm_kernel"));
  const OpMetrics& mm = ops.at("model/dense/MatMul/volta_h884gemm_kernel");
  EXPECT_EQ(mm.occurrences, 2u);
  EXPECT_EQ(mm.time_ps, static_cast<uint64_t>(70 * kUs));
  EXPECT_EQ(mm.self_time_ps, mm.time_ps);
  EXPECT_EQ(mm.provenance, "model/dense/MatMul:MatMul");
  EXPECT_EQ(s.device_op_metrics_db.total_op_time_ps, static_cast<uint64_t>(85 * kUs));
  EXPECT_EQ(s.device_op_metrics_db.total_time_ps, static_cast<uint64_t>(230 * kUs));  // [25, 255)
  EXPECT_EQ(ops.at("IDLE").time_ps, static_cast<uint64_t>(145 * kUs));
}

TEST(OpsKernelStats, ReportsGroupedSortedAndFlagged) {
  OpStats s = ops_test::OpStatsOf(ops_test::GpuTwoStepSpace());
  const auto& db = s.kernel_stats_db;
  ASSERT_EQ(db.reports_size(), 3);
  const auto& gemm = db.reports(0);
  EXPECT_EQ(gemm.name(), "volta_h884gemm_kernel");
  EXPECT_EQ(gemm.occurrences(), 2u);
  EXPECT_EQ(gemm.total_duration_ns(), 70000u);
  EXPECT_EQ(gemm.min_duration_ns(), 30000u);
  EXPECT_EQ(gemm.max_duration_ns(), 40000u);
  EXPECT_EQ(gemm.registers_per_thread(), 32u);
  EXPECT_EQ(gemm.dynamic_shmem_bytes(), 1024u);
  EXPECT_EQ(gemm.block_dim(0), 128u);
  EXPECT_EQ(gemm.grid_dim(0), 8u);
  EXPECT_FLOAT_EQ(gemm.occupancy_pct(), 50.0f);
  EXPECT_TRUE(gemm.is_kernel_using_tensor_core());  // "h884"
  EXPECT_TRUE(gemm.is_op_tensor_core_eligible());   // ends with "/MatMul"
  EXPECT_EQ(gemm.op_name(), "model/dense/MatMul");
  const auto& relu = db.reports(1);
  EXPECT_EQ(relu.name(), "relu_kernel");
  EXPECT_FALSE(relu.is_kernel_using_tensor_core());
  EXPECT_FALSE(relu.is_op_tensor_core_eligible());
  const auto& einsum = db.reports(2);
  EXPECT_EQ(einsum.op_name(), "model/einsum/Einsum");
  EXPECT_TRUE(einsum.is_op_tensor_core_eligible());  // two-operand einsum
  EXPECT_FALSE(einsum.is_kernel_using_tensor_core());
  EXPECT_EQ(einsum.static_shmem_bytes(), 256u);
  EXPECT_EQ(einsum.block_dim(1), 2u);
}

TEST(OpsNaming, TfOpFullname) {
  TfOp op = ParseTfOpFullname("model/dense/MatMul:MatMul");
  EXPECT_EQ(op.category, TfOpCategory::kTensorFlow);
  EXPECT_EQ(op.name, "model/dense/MatMul");
  EXPECT_EQ(op.type, "MatMul");
  op = ParseTfOpFullname("Iterator::Batch::Map");
  EXPECT_EQ(op.category, TfOpCategory::kTfData);
  EXPECT_EQ(op.name, "Iterator::Batch::Map");
  EXPECT_EQ(op.type, "Dataset");
  EXPECT_EQ(ParseTfOpFullname("MemcpyHToD").category, TfOpCategory::kMemcpyHToD);
  EXPECT_EQ(ParseTfOpFullname("MemcpyH2D").category, TfOpCategory::kUnknown);
  op = ParseTfOpFullname("jit(f)/dot_general:");
  EXPECT_EQ(op.category, TfOpCategory::kJax);
  EXPECT_EQ(op.type, "dot_general");
  EXPECT_EQ(DeriveOpType("a/b/relu_12"), "relu");
}

TEST(OpsCombine, AllHostsSumsOpsAndIntersectsSteps) {
  auto a = std::make_shared<const OpStats>(ops_test::OpStatsOf(ops_test::GpuTwoStepSpace()));
  auto space_b = ops_test::GpuTwoStepSpace();
  space_b.set_hostnames(0, "otherhost");
  auto b = std::make_shared<const OpStats>(ops_test::OpStatsOf(space_b));
  OpStats c = CombineOpStats({a, b});
  EXPECT_EQ(c.run_environment.host_count, 2);
  EXPECT_EQ(c.run_environment.task_count, 2);
  EXPECT_EQ(c.device_op_metrics_db.ops.at("model/dense/MatMul/volta_h884gemm_kernel").occurrences, 4u);
  ASSERT_EQ(c.steps.size(), 2u);
  EXPECT_EQ(c.steps[1].hostname, "otherhost");
  EXPECT_EQ(c.steps[1].steps.size(), 2u);
  EXPECT_EQ(c.kernel_stats_db.reports(0).occurrences(), 4u);
}

// xprof's PopulateStepDiagnostics: hosts that each marked steps but have
// none in common are told apart from a profile without step markers, on
// every page that warns about steps. The hosts are those of xprof's
// StepIntersectionTest.EmptyIntersection: 10 steps of 2 ms from 0, 5 from
// step 8 and 10 from step 11, so no step is on all three.
TEST(OpsCombine, HostsWithoutCommonStepsSayWhy) {
  constexpr uint64_t kStepPs = 2'000'000'000;
  auto host = [&](const std::string& name, uint32_t n, uint64_t first_step, uint64_t last_duration) {
    auto stats = std::make_shared<OpStats>();
    stats->run_environment.hostnames.insert(name);
    HostSteps& steps = stats->steps.emplace_back();
    steps.hostname = name;
    for (uint32_t i = 0; i < n; ++i) {
      StepInfo& st = steps.steps.emplace_back();
      st.step_num = i;
      st.begin_ps = static_cast<int64_t>((first_step + i) * kStepPs);
      st.duration_ps = i + 1 == n ? last_duration : kStepPs;
    }
    return std::shared_ptr<const OpStats>(std::move(stats));
  };
  // Host 0's last step 1 ps shorter makes it the chief, as in xprof's test.
  OpStats c = CombineOpStats({host("h0", 10, 0, kStepPs - 1), host("h1", 5, 8, kStepPs), host("h2", 10, 11, kStepPs)});
  EXPECT_TRUE(c.empty_step_intersection);
  for (const HostSteps& h : c.steps) EXPECT_TRUE(h.steps.empty());
  const auto ipa = ConvertOpStatsToInputPipelineAnalysis(c);
  ASSERT_EQ(ipa.diagnostics().warnings_size(), 1);
  EXPECT_EQ(ipa.diagnostics().warnings(0), kEmptyStepIntersectionWarning);
  EXPECT_NE(ConvertOpStatsToPodViewerJson(c).find("the intersection of the steps over all hosts is empty"),
            std::string::npos);
  // Two of them have steps in common; a profile without steps marked none.
  OpStats two = CombineOpStats({host("h0", 10, 0, kStepPs - 1), host("h1", 5, 8, kStepPs)});
  EXPECT_FALSE(two.empty_step_intersection);
  EXPECT_EQ(ConvertOpStatsToInputPipelineAnalysis(two).diagnostics().warnings_size(), 0);
  const auto no_steps = ConvertOpStatsToInputPipelineAnalysis(OpStats{});
  ASSERT_EQ(no_steps.diagnostics().warnings_size(), 1);
  EXPECT_EQ(no_steps.diagnostics().warnings(0), kNoStepMarkerWarning);
}

// Hosts with the given hardware and steps (begin, duration in ms).
std::shared_ptr<const OpStats> HostWithSteps(const std::string& name, const std::string& hardware,
                                             const std::vector<std::pair<uint64_t, uint64_t>>& steps_ms) {
  constexpr uint64_t kMs = 1'000'000'000;
  auto stats = std::make_shared<OpStats>();
  stats->run_environment.hostnames.insert(name);
  stats->run_environment.hardware_type = hardware;
  HostSteps& steps = stats->steps.emplace_back();
  steps.hostname = name;
  for (size_t i = 0; i < steps_ms.size(); ++i) {
    StepInfo& st = steps.steps.emplace_back();
    st.step_num = static_cast<int64_t>(i);
    st.begin_ps = static_cast<int64_t>(steps_ms[i].first * kMs);
    st.duration_ps = steps_ms[i].second * kMs;
  }
  return stats;
}

// xprof's IsCoordinator: in a run with devices, a host without any is a
// coordinator, whose steps (here none in common with the workers') are left
// out of the intersection instead of emptying it. In a CPU-only run every
// host is a worker.
TEST(OpsCombine, CoordinatorStepsAreNotIntersected) {
  auto w0 = HostWithSteps("w0", "GPU", {{0, 10}, {10, 10}});
  auto w1 = HostWithSteps("w1", "GPU", {{1, 10}, {11, 10}});
  auto coordinator = HostWithSteps("c", "CPU_ONLY", {{100, 5}});
  OpStats c = CombineOpStats({w0, coordinator, w1});
  EXPECT_FALSE(c.empty_step_intersection);
  ASSERT_EQ(c.steps.size(), 2u);
  EXPECT_EQ(c.steps[0].hostname, "w0");
  EXPECT_EQ(c.steps[1].hostname, "w1");
  EXPECT_EQ(c.steps[1].steps.size(), 2u);
  // CPU only: both hosts are workers and both keep their common steps.
  OpStats cpu = CombineOpStats({HostWithSteps("w0", "CPU_ONLY", {{0, 10}, {10, 10}}),
                                HostWithSteps("w1", "CPU_ONLY", {{1, 10}, {11, 10}})});
  ASSERT_EQ(cpu.steps.size(), 2u);
  EXPECT_EQ(cpu.steps[1].steps.size(), 2u);
}

// xprof's ComputeStepTimeSummaryInMs: a step takes as long as its slowest
// core, here host: steps of 10 and 20 ms on w0, 15 and 12 ms on w1 are
// 15 and 20 ms long, 17.5 ms on average. The rows (and the graph drawn from
// them) are those same steps: w1's first, w0's second, so that no bar falls
// under the stated minimum.
TEST(OpsCombine, StepTimeIsTheSlowestHosts) {
  OpStats c = CombineOpStats({HostWithSteps("w0", "GPU", {{0, 10}, {20, 20}}),
                              HostWithSteps("w1", "GPU", {{1, 15}, {21, 12}})});
  const auto ipa = ConvertOpStatsToInputPipelineAnalysis(c);
  EXPECT_DOUBLE_EQ(ipa.step_time_summary().average(), 17.5);
  EXPECT_DOUBLE_EQ(ipa.step_time_summary().minimum(), 15);
  EXPECT_DOUBLE_EQ(ipa.step_time_summary().maximum(), 20);
  ASSERT_EQ(ipa.step_details_size(), 2);
  tensorflow::profiler::PerGenericStepDetails first, second;
  ASSERT_TRUE(ipa.step_details(0).UnpackTo(&first));
  ASSERT_TRUE(ipa.step_details(1).UnpackTo(&second));
  EXPECT_DOUBLE_EQ(first.step_time_ms(), 15);
  EXPECT_DOUBLE_EQ(second.step_time_ms(), 20);
}

}  // namespace
}  // namespace tbprof

namespace tbprof {
namespace {

// Two iterations (iter_num 0 and 1) of TF executor step 9 on two threads, plus a
// `train` root that must be ignored because TF loops take precedence.
TEST(OpsGrouping, TensorFlowLoopIterationsAreTheSteps) {
  using ops_test::kUs;
  tensorflow::profiler::XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU");
  XLineBuilder a = host.AddLine(1, "a");
  a.AddEvent("train", 0, 100 * kUs).Int("_r", 1);
  a.AddEvent("ExecutorState::Process", 10 * kUs, 10 * kUs).Int("id", 9).Int("iter_num", 0);
  a.AddEvent("x:X", 11 * kUs, kUs);
  a.AddEvent("ExecutorState::Process", 50 * kUs, 10 * kUs).Int("id", 9).Int("iter_num", 1);
  XLineBuilder b = host.AddLine(2, "b");
  b.AddEvent("ExecutorState::Process", 12 * kUs, 5 * kUs).Int("id", 9).Int("iter_num", 0);
  b.AddEvent("ExecutorState::Process", 40 * kUs, 5 * kUs).Int("id", 9).Int("iter_num", 1);
  auto model = ops_test::ToModel(space);
  EventGroups g = GroupEvents(*model);
  // Iteration 0 starts at 10 µs (group 0), iteration 1 at 40 µs (group 1, rooted on thread b).
  std::vector<int32_t> expected = {kNoGroup, 0, 0, 1, 0, 1};
  EXPECT_EQ(g.group_of[0], expected);
  EXPECT_EQ(g.group_names[0], "0");
  EXPECT_EQ(g.group_names[1], "1");
}

}  // namespace
}  // namespace tbprof

namespace tbprof {
namespace {

TEST(OpsGrouping, SpacesWithLoopOpsAreNotGrouped) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU");
  XLineBuilder a = host.AddLine(1, "a");
  a.AddEvent("train", 0, 10 * ops_test::kUs).Int("_r", 1);
  a.AddEvent("WhileOp-EvalCond", ops_test::kUs, ops_test::kUs);
  EventGroups g = GroupEvents(*ops_test::ToModel(space));
  std::vector<int32_t> expected = {kNoGroup, kNoGroup};
  EXPECT_EQ(g.group_of[0], expected);
  EXPECT_TRUE(g.group_names.empty());
}

}  // namespace
}  // namespace tbprof
