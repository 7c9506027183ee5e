// Derived timelines of TPU TensorCore planes (xprof's DeriveLinesFromStats):
// framework ops, name scopes and source lines from the ops' stats, and the
// host-offload rows. Expected values are xprof's test assertions, counted by
// hand, or, for the real v6e profile, a second reading of the file outside
// tbprof (a protoc --decode dump walked by a short script).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "convert/analysis/trace_viewer/derived_timeline.h"
#include "convert/model/schema.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"
#include "tests/convert/analysis/trace_viewer/derived_timeline_test_util.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
using derived_testing::EventStats;
using derived_testing::Lines;
using derived_testing::Model;
using derived_testing::Seen;

constexpr std::string_view kTpu = "/device:TPU:0";

// Adds a string or integer stat to an event metadata of `plane`.
void MetadataStr(XPlaneBuilder& plane, std::string_view event, std::string_view stat, std::string_view value) {
  auto* s = plane.EventMetadata(event)->add_stats();
  s->set_metadata_id(plane.StatMetadataId(stat));
  s->set_str_value(std::string(value));
}
void MetadataInt(XPlaneBuilder& plane, std::string_view event, std::string_view stat, int64_t value) {
  auto* s = plane.EventMetadata(event)->add_stats();
  s->set_metadata_id(plane.StatMetadataId(stat));
  s->set_int64_value(value);
}

// xprof TfNameScopeMaintainsOrder: the scopes of the last op are stacked with
// the same span, so the inner one ends 1 ns earlier.
TEST(DerivedTimelineTpu, NameScopesKeepTheirOrder) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder tpu = AddPlane(space, kTpu, 0);
  tpu.AddLine(0, "XLA Ops").AddEvent("op1", 0, 10000).Str("tf_op", "scope1/scope2/mul:Mul").Str("kernel_details", "k");
  auto m = Model(space);
  auto lines = Lines(GenerateDerivedTimelines(*m), kTpu);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines["Framework Name Scope"].id, schema::kThreadIdTfNameScope);
  EXPECT_EQ(lines["Framework Name Scope"].events,
            (std::vector<Seen>{{"scope1", "", 0, 10000}, {"scope2", "", 0, 9000}}));
  EXPECT_EQ(lines["Framework Ops"].id, schema::kThreadIdTfOp);
  EXPECT_EQ(lines["Framework Ops"].events, (std::vector<Seen>{{"scope1/scope2/mul:Mul", "Mul", 0, 10000}}));
}

// xprof MergeAndNoMerge: without a group, a repeat extends the event only over
// a gap of at most twice its length (0..500 reaches 1500, not 1501).
TEST(DerivedTimelineTpu, UngroupedOpsMergeOverShortGapsOnly) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder tpu = AddPlane(space, kTpu, 0);
  const std::string op = "abc:model/layer/MatMul_1";
  XLineBuilder line = tpu.AddLine(0, "XLA Ops");
  line.AddEvent("op1", 0, 100).Str("hlo_module", "Framework Ops").Str("tf_op", op);
  line.AddEvent("op2", 200, 300).Str("hlo_module", "Framework Ops").Str("tf_op", op);
  line.AddEvent("op3", 1501, 300).Str("hlo_module", "Framework Ops").Str("tf_op", op);
  auto m = Model(space);
  auto lines = Lines(GenerateDerivedTimelines(*m), kTpu);
  ASSERT_EQ(lines.size(), 1u);  // not a TensorFlow or JAX op: no name scopes
  const auto& events = lines["Framework Ops"].events;
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].name, op);
  EXPECT_EQ(std::make_pair(events[0].begin, events[0].duration), std::make_pair(int64_t{0}, int64_t{500}));
  EXPECT_EQ(events[1].name, op);
  EXPECT_EQ(std::make_pair(events[1].begin, events[1].duration), std::make_pair(int64_t{1501}, int64_t{300}));
}

// Ops' metadata name the framework op and source line; the op's own stats
// override them, a group keeps events growing over any gap, and asynchronous
// ops are left out.
TEST(DerivedTimelineTpu, MetadataStatsGroupsAndAsyncOps) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder tpu = AddPlane(space, kTpu, 0);
  XLineBuilder ops = tpu.AddLine(3, "XLA Ops");
  ops.AddEvent("fusion.1", 0, 100);
  ops.AddEvent("fusion.1", 10000, 100);  // far, but both in group 4
  ops.AddEvent("fusion.2", 20000, 100).Str("tf_op", "jit(g)/mul:");
  ops.AddEvent("fusion.1", 30000, 100).Int("_a", 1);
  for (auto* e : {ops.proto()->mutable_events(0), ops.proto()->mutable_events(1)}) {
    auto* g = e->add_stats();
    g->set_metadata_id(tpu.StatMetadataId("group_id"));
    g->set_int64_value(4);
  }
  MetadataStr(tpu, "fusion.1", "tf_op", "jit(f)/jit(main)/add:");
  MetadataStr(tpu, "fusion.1", "source", "model.py:7");
  MetadataStr(tpu, "fusion.2", "tf_op", "jit(f)/sub:");
  auto m = Model(space);
  auto lines = Lines(GenerateDerivedTimelines(*m), kTpu);
  EXPECT_EQ(lines["Framework Ops"].events, (std::vector<Seen>{{"jit(f)/jit(main)/add:", "add", 0, 10100, 4},
                                                             {"jit(g)/mul:", "mul", 20000, 100}}));
  EXPECT_EQ(lines["Framework Name Scope"].events, (std::vector<Seen>{{"jit(f)", "", 0, 10100, 4},
                                                                    {"jit(main)", "", 0, 9100, 4},
                                                                    {"jit(g)", "", 20000, 100}}));
  EXPECT_EQ(lines["Source code"].id, schema::kThreadIdSource);
  EXPECT_EQ(lines["Source code"].events, (std::vector<Seen>{{"model.py:7", "", 0, 10100, 4}}));
}

