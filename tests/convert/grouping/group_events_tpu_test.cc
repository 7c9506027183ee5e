// Grouping of TPU profiles (xprof's GroupTpuEventsOSS after TSL's
// PreprocessXPlane), on XSpaces built as xla's group_events_test.cc builds
// them, asserting what those tests assert; the end-to-end cases at the bottom
// are worked out by hand from the same rules.
//
// Ported scenarios (xla/tsl/profiler/utils/group_events_test.cc):
//   GroupTPUEventsTest.TpuExecuteOpTest                          ported  pass (1 group, host all grouped)
//   GroupTPUEventsTest.TpuRequestTest                            ported  pass (1 group, host all grouped)
//   GroupTPUEventsTest.TpuProgramCallbackTest                    ported  pass (1 group, host all grouped)
//   GroupTPUEventsTest.ModuleRootEventTest                       ported  pass (every TPU event grouped)
//   GroupTPUEventsTest.MergeHostStepsTest                        ported  pass (1 group; TensorCore and
//                                                                         SparseCore steps merged to 1000..1205)
//   GroupTPUEventsTest.MergeOffloadedScSteps                     ported  pass (1 group; SparseCore steps
//                                                                         merged to 1100..2000)
//   GroupTPUEventsTest.GroupOffloadedSparseCoreModulesHostLoopTest   ported  pass (1 group everywhere)
//   GroupTPUEventsTest.GroupOffloadedSparseCoreModulesDeviceLoopTest ported  pass (host 0, TPU 1, 2 groups)
//   GroupEventsTest.* (GPU and host cases)                        left out here: the GPU and host grouping
//                                                                 has its own tests (ops_steps_test.cc)
#include <gtest/gtest.h>

#include <string>

#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/grouping/existing_groups.h"
#include "convert/grouping/group_events.h"
#include "proto/xspace_builder.h"
#include "tests/testing/grouping_fixtures.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

using grouping_test::AddLaunch;
using grouping_test::kScOffload;
using grouping_test::MergeHostStepsSpace;
using ops_test::ToModel;
using tensorflow::profiler::XSpace;

// tsl's ContextType value of the TPU runtime.
constexpr int64_t kTfrtTpuRuntime = 7;

size_t PlaneIndex(const XSpaceModel& m, std::string_view name) {
  for (size_t i = 0; i < m.planes.size(); ++i) {
    if (m.Str(m.planes[i].name) == name) return i;
  }
  ADD_FAILURE() << "no plane " << name;
  return 0;
}

// Every event of the plane has `group`, except those of the lines `skip` names.
void ExpectAllInGroup(const XSpaceModel& m, const EventGroups& g, std::string_view plane, int32_t group,
                      std::string_view skip = "") {
  const size_t pi = PlaneIndex(m, plane);
  const XPlaneModel& p = m.planes[pi];
  for (const LineModel& line : p.lines) {
    if (m.Str(line.name) == skip) continue;
    for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
      EXPECT_EQ(g.Group(pi, e), group) << plane << ": " << m.Str(line.name) << " " << m.Str(p.EventName(e));
    }
  }
}

// Groups a space whose events should all fall in one group, and checks that
// they do on every plane named.
void ExpectOneGroupOn(const XSpace& space, std::initializer_list<std::string_view> planes,
                      std::unique_ptr<XSpaceModel>* model = nullptr, EventGroups* groups = nullptr) {
  auto m = ToModel(space);
  EventGroups g = GroupEvents(*m);
  ASSERT_EQ(g.group_names.size(), 1u);
  for (std::string_view plane : planes) ExpectAllInGroup(*m, g, plane, g.group_names.begin()->first);
  if (model) *model = std::move(m);
  if (groups) *groups = std::move(g);
}

// The plane's steps as (begin, end) of their first and last events.
std::vector<std::pair<int64_t, int64_t>> Steps(const XSpaceModel& m, const EventGroups& g, std::string_view plane) {
  const size_t pi = PlaneIndex(m, plane);
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const EventGroups::TpuStep& s : g.tpu_steps[pi]) {
    out.emplace_back(m.planes[pi].events[s.events.front()].begin_ps, m.planes[pi].events[s.events.back()].end_ps());
  }
  return out;
}

XSpace HostWithSessionRoot(std::string_view name, std::initializer_list<std::pair<const char*, int64_t>> stats) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("SessionRun", 0, 100).Int("_r", 1);
  XEventBuilder e = main.AddEvent(name, 20, 50);
  for (const auto& [stat, value] : stats) e.Int(stat, value);
  return space;
}

TEST(XprofScenarioGroupTpuEvents, TpuExecuteOpTest) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("ExecutorState::Process", 20, 50).Int("id", 123).Int("iter_num", 456);
  auto m = ToModel(space);
  EventGroups g = GroupEvents(*m);
  EXPECT_EQ(g.group_names.size(), 1u);
  ExpectAllInGroup(*m, g, "/host:CPU", 0);
}

