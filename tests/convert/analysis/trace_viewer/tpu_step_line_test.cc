// A TPU step line as xprof's grouping rewrites it (MergeHostSteps): worked
// out by hand on grouping_fixtures' MergeHostStepsSpace, whose host step
// "train" (step_num 1) launched four programs that ran as four steps.
#include <gtest/gtest.h>

#include "convert/analysis/trace_viewer/tpu_step_line.h"
#include "convert/grouping/group_events.h"
#include "proto/xspace_builder.h"
#include "tests/testing/grouping_fixtures.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof::derived {
namespace {

const Stat* Named(const std::vector<Stat>& stats, const StringTable& strings, std::string_view name) {
  for (const Stat& s : stats) {
    if (strings.View(s.name) == name) return &s;
  }
  return nullptr;
}

TEST(TpuStepLine, FourStepsOfOneGroupMergeIntoOne) {
  auto m = ops_test::ToModel(grouping_test::MergeHostStepsSpace());
  EventGroups groups = GroupEvents(*m);
  StringTable strings;
  ASSERT_EQ(m->Str(m->planes[1].name), "/device:TPU:0");
  ASSERT_EQ(TpuStepLine(*m, m->planes[1]), 1u);
  std::vector<MergedTpuStep> merged = MergeTpuSteps(*m, 1, groups, strings);
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].begin_ps, 1000);
  EXPECT_EQ(merged[0].end_ps, 1205);
  EXPECT_EQ(m->Str(m->planes[1].EventName(merged[0].first_event)), "0");  // the first step's event is kept
  const Stat* offset = Named(merged[0].stats, strings, "device_offset_ps");
  const Stat* duration = Named(merged[0].stats, strings, "device_duration_ps");
  const Stat* idle = Named(merged[0].stats, strings, "step_idle_time_ps");
  const Stat* name = Named(merged[0].stats, strings, "step_name");
  ASSERT_TRUE(offset && duration && idle && name);
  EXPECT_EQ(offset->i64, 1000);
  EXPECT_EQ(duration->i64, 205);
  EXPECT_EQ(idle->i64, 0);
  EXPECT_EQ(strings.View(name->str), "train 1");
}

TEST(TpuStepLine, IdleTimesAddUpAndUngroupedStepsLeaveTheLineAlone) {
  tensorflow::profiler::XSpace space = grouping_test::MergeHostStepsSpace();
  XPlaneBuilder tc = AddPlane(space, "/device:TPU:1", 1);
  XLineBuilder steps = tc.AddLine(1, "Steps");
  // A second core whose steps no host step launched: grouping numbers them
  // in lock step only when no core joined a host step, so they stay ungrouped.
  steps.AddEvent("a", 0, 10).Int("step_idle_time_ps", 3);
  steps.AddEvent("b", 20, 10).Int("step_idle_time_ps", 4);
  // Idle times on the first core's steps 1 and 3.
  auto* tc0_steps = space.mutable_planes(1)->mutable_lines(1);
  for (int i : {1, 3}) {
    auto* stat = tc0_steps->mutable_events(i)->add_stats();
    stat->set_metadata_id(1000);
    stat->set_int64_value(i == 1 ? 40 : 2);
  }
  (*space.mutable_planes(1)->mutable_stat_metadata())[1000].set_id(1000);
  (*space.mutable_planes(1)->mutable_stat_metadata())[1000].set_name("step_idle_time_ps");
  auto m = ops_test::ToModel(space);
  EventGroups groups = GroupEvents(*m);
  StringTable strings;
  std::vector<MergedTpuStep> merged = MergeTpuSteps(*m, 1, groups, strings);
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(Named(merged[0].stats, strings, "step_idle_time_ps")->i64, 42);
  size_t second = m->planes.size() - 1;
  ASSERT_EQ(m->Str(m->planes[second].name), "/device:TPU:1");
  EXPECT_TRUE(MergeTpuSteps(*m, second, groups, strings).empty());
}

}  // namespace
}  // namespace tbprof::derived