// HostOffloadEventProcessor: copies to or from host memory ("S(5)") span start
// to done and take the first row free when they begin.
TEST(DerivedTimelineTpu, HostOffloadRows) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder tpu = AddPlane(space, kTpu, 0);
  const std::string start1 = "%copy-start.1 = (f32[8]{0}, f32[8]{0:S(5)}) copy-start(f32[8]{0} %p)";
  const std::string done1 = "%copy-done.1 = f32[8]{0:S(5)} copy-done(%copy-start.1)";
  const std::string start2 = "%copy-start.2 = (f32[4]{0:S(5)}, f32[4]{0}) copy-start(f32[4]{0:S(5)} %q)";
  const std::string done2 = "%copy-done.2 = f32[4]{0} copy-done((f32[4]{0:S(5)}, f32[4]{0}) %copy-start.2)";
  const std::string done3 = "%copy-done.3 = f32[2]{0:S(5)} copy-done(%copy-start.3)";
  const std::string on_device = "%copy-start.4 = (f32[8]{0}, f32[8]{0}) copy-start(f32[8]{0} %r)";
  XLineBuilder ops = tpu.AddLine(3, "XLA Ops");
  ops.AddEvent(start1, 100, 100);
  ops.AddEvent(start2, 150, 100);
  ops.AddEvent(on_device, 160, 10);
  ops.AddEvent(done3, 170, 10);  // its start was not traced
  ops.AddEvent(done1, 1000, 100);
  ops.AddEvent(done2, 1200, 100);
  ops.AddEvent(start1, 2000, 100);
  ops.AddEvent(done1, 2500, 100);
  for (const auto& [name, shown] : std::map<std::string, std::string>{
           {start1, "copy-start.1"}, {done1, "copy-done.1"}, {start2, "copy-start.2"}, {done2, "copy-done.2"},
           {done3, "copy-done.3"}, {on_device, "copy-start.4"}}) {
    tpu.EventMetadata(name)->set_display_name(shown);
  }
  MetadataStr(tpu, start1, "shape_with_layout", "(f32[8]{0}, f32[8]{0:S(5)})");
  MetadataInt(tpu, done1, "raw_bytes_accessed", 64);
  MetadataStr(tpu, start2, "shape_with_layout", "(f32[4]{0:S(5)}, f32[4]{0})");
  auto m = Model(space);
  const DerivedTimelines d = GenerateDerivedTimelines(*m);
  auto lines = Lines(d, kTpu);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines["Host Offload Ops row 0"].id, schema::kThreadIdHostOffloadOpStart);
  EXPECT_EQ(lines["Host Offload Ops row 0"].events,
            (std::vector<Seen>{{"", "offload-copy.1", 100, 1000}, {"", "offload-copy.1", 2000, 600}}));
  EXPECT_EQ(lines["Host Offload Ops row 1"].id, schema::kThreadIdHostOffloadOpStart + 1);
  EXPECT_EQ(lines["Host Offload Ops row 1"].events, (std::vector<Seen>{{"", "offload-copy.2", 150, 1150}}));
  EXPECT_EQ(EventStats(d, kTpu, "Host Offload Ops row 0", 0),
            (std::map<std::string, std::string>{
                {"_a", "1"}, {"raw_bytes_accessed", "64"}, {"shape_with_layout", "(f32[8]{0}, f32[8]{0:S(5)})"}}));
  EXPECT_EQ(EventStats(d, kTpu, "Host Offload Ops row 1", 0),
            (std::map<std::string, std::string>{{"_a", "1"}, {"shape_with_layout", "(f32[4]{0:S(5)}, f32[4]{0})"}}));
}

// A plane that already has its framework lines (a file saved after this
// processing) gets none again; SparseCore planes get none.
TEST(DerivedTimelineTpu, ExistingLinesAndSparseCores) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder tpu = AddPlane(space, kTpu, 0);
  tpu.AddLine(3, "XLA Ops").AddEvent("fusion", 0, 10).Str("tf_op", "a/b:C");
  tpu.AddLine(schema::kThreadIdTfOp, "Framework Ops").AddEvent("a/b:C", 0, 10);
  XPlaneBuilder sc = AddPlane(space, "/device:TPU:0 SparseCore 0", 1);
  sc.AddLine(3, "Sparse Core Ops").AddEvent("fusion", 0, 10).Str("tf_op", "a/b:C");
  auto m = Model(space);
  EXPECT_TRUE(GenerateDerivedTimelines(*m).empty());
}

