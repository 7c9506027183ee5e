// xprof's XPlaneHloFixerTest scenarios (xprof/utils/xplane_hlo_fixer_test.cc),
// ported as known-answer tests of how tbprof keys a profile's HLO programs.
// xprof repairs a metadata plane before any tool: the legacy stat name
// "HLO Proto" becomes "Hlo Proto", and a module whose name ends in "(<id>)"
// gets that id as its event metadata id, which is the program id every tool
// looks programs up by. tbprof reads the file as it is and applies the same two
// rules when it keys the programs, so each case below asserts the program id
// the repaired file would give (or that no program is found where xprof's
// fixer leaves the plane alone and there is no program either).
//
// Ported: all six cases. Each xprof case holds the string "hlo_content" where
// the proto belongs; here it is a serialized module, since tbprof parses it.
// The last test follows one such program into a tool (hlo_stats' op table).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/analysis/hlo/xspace_to_hlo_stats.h"
#include "proto/hlo.pb.h"
#include "proto/xspace_builder.h"
#include "tests/testing/hlo_fixtures.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

using tensorflow::profiler::XSpace;

// The metadata plane of xprof's cases: one module named `name` whose event
// metadata id is 1 (never the program id), holding a serialized module under
// the stat `stat_name`.
XSpace MetadataPlane(const std::string& stat_name, const std::string& name) {
  XSpace space;
  XPlaneBuilder metadata = AddPlane(space, "/host:metadata");
  auto& md = (*metadata.proto()->mutable_event_metadata())[1];
  md.set_id(1);
  md.set_name(name);
  auto* stat = md.add_stats();
  stat->set_metadata_id(metadata.StatMetadataId(stat_name));
  stat->set_bytes_value(hlo_test::ChainModule("train_step", 2).SerializeAsString());
  return space;
}

HloPrograms ProgramsOf(const XSpace& space) { return LoadHloPrograms(*ops_test::ToModel(space)); }

TEST(XprofHloFixerPort, FixesHloMetadataSuccess) {
  HloPrograms programs = ProgramsOf(MetadataPlane("HLO Proto", "train_step (12345)"));
  ASSERT_EQ(programs.by_id.size(), 1u);
  ASSERT_NE(programs.Find(12345), nullptr);
  EXPECT_EQ(programs.Find(12345)->name(), "train_step (12345)");
  EXPECT_EQ(programs.Find(1), nullptr);
}

TEST(XprofHloFixerPort, FixesHloMetadataSuccessNegativeId) {
  HloPrograms programs = ProgramsOf(MetadataPlane("HLO Proto", "train_step (-12345)"));
  ASSERT_EQ(programs.by_id.size(), 1u);
  // Program ids are unsigned here; -12345 as xprof's int64 key, the same bits.
  EXPECT_NE(programs.Find(static_cast<uint64_t>(int64_t{-12345})), nullptr);
}

TEST(XprofHloFixerPort, FixesHloMetadataSuccessLargeUnsignedId) {
  HloPrograms programs = ProgramsOf(MetadataPlane("HLO Proto", "train_step (18446744073709551615)"));
  ASSERT_EQ(programs.by_id.size(), 1u);
  EXPECT_NE(programs.Find(UINT64_MAX), nullptr);
}

// xprof leaves a plane without the HLO stat alone; such a plane holds no program.
TEST(XprofHloFixerPort, DoesNotFixIfNoLegacyHloStat) {
  XSpace space;
  XPlaneBuilder metadata = AddPlane(space, "/host:metadata");
  auto& md = (*metadata.proto()->mutable_event_metadata())[1];
  md.set_id(1);
  md.set_name("train_step (12345)");
  EXPECT_TRUE(ProgramsOf(space).empty());
}

TEST(XprofHloFixerPort, FixesEvenIfHloStatAlreadyHasExpectedName) {
  HloPrograms programs = ProgramsOf(MetadataPlane("Hlo Proto", "train_step (12345)"));
  ASSERT_EQ(programs.by_id.size(), 1u);
  EXPECT_NE(programs.Find(12345), nullptr);
  EXPECT_EQ(programs.Find(1), nullptr);
}

TEST(XprofHloFixerPort, SkipsIfNoHloStatInEvent) {
  HloPrograms programs = ProgramsOf(MetadataPlane("Other Stat", "train_step (12345)"));
  EXPECT_TRUE(programs.empty());
}

// Not xprof's: names without a trailing "(<digits>)" keep the metadata id,
// which is how current profilers key their modules.
TEST(XprofHloFixerPort, OtherNamesKeepTheMetadataId) {
  for (const char* name : {"train_step", "train_step (12a)", "train_step ()", "f(3) g", "x (99999999999999999999)"}) {
    HloPrograms programs = ProgramsOf(MetadataPlane("Hlo Proto", name));
    EXPECT_NE(programs.Find(1), nullptr) << name;
  }
}

// A TPU op of program 12345 in a libtpu 0.0.37 file finds its instruction:
// the op table takes the expression and category from the module.
TEST(XprofHloFixerPort, ALegacyProgramServesTheOpTable) {
  XSpace space = MetadataPlane("HLO Proto", "train_step (12345)");
  XPlaneBuilder tpu = AddPlane(space, "/device:TPU:0", 1);
  auto* md = tpu.EventMetadata("op.1");
  auto* stat = md->add_stats();
  stat->set_metadata_id(tpu.StatMetadataId("program_id"));
  stat->set_int64_value(12345);
  tpu.AddLine(1, "XLA Ops").AddEvent("op.1", 0, 100);
  HloOpDb db = ConvertXSpaceToHloOpDb(*ops_test::ToModel(space));
  const HloOpMetrics* op = nullptr;
  for (const HloOpMetrics& m : db.ops) {
    if (m.name == "op.1") op = &m;
  }
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->program_id, 12345u);
  ASSERT_NE(op->instruction, nullptr);
  EXPECT_EQ(op->instruction->opcode(), "negate");
  EXPECT_EQ(db.ProgramName(12345), "train_step(12345)");
}

}  // namespace
}  // namespace tbprof