TEST(XprofScenarioGroupTpuEvents, TpuRequestTest) {
  auto m = ToModel(HostWithSessionRoot("EnqueueRequestLocked", {{"queue_addr", 123}, {"request_id", 456}}));
  EventGroups g = GroupEvents(*m);
  EXPECT_EQ(g.group_names.size(), 1u);
  ExpectAllInGroup(*m, g, "/host:CPU", 0);
}

TEST(XprofScenarioGroupTpuEvents, TpuProgramCallbackTest) {
  auto m = ToModel(HostWithSessionRoot("DoEnqueueProgram", {{"run_id", 123}, {"queue_id", 0}, {"device_ordinal", 1}}));
  EventGroups g = GroupEvents(*m);
  EXPECT_EQ(g.group_names.size(), 1u);
  ExpectAllInGroup(*m, g, "/host:CPU", 0);
}

TEST(XprofScenarioGroupTpuEvents, ModuleRootEventTest) {
  XSpace space;
  XPlaneBuilder tpu = AddPlane(space, "/device:TPU:0", 0);
  tpu.AddLine(0, "Steps").AddEvent("1", 100, 200).Int("step_num", 1);
  tpu.AddLine(1, "XLA Modules").AddEvent("module", 105, 194).Int("run_id", 123).Int("queue_id", 0).Int("device_ordinal", 0);
  tpu.AddLine(2, "XLA Ops").AddEvent("matmul", 110, 190);
  auto m = ToModel(space);
  EventGroups g = GroupEvents(*m);
  ExpectAllInGroup(*m, g, "/device:TPU:0", 0);
  // GetGroupName of a step line's event: no name prefix, its step_num.
  EXPECT_EQ(g.group_names.at(0), "1");
}

TEST(XprofScenarioGroupTpuEvents, MergeHostStepsTest) {
  auto m = ToModel(MergeHostStepsSpace());
  EventGroups g = GroupEvents(*m);
  EXPECT_EQ(g.group_names.size(), 1u);
  using Spans = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(Steps(*m, g, "/device:TPU:0"), (Spans{{1000, 1205}}));
  EXPECT_EQ(Steps(*m, g, "/device:TPU:0 SparseCore 0"), (Spans{{1000, 1205}}));
}

TEST(XprofScenarioGroupTpuEvents, MergeOffloadedScSteps) {
  XSpace space;
  XPlaneBuilder tc = AddPlane(space, "/device:TPU:0", 0);
  tc.AddLine(0, "XLA Modules").AddEvent("jit_tc_module", 1010, 980).Int("run_id", 1);
  tc.AddLine(1, "Steps").AddEvent("tc step 0", 1000, 1000).Int("device_offset_ps", 1000).Int("device_duration_ps", 1000);
  XLineBuilder ops = tc.AddLine(2, "XLA Ops");
  const int64_t starts[2] = {1050, 1550};
  for (int i = 0; i < 2; ++i) {
    ops.AddEvent("offload.start.1", starts[i], 50)
        .Int("tc_offload_start_id", 1)
        .Int("offload_core_id", 0)
        .Int("offload_execution_index", i)
        .Int("_p", i + 1)
        .Int("_pt", kScOffload);
    ops.AddEvent("offload.done.1", starts[i] + 50, 400);
  }
  XPlaneBuilder sc = AddPlane(space, "/device:TPU:0 SparseCore 1", 0);
  XLineBuilder sc_modules = sc.AddLine(0, "Sparse Core Modules");
  sc_modules.AddEvent("offloaded(1)", 1101, 398).Int("tc_offload_start_id", 1);
  sc_modules.AddEvent("offloaded(1)", 1601, 398).Int("tc_offload_start_id", 1);
  XLineBuilder sc_steps = sc.AddLine(1, "Sparse Core Steps");
  sc_steps.AddEvent("sc step 0", 1100, 400);
  sc_steps.AddEvent("sc step 1", 1600, 400);
  XLineBuilder sc_ops = sc.AddLine(2, "Sparse Core Ops");
  sc_ops.AddEvent("sc_op_1a", 1110, 100).Int("_ct", kScOffload).Int("_c", 1);
  sc_ops.AddEvent("sc_op_2a", 1610, 100).Int("_ct", kScOffload).Int("_c", 2);
  std::unique_ptr<XSpaceModel> m;
  EventGroups g;
  ExpectOneGroupOn(space, {"/device:TPU:0", "/device:TPU:0 SparseCore 1"}, &m, &g);
  ASSERT_NE(m, nullptr);
  using Spans = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(Steps(*m, g, "/device:TPU:0 SparseCore 1"), (Spans{{1100, 2000}}));
}

