// xprof's TPU step-event tests (openxla/xprof), built with our XSpace builder
// and read in the step events of one TPU plane (TpuPlaneStepEvents, our
// ConvertDeviceTraceXPlaneToStepEvents). Expected values are the tests'.
//
// Ported scenarios (file :: test — status — result):
// xprof/convert/xplane_to_step_events_test.cc
//   TpuDevicePlaneToStepEvents        in part  pass (steps of groups 1 and 2, one marker each; step 1 holds
//                                     two ops, step 2 one). xprof keeps a per-core op table per step; ours
//                                     keeps the ops' device-compute spans, so their number is what is checked
//   SparseCoreShouldHaveStepMarkers   in part  pass (one step, one SparseCore marker over [0, 1000) ps, its op
//                                     880 ps); the op's name and module id live in the per-core table xprof
//                                     keeps and we do not
//   TpuDevicePlaneNoStepLine          ported   pass (an empty Steps line: no step)
//   CpuOnlyStepDbTest                 ported in xprof_scenarios_op_stats_test.cc (it is also xplane_to_op_stats')
//   CpuOnlyPyGrain*InputPipelineTest  left out: PyGrain input-pipeline stages are the input pipeline tool's,
//                                     ported with op_stats_to_input_pipeline_analysis (branch tpusteps)
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "convert/analysis/xplane_to_step_events.h"
#include "convert/xplane/schema.h"
#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

using tensorflow::profiler::XSpace;

StepEvents StepEventsOf(const XSpace& space) {
  auto model = ops_test::ToModel(space);
  schema::StatIds ids(*model);
  return TpuPlaneStepEvents(*model, ids, model->planes.at(0));
}

// An op event of display name `display` (metadata `long_name`) in `group`.
void Op(XPlaneBuilder& plane, XLineBuilder& line, const std::string& long_name, const std::string& display,
        int64_t offset_ps, int64_t group) {
  plane.EventMetadata(long_name)->set_display_name(display);
  line.AddEvent(long_name, offset_ps, 50).Int("group_id", group);
}

// Two steps of 100 ps; op_name runs in both, op_name2 in the first only.
TEST(XprofStepEventsPorts, TpuDevicePlaneToStepEvents) {
  XSpace space;
  XPlaneBuilder tpu = AddPlane(space, "/device:TPU:0", 1);
  XLineBuilder ops = tpu.AddLine(0, "XLA Ops");
  Op(tpu, ops, "op_long_name", "op_name", 0, 1);
  Op(tpu, ops, "op_long_name", "op_name", 100, 2);
  Op(tpu, ops, "op_long_name2", "op_name2", 50, 1);
  XLineBuilder steps = tpu.AddLine(1, "Steps");
  steps.AddEvent("", 0, 100).Int("group_id", 1);
  steps.AddEvent("", 100, 100).Int("group_id", 2);
  StepEvents events = StepEventsOf(space);
  ASSERT_EQ(events.size(), 2u);
  ASSERT_TRUE(events.count(1) && events.count(2));
  EXPECT_EQ(events[1].device_markers.size(), 1u);
  EXPECT_EQ(events[1].events.size(), 2u);
  EXPECT_EQ(events[2].device_markers.size(), 1u);
  EXPECT_EQ(events[2].events.size(), 1u);
}

TEST(XprofStepEventsPorts, SparseCoreShouldHaveStepMarkers) {
  XSpace space;
  XPlaneBuilder sc = AddPlane(space, "/device:TPU:0 SparseCore 0", 1);
  sc.AddLine(0, "Sparse Core Steps").AddEvent("Step 1", 0, 1000).Int("group_id", 1);
  sc.AddLine(1, "Sparse Core Ops").AddEvent("sparse_op", 100, 880).Int("group_id", 1);
  StepEvents events = StepEventsOf(space);
  ASSERT_EQ(events.size(), 1u);
  ASSERT_TRUE(events.count(1));
  const GroupStepEvents& step = events[1];
  ASSERT_EQ(step.sparse_core_markers.size(), 1u);
  EXPECT_EQ(step.sparse_core_markers[0].begin, 0);
  EXPECT_EQ(step.sparse_core_markers[0].end, 1000);
  ASSERT_EQ(step.events.size(), 1u);
  EXPECT_EQ(step.events[0].span.duration(), 880);
}

TEST(XprofStepEventsPorts, TpuDevicePlaneNoStepLine) {
  XSpace space;
  XPlaneBuilder tpu = AddPlane(space, "/device:TPU:0", 1);
  tpu.AddLine(0, "Steps");
  XLineBuilder ops = tpu.AddLine(1, "XLA Ops");
  for (int64_t group : {1, 2}) {
    Op(tpu, ops, "op_long_name", "op_name", (group - 1) * 100, group);
    Op(tpu, ops, "op_long_name2", "op_name2", (group - 1) * 100 + 50, group);
  }
  EXPECT_TRUE(StepEventsOf(space).empty());
}

}  // namespace
}  // namespace tbprof