// The JAX v6e profile (4 TensorCores, a host-offload stress test): per core,
// the number of events of each derived line, and the first ones of core 0, as
// a second reading of the file counts them.
TEST(DerivedTimelineTpu, RealV6eProfileMatchesASecondReading) {
  const fs::path path = fs::path(TBPROF_TESTDATA) / "xplane/jax_tpu_v6e/tpu_inference_2.xplane.pb";
  if (!fs::exists(path)) GTEST_FAIL() << "required: no testdata at " << path;
  auto m = LoadXSpaceFile(path.string());
  ASSERT_TRUE(m.ok()) << m.status().message();
  const DerivedTimelines d = GenerateDerivedTimelines(**m);
  struct Counts {
    size_t ops, scopes, sources;
    std::vector<size_t> rows;
  };
  const std::map<std::string, Counts> expected = {
      {"/device:TPU:0", {159, 318, 159, {90, 90, 89, 57, 56, 55, 54, 54, 53}}},
      {"/device:TPU:1", {5, 10, 5, {71, 72, 71, 66, 65, 64, 64, 63, 62}}},
      {"/device:TPU:2", {303, 606, 303, {89, 89, 88, 58, 57, 55, 55, 54, 54}}},
      {"/device:TPU:3", {242, 484, 242, {78, 78, 78, 64, 62, 61, 60, 59, 58}}}};
  for (const auto& [plane, want] : expected) {
    SCOPED_TRACE(plane);
    auto lines = Lines(d, plane);
    EXPECT_EQ(lines.size(), 3 + want.rows.size());
    EXPECT_EQ(lines["Framework Ops"].events.size(), want.ops);
    EXPECT_EQ(lines["Framework Name Scope"].events.size(), want.scopes);
    EXPECT_EQ(lines["Source code"].events.size(), want.sources);
    for (size_t row = 0; row < want.rows.size(); ++row) {
      EXPECT_EQ(lines["Host Offload Ops row " + std::to_string(row)].events.size(), want.rows[row]) << row;
    }
  }
  auto core0 = Lines(d, "/device:TPU:0");
  const auto& ops = core0["Framework Ops"].events;
  ASSERT_EQ(ops.size(), 159u);
  EXPECT_EQ(ops[0].name, "jit(broadcast_in_dim)/jit(main)/broadcast_in_dim:");
  EXPECT_EQ(std::make_pair(ops[0].begin, ops[0].duration), std::make_pair(int64_t{5439011744500}, int64_t{4443766328}));
  EXPECT_EQ(ops[1].name, "jit(_psum)/jit(main)/reduce_sum:");
  EXPECT_EQ(std::make_pair(ops[1].begin, ops[1].duration), std::make_pair(int64_t{7495498089000}, int64_t{121687640000}));
  // The last add keeps growing: each repeat starts within twice its length so far.
  EXPECT_EQ(ops[158].name, "jit(f)/jit(main)/add:");
  EXPECT_EQ(std::make_pair(ops[158].begin, ops[158].duration),
            std::make_pair(int64_t{59884052045000}, int64_t{37877195078328}));
  const auto& scopes = core0["Framework Name Scope"].events;
  EXPECT_EQ(std::make_pair(scopes[0].name, scopes[0].duration), std::make_pair(std::string("jit(broadcast_in_dim)"), int64_t{4443766328}));
  EXPECT_EQ(std::make_pair(scopes[1].name, scopes[1].duration), std::make_pair(std::string("jit(main)"), int64_t{4443765328}));
  EXPECT_EQ(std::make_pair(scopes[317].name, scopes[317].duration), std::make_pair(std::string("jit(main)"), int64_t{37877195077328}));
  const auto& sources = core0["Source code"].events;
  EXPECT_EQ(sources[1].name, "experimental/users/davelacey/host_offload_stress_test/host_offload_stress_test.py:38");
  EXPECT_EQ(std::make_pair(sources[1].begin, sources[1].duration), std::make_pair(int64_t{7495498089000}, int64_t{121687640000}));
  const auto& row0 = core0["Host Offload Ops row 0"].events;
  EXPECT_EQ(row0[0], (Seen{"", "offload-copy.0", 19500542949500, 189172518906}));
  EXPECT_EQ(EventStats(d, "/device:TPU:0", "Host Offload Ops row 0", 0),
            (std::map<std::string, std::string>{
                {"_a", "1"},
                {"raw_bytes_accessed", "5368709120"},
                {"shape_with_layout",
                 "(f32[5,1024,1024,256]{3,2,1,0:T(8,128)}, f32[5,1024,1024,256]{3,2,1,0:T(8,128)S(5)}, u32[]{:S(2)})"}}));
}

}  // namespace
}  // namespace tbprof