// A TensorCore step holding an offload to a SparseCore, and (kept apart for
// the two scenarios below) what launches it on the host.
void AddOffloadingCores(XSpace& space, int64_t module_begin, int64_t module_duration, int64_t sc_done_begin,
                        int64_t sc_start_duration) {
  XPlaneBuilder tc = AddPlane(space, "/device:TPU:0", 0);
  tc.AddLine(0, "XLA Modules")
      .AddEvent("jit(123)", module_begin, module_duration)
      .Int("run_id", 1)
      .Int("queue_id", 0)
      .Int("replica_id", 0)
      .Int("core_type", 0);
  tc.AddLine(1, "Steps").AddEvent("tc step 0", 1000, 1000);
  XLineBuilder ops = tc.AddLine(2, "XLA Ops");
  ops.AddEvent("offload_start", 1050, 100)
      .Int("tc_offload_start_id", 123)
      .Int("offload_core_id", 0)
      .Int("offload_execution_index", 0)
      .Int("_pt", kScOffload)
      .Int("_p", 1);
  ops.AddEvent("offload_done", 1200, 750);
  XPlaneBuilder sc = AddPlane(space, "/device:TPU:0 SparseCore 0", 0);
  sc.AddLine(0, "Sparse Core Modules").AddEvent("offloaded(123)", 1100, 800).Int("tc_offload_start_id", 123);
  sc.AddLine(1, "Sparse Core Steps").AddEvent("sc step 0", 1100, 800);
  XLineBuilder sc_ops = sc.AddLine(2, "Sparse Core Ops");
  sc_ops.AddEvent("offloaded_start.copy", 1100, sc_start_duration).Int("_ct", kScOffload).Int("_c", 1);
  sc_ops.AddEvent("offloaded_done.copy", sc_done_begin, sc_done_begin == 1120 ? 180 : 100);
}

TEST(XprofScenarioGroupTpuEvents, GroupOffloadedSparseCoreModulesHostLoopTest) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("host step 0", 0, 200).Int("_r", 1);
  AddLaunch(main, 100, 10, 1, 0);
  AddOffloadingCores(space, 1000, 1000, 1120, 10);
  ExpectOneGroupOn(space, {"/host:CPU", "/device:TPU:0", "/device:TPU:0 SparseCore 0"});
}

TEST(XprofScenarioGroupTpuEvents, GroupOffloadedSparseCoreModulesDeviceLoopTest) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("ExecutorState::Process", 100, 10).Int("id", 1).Int("iter_num", 99);
  main.AddEvent("tpu::System::Execute", 100, 9).Int("_pt", kTfrtTpuRuntime).Int("_p", 1);
  XLineBuilder enqueue = host.AddLine(1, "tf_enqueue");
  enqueue.AddEvent("tpu::System::Execute=>IssueSequencedEvent", 102, 10).Int("_ct", kTfrtTpuRuntime).Int("_c", 1);
  AddLaunch(enqueue, 103, 8, 1, 0);
  // The module outlasts the step, so the step holds no launch: the device
  // steps are numbered after the host's loop iteration.
  AddOffloadingCores(space, 900, 1200, 1300, 100);
  auto m = ToModel(space);
  EventGroups g = GroupEvents(*m);
  EXPECT_EQ(g.group_names.size(), 2u);
  ExpectAllInGroup(*m, g, "/host:CPU", 0);
  ExpectAllInGroup(*m, g, "/device:TPU:0", 1, /*skip=*/"XLA Modules");
  ExpectAllInGroup(*m, g, "/device:TPU:0 SparseCore 0", 1);
}

// --- Beyond xprof's scenarios, worked out by hand from the same rules -------

// A queue's consumer on another thread joins the step of the request that
// named it (request_id and queue_addr), as TSL's preprocessing links them.
TEST(TpuGrouping, RequestQueueLinksAcrossThreads) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("SessionRun", 0, 100).Int("_r", 1);
  main.AddEvent("EnqueueRequestLocked", 20, 50).Int("queue_addr", 123).Int("request_id", 456);
  XLineBuilder worker = host.AddLine(1, "worker");
  worker.AddEvent("RunProgramRequest", 200, 50).Int("queue_addr", 123).Int("request_id", 456);
  worker.AddEvent("RunProgramRequest", 300, 50).Int("queue_addr", 123).Int("request_id", 457);
  auto m = ToModel(space);
  EventGroups g = GroupEvents(*m);
  const size_t host_index = PlaneIndex(*m, "/host:CPU");
  const LineModel& line = m->planes[host_index].lines[1];
  EXPECT_EQ(g.Group(host_index, line.first_event), 0);
  EXPECT_EQ(g.Group(host_index, line.first_event + 1), kNoGroup);  // another request
}

