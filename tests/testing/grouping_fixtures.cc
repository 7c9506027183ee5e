#include "tests/testing/grouping_fixtures.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

#include "tests/testing/ops_fixtures.h"

namespace tbprof::grouping_test {

using ops_test::kUs;
using tensorflow::profiler::XSpace;

void AddLaunch(XLineBuilder& line, int64_t begin, int64_t duration, int64_t run_id, int64_t ordinal,
               int64_t queue) {
  line.AddEvent("DoEnqueueProgram", begin, duration)
      .Int("run_id", run_id)
      .Int("queue_id", queue)
      .Int("device_ordinal", ordinal)
      .Int("core_type", 0);
}

XSpace MergeHostStepsSpace() {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  host.Int("_pid", 123);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("train", 100, 10).Int("step_num", 1).Int("_r", 1);
  const int64_t launches[4][2] = {{100, 1}, {101, 2}, {103, 2}, {105, 4}};
  for (int i = 0; i < 4; ++i) AddLaunch(main, launches[i][0], launches[i][1], 2 + i, 0);
  const int64_t spans[4][2] = {{1000, 10}, {1015, 100}, {1125, 50}, {1180, 25}};
  XPlaneBuilder tc = AddPlane(space, "/device:TPU:0", 0);
  XLineBuilder modules = tc.AddLine(0, "XLA Modules");
  for (int i = 0; i < 4; ++i) modules.AddEvent("jit_something(1)", spans[i][0], spans[i][1]).Int("run_id", 2 + i).Int("queue_id", 0);
  XLineBuilder steps = tc.AddLine(1, "Steps");
  for (int i = 0; i < 4; ++i) {
    steps.AddEvent(std::to_string(i), spans[i][0], spans[i][1])
        .Int("device_offset_ps", spans[i][0])
        .Int("device_duration_ps", spans[i][1]);
  }
  XLineBuilder ops = tc.AddLine(2, "XLA Ops");
  const int64_t done[4][2] = {{1005, 5}, {1020, 95}, {1130, 45}, {1185, 20}};
  for (int i = 0; i < 4; ++i) {
    ops.AddEvent("offload.start.1", spans[i][0], 5)
        .Int("tc_offload_start_id", 1)
        .Int("offload_core_id", 0)
        .Int("offload_execution_index", i)
        .Int("_p", i + 1)
        .Int("_pt", kScOffload);
    ops.AddEvent("offload.done.1", done[i][0], done[i][1]);
  }
  XPlaneBuilder sc = AddPlane(space, "/device:TPU:0 SparseCore 0", 0);
  XLineBuilder sc_modules = sc.AddLine(0, "Sparse Core Modules");
  XLineBuilder sc_steps = sc.AddLine(1, "Sparse Core Steps");
  XLineBuilder sc_ops = sc.AddLine(2, "Sparse Core Ops");
  const int64_t offloaded[4][2] = {{1001, 8}, {1016, 98}, {1126, 48}, {1181, 23}};
  for (int i = 0; i < 4; ++i) {
    sc_modules.AddEvent("offloaded(1)", offloaded[i][0], offloaded[i][1]).Int("tc_offload_start_id", 1);
    sc_steps.AddEvent("sc step " + std::to_string(i), spans[i][0], spans[i][1]);
    sc_ops.AddEvent("sc_op_1", offloaded[i][0], offloaded[i][1]).Int("_ct", kScOffload).Int("_c", i + 1);
  }
  return space;
}

XSpace EagerAndFunctionSpace() {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("TraceContext", 0, 1000 * kUs).Int("step_num", 1);
  main.AddEvent("EagerKernelExecute", 10 * kUs, 390 * kUs).Int("is_func", 0);
  main.AddEvent("a/add:AddV2", 20 * kUs, 360 * kUs);
  main.AddEvent("cudaLaunchKernel", 30 * kUs, 10 * kUs).Int("correlation_id", 1).Int("device_id", 0);
  main.AddEvent("EagerKernelExecute", 500 * kUs, 400 * kUs).Int("is_func", 1);
  main.AddEvent("b/mul:Mul", 510 * kUs, 380 * kUs);
  main.AddEvent("cudaLaunchKernel", 520 * kUs, 10 * kUs).Int("correlation_id", 2).Int("device_id", 0);
  XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 1);
  XLineBuilder stream = gpu.AddLine(7, "Stream #7(Compute)");
  stream.AddEvent("add_kernel", 1000 * kUs, 100 * kUs).Int("correlation_id", 1).Str("tf_op", "a/add:AddV2");
  stream.AddEvent("mul_kernel", 1200 * kUs, 300 * kUs).Int("correlation_id", 2).Str("tf_op", "b/mul:Mul");
  return space;
}

namespace {

// (plane, event) of the first event named `name` on the plane named `plane`.
std::optional<std::pair<size_t, uint32_t>> FindByName(const XSpaceModel& m, std::string_view plane,
                                                      std::string_view name) {
  for (size_t pi = 0; pi < m.planes.size(); ++pi) {
    if (m.Str(m.planes[pi].name) != plane) continue;
    for (uint32_t e = 0; e < m.planes[pi].events.size(); ++e) {
      if (m.Str(m.planes[pi].EventName(e)) == name) return std::pair{pi, e};
    }
  }
  ADD_FAILURE() << "no event " << name << " on " << plane;
  return std::nullopt;
}

}  // namespace

int32_t GroupByName(const XSpaceModel& m, const EventGroups& g, std::string_view plane, std::string_view name) {
  auto at = FindByName(m, plane, name);
  return at ? g.Group(at->first, at->second) : -2;
}

Grouped GroupSpace(const XSpace& space) {
  Grouped g;
  g.model = ops_test::ToModel(space);
  g.groups = GroupEvents(*g.model);
  return g;
}

int32_t Grouped::Of(std::string_view plane, std::string_view name) const {
  return GroupByName(*model, groups, plane, name);
}

void Grouped::ExpectIn(std::string_view plane, std::initializer_list<std::string_view> names, int32_t group) const {
  for (std::string_view name : names) EXPECT_EQ(Of(plane, name), group) << name << " on " << plane;
}

bool EagerByName(const XSpaceModel& m, const EventGroups& g, std::string_view plane, std::string_view name) {
  auto at = FindByName(m, plane, name);
  return at && g.IsEager(at->first, at->second);
}

}  // namespace tbprof::grouping_test
