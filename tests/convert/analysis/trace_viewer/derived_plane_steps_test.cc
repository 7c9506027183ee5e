// Two steps of the derived timelines on their own: the derived plane's
// builder (its names, lines and step names) and the names a kernel's stats
// give the derived events. Expected names and counts are written out by hand
// from the inputs below.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "convert/analysis/trace_viewer/derived_plane_builder.h"
#include "convert/analysis/trace_viewer/kernel_event_names.h"

namespace tbprof::derived {
namespace {

std::string MetadataName(const StringTable& strings, const XPlaneModel& plane, uint32_t md) {
  return std::string(strings.View(plane.event_metadata[md].name));
}

TEST(DerivedPlaneBuilder, OneMetadataPerNameAndStepNamesOnTheStepsLine) {
  EventGroups groups;
  groups.group_names[4] = "train_step 4";
  StringTable strings;
  DerivedPlaneBuilder plane(7, "/device:GPU:0", groups, strings);
  const uint32_t a = plane.Metadata("4");
  EXPECT_EQ(plane.Metadata("4", "shown"), a);  // the same name: the same metadata
  DerivedLine steps(Growth::kOverAnyGap);
  steps.ExpandOrAdd(a, 0, 100, 4);
  steps.ExpandOrAdd(a, 100, 250, 4);  // grows the event
  plane.AddLine(2, 0, "Steps", steps, /*steps=*/true);
  DerivedLine empty(Growth::kOverAnyGap);
  plane.AddLine(3, 0, "Nothing", empty);  // no events: no line
  plane.ReplaceFileLine(1);
  std::optional<DerivedPlane> done = std::move(plane).Finish();

  ASSERT_TRUE(done.has_value());
  const XPlaneModel& p = done->plane;
  EXPECT_EQ(p.id, 7);
  ASSERT_EQ(p.lines.size(), 1u);
  ASSERT_EQ(p.events.size(), 1u);
  EXPECT_EQ(p.events[0].duration_ps, 250);
  EXPECT_EQ(MetadataName(strings, p, p.events[0].metadata), "4");
  EXPECT_EQ(strings.View(p.event_metadata[a].display_name), "shown");
  ASSERT_EQ(p.event_stats.size(), 1u);
  EXPECT_EQ(strings.View(p.event_stats[0].name), "step_name");
  EXPECT_EQ(strings.View(p.event_stats[0].str), "train_step 4");
  EXPECT_EQ(done->replaced_file_lines, std::vector<uint32_t>{1});
  EXPECT_EQ(done->group_runs.Find(0, kNoGroup), 4);
}

TEST(DerivedPlaneBuilder, APlaneWithoutLinesIsNotAdded) {
  EventGroups groups;
  StringTable strings;
  DerivedPlaneBuilder plane(1, "/host:CPU", groups, strings);
  plane.Metadata("unused");
  EXPECT_FALSE(std::move(plane).Finish().has_value());
}

TEST(KernelEventNames, FrameworkOpGivesItsScopesAndType) {
  XSpaceModel space;
  EventGroups groups;
  StringTable strings;
  DerivedPlaneBuilder plane(1, "/device:GPU:0", groups, strings);
  HloPrograms programs;
  KernelEventNames names(space, programs, plane);
  const auto& op = names.FrameworkOp("model/dense/MatMul:MatMul");
  ASSERT_TRUE(op.scoped);
  ASSERT_EQ(op.scopes.size(), 2u);
  EXPECT_EQ(MetadataName(strings, plane.plane(), op.scopes[0]), "model");
  EXPECT_EQ(MetadataName(strings, plane.plane(), op.scopes[1]), "dense");
  EXPECT_EQ(MetadataName(strings, plane.plane(), op.op), "model/dense/MatMul:MatMul");
  EXPECT_EQ(strings.View(plane.plane().event_metadata[op.op].display_name), "MatMul");
  EXPECT_EQ(&names.FrameworkOp("model/dense/MatMul:MatMul"), &op);  // looked up once
}

TEST(KernelEventNames, XlaOpLevelsAndModuleAreNamedByProgram) {
  XSpaceModel space;
  KernelStats k;
  k.hlo_module = space.strings.Intern("jit_step");
  k.hlo_op = space.strings.Intern("while.1::fusion.2");
  k.has_program_id = true;
  k.program_id = 12;
  EventGroups groups;
  StringTable strings;
  DerivedPlaneBuilder plane(1, "/device:GPU:0", groups, strings);
  HloPrograms programs;
  KernelEventNames names(space, programs, plane);
  EXPECT_EQ(MetadataName(strings, plane.plane(), names.ModuleMetadata(k)), "jit_step(12)");
  const std::vector<uint32_t>& levels = names.HloOpMetadata(k);
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(MetadataName(strings, plane.plane(), levels[0]), "12/while.1");
  EXPECT_EQ(MetadataName(strings, plane.plane(), levels[1]), "12/fusion.2");
  EXPECT_EQ(strings.View(plane.plane().event_metadata[levels[1]].display_name), "fusion.2");
  // No module proto for program 12: nothing known of the op's framework op.
  EXPECT_EQ(names.SymbolOfXlaOp(k).op, nullptr);
}

}  // namespace
}  // namespace tbprof::derived