// The host's run ids are the runtime's full ids; the TPU's their 27 low
// bits: a launch still finds its module.
TEST(TpuGrouping, LaunchRunIdsAreMaskedOnTheHost) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("train", 0, 100).Int("_r", 1).Int("step_num", 7);
  AddLaunch(main, 10, 5, (int64_t{5} << 27) + 42, 2, /*queue=*/3);
  XPlaneBuilder tc = AddPlane(space, "/device:TPU:2", 2);
  tc.AddLine(0, "XLA Modules").AddEvent("jit_f", 1000, 100).Int("run_id", 42).Int("queue_id", 3);
  tc.AddLine(1, "XLA Ops").AddEvent("fusion", 1010, 50);
  auto m = ToModel(space);
  EventGroups g = GroupEvents(*m);
  ExpectAllInGroup(*m, g, "/device:TPU:2", 0);
  EXPECT_EQ(g.group_names.at(0), "train 7");
}

// Two host steps of two modules each, on two TensorCores: each core's Steps
// line has four steps, merged into the host's two; OpStats has two TPU steps
// with both cores, each step's ops in it.
TEST(TpuGrouping, HostLoopStepsOfTwoModulesOnTwoCores) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = host.AddLine(0, "main");
  for (int step = 0; step < 2; ++step) {
    main.AddEvent("train", step * 100, 90).Int("_r", 1).Int("step_num", 10 + step);
    for (int core = 0; core < 2; ++core) {
      for (int module = 0; module < 2; ++module) {
        AddLaunch(main, step * 100 + core * 40 + module * 20, 10, step * 2 + module, core);
      }
    }
  }
  for (int core = 0; core < 2; ++core) {
    XPlaneBuilder tc = AddPlane(space, "/device:TPU:" + std::to_string(core), core);
    XLineBuilder modules = tc.AddLine(0, "XLA Modules");
    XLineBuilder steps = tc.AddLine(1, "Steps");
    XLineBuilder ops = tc.AddLine(2, "XLA Ops");
    for (int run = 0; run < 4; ++run) {
      const int64_t begin = 1000 + run * 300;
      modules.AddEvent("jit_step", begin, 200).Int("run_id", run).Int("queue_id", 0);
      steps.AddEvent(std::to_string(run), begin, 250);
      ops.AddEvent("fusion", begin + 10, 100).Str("hlo_category", "fusion");
    }
  }
  auto m = ToModel(space);
  EventGroups g = GroupEvents(*m);
  using Spans = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(Steps(*m, g, "/device:TPU:0"), (Spans{{1000, 1550}, {1600, 2150}}));
  EXPECT_EQ(Steps(*m, g, "/device:TPU:1"), (Spans{{1000, 1550}, {1600, 2150}}));
  OpStats s = ops_test::OpStatsOf(space);
  ASSERT_EQ(s.tpu_step_db.size(), 2u);
  for (const auto& step : s.tpu_step_db) {
    ASSERT_EQ(step.step_info_per_core.size(), 2u);
    for (const auto& [core, info] : step.step_info_per_core) {
      EXPECT_EQ(info.duration_ps, 550u) << core;
      EXPECT_EQ(info.category_ps.at("fusion"), 200u) << core;  // two ops of 100 ps
    }
  }
}

// A file that declares group_id on any plane is taken as grouped, as xprof
// does (IsXSpaceGrouped): its TPU steps keep the file's groups, unmerged.
TEST(TpuGrouping, GroupedFilesKeepTheirGroups) {
  XSpace space;
  XPlaneBuilder tc = AddPlane(space, "/device:TPU:0", 0);
  XLineBuilder steps = tc.AddLine(0, "Steps");
  // Steps a and b of group 5, then c without a group.
  for (int i = 0; i < 3; ++i) {
    XEventBuilder step = steps.AddEvent(std::string(1, static_cast<char>('a' + i)), i * 10, 10);
    if (i < 2) step.Int("group_id", 5);
  }
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  host.AddLine(0, "main").AddEvent("train", 0, 100).Int("_r", 1);
  auto m = ToModel(space);
  ASSERT_TRUE(IsXSpaceGrouped(*m));
  EventGroups g = GroupEvents(*m);
  const auto& tpu = g.tpu_steps[PlaneIndex(*m, "/device:TPU:0")];
  ASSERT_EQ(tpu.size(), 3u);
  EXPECT_EQ(tpu[0].group, 5);
  EXPECT_EQ(tpu[1].group, 5);
  EXPECT_EQ(tpu[2].group, kNoGroup);
  EXPECT_EQ(g.Group(PlaneIndex(*m, "/host:CPU"), 0), kNoGroup);  // not regrouped
}

}  // namespace
}  // namespace tbprof
