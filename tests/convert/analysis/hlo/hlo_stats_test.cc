// The HLO op table and the cost model on a hand-built GPU XSpace whose HLO
// module's FLOPs are counted by hand, and on the real JAX profiles (op times
// equal the sums of their device events, counted here with libprotobuf's
// generated XSpace classes).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>

#include "convert/analysis/hlo_program/hlo_cost_model.h"
#include "convert/analysis/hlo/op_profile.h"
#include "convert/analysis/op_stats_pages/op_stats_to_tf_stats.h"
#include "convert/analysis/hlo/roofline.h"
#include "convert/analysis/hlo/xspace_to_hlo_stats.h"
#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/hlo.pb.h"
#include "proto/xspace_builder.h"
#include "tests/testing/hlo_fixtures.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace json = boost::json;
using tensorflow::profiler::XSpace;

xla::ShapeProto Shape(xla::PrimitiveType t, std::vector<int64_t> dims) {
  xla::ShapeProto s;
  s.set_element_type(t);
  for (int64_t d : dims) s.add_dimensions(d);
  return s;
}

struct ModuleBuilder {
  xla::HloModuleProto* module;
  int64_t next_id = 1;
  xla::HloComputationProto* Computation(const std::string& name, int64_t id) {
    auto* c = module->add_computations();
    c->set_name(name);
    c->set_id(id);
    return c;
  }
  xla::HloInstructionProto* Add(xla::HloComputationProto* c, const std::string& name, const std::string& opcode,
                                xla::ShapeProto shape, std::vector<const xla::HloInstructionProto*> operands = {}) {
    auto* i = c->add_instructions();
    i->set_name(name);
    i->set_opcode(opcode);
    *i->mutable_shape() = std::move(shape);
    i->set_id(next_id++);
    for (auto* o : operands) i->add_operand_ids(o->id());
    c->set_root_id(i->id());
    return i;
  }
};

// Module "jit_step": dot, a loop fusion (add + multiply on f32[1024]), a convolution,
// a reduce and a command buffer (call of a computation holding fusion.2).
xla::HloProto StepModule() {
  xla::HloProto proto;
  ModuleBuilder b{proto.mutable_hlo_module()};
  b.module->set_name("jit_step");
  auto* adder = b.Computation("add_reducer", 10);
  auto* x = b.Add(adder, "x", "parameter", Shape(xla::F32, {}));
  auto* y = b.Add(adder, "y", "parameter", Shape(xla::F32, {}));
  b.Add(adder, "sum", "add", Shape(xla::F32, {}), {x, y});
  auto* fused = b.Computation("fused_computation", 11);
  auto* p0 = b.Add(fused, "p0", "parameter", Shape(xla::F32, {1024}));
  auto* p1 = b.Add(fused, "p1", "parameter", Shape(xla::F32, {1024}));
  auto* add = b.Add(fused, "add.1", "add", Shape(xla::F32, {1024}), {p0, p1});
  b.Add(fused, "multiply.1", "multiply", Shape(xla::F32, {1024}), {add, p1});
  auto* fused2 = b.Computation("fused_computation.2", 12);
  auto* q0 = b.Add(fused2, "q0", "parameter", Shape(xla::F32, {256}));
  b.Add(fused2, "negate.2", "negate", Shape(xla::F32, {256}), {q0});
  auto* cmd = b.Computation("command_buffer", 13);
  auto* c0 = b.Add(cmd, "c0", "parameter", Shape(xla::F32, {256}));
  auto* f2 = b.Add(cmd, "fusion.2", "fusion", Shape(xla::F32, {256}), {c0});
  f2->set_fusion_kind("kLoop");
  f2->add_called_computation_ids(12);
  auto* entry = b.Computation("main", 14);
  auto* a = b.Add(entry, "a", "parameter", Shape(xla::F32, {64, 128}));
  auto* w = b.Add(entry, "w", "parameter", Shape(xla::F32, {128, 32}));
  auto* dot = b.Add(entry, "dot.1", "dot", Shape(xla::F32, {64, 32}), {a, w});
  dot->mutable_dot_dimension_numbers()->add_lhs_contracting_dimensions(1);
  dot->mutable_dot_dimension_numbers()->add_rhs_contracting_dimensions(0);
  dot->mutable_metadata()->set_op_name("jit(step)/dot_general");
  dot->mutable_metadata()->set_source_file("/src/model.py");
  dot->mutable_metadata()->set_source_line(42);
  auto* v0 = b.Add(entry, "v0", "parameter", Shape(xla::F32, {1024}));
  auto* v1 = b.Add(entry, "v1", "parameter", Shape(xla::F32, {1024}));
  auto* fusion = b.Add(entry, "fusion.1", "fusion", Shape(xla::F32, {1024}), {v0, v1});
  fusion->set_fusion_kind("kLoop");
  fusion->add_called_computation_ids(11);
  auto* img = b.Add(entry, "img", "parameter", Shape(xla::F32, {1, 8, 8, 3}));
  auto* ker = b.Add(entry, "ker", "parameter", Shape(xla::F32, {3, 3, 3, 16}));
  auto* conv = b.Add(entry, "convolution.1", "convolution", Shape(xla::F32, {1, 6, 6, 16}), {img, ker});
  auto* dn = conv->mutable_convolution_dimension_numbers();
  dn->set_input_batch_dimension(0), dn->set_input_feature_dimension(3);
  dn->add_input_spatial_dimensions(1), dn->add_input_spatial_dimensions(2);
  dn->set_kernel_input_feature_dimension(2), dn->set_kernel_output_feature_dimension(3);
  dn->add_kernel_spatial_dimensions(0), dn->add_kernel_spatial_dimensions(1);
  dn->set_output_batch_dimension(0), dn->set_output_feature_dimension(3);
  dn->add_output_spatial_dimensions(1), dn->add_output_spatial_dimensions(2);
  // The same convolution as the DNN library runs it: (result, scratch).
  xla::ShapeProto with_scratch;
  with_scratch.set_element_type(xla::TUPLE);
  *with_scratch.add_tuple_shapes() = Shape(xla::F32, {1, 6, 6, 16});
  *with_scratch.add_tuple_shapes() = Shape(xla::U8, {4096});
  auto* dnn_conv = b.Add(entry, "cudnn-conv.1", "custom-call", with_scratch, {img, ker});
  dnn_conv->set_custom_call_target("__cudnn$convForward");
  *dnn_conv->mutable_convolution_dimension_numbers() = *dn;
  auto* m = b.Add(entry, "m", "parameter", Shape(xla::F32, {100, 10}));
  auto* zero = b.Add(entry, "zero", "constant", Shape(xla::F32, {}));
  auto* reduce = b.Add(entry, "reduce.1", "reduce", Shape(xla::F32, {100}), {m, zero});
  reduce->add_dimensions(1);
  reduce->add_called_computation_ids(10);
  auto* cin = b.Add(entry, "cin", "parameter", Shape(xla::F32, {256}));
  auto* call = b.Add(entry, "call.1", "call", Shape(xla::F32, {256}), {cin});
  call->add_called_computation_ids(13);
  auto* opaque = b.Add(entry, "custom-call.1", "custom-call", Shape(xla::F32, {256}), {cin});
  opaque->set_custom_call_target("my_library_kernel");  // FLOPs no cost model can tell
  auto* attention = b.Add(entry, "custom-call.2", "custom-call", Shape(xla::F32, {256}), {cin});
  attention->set_custom_call_target("another_library_kernel");
  attention->mutable_metadata()->set_op_name("jit(step)/attention");
  b.module->set_entry_computation_id(14);
  return proto;
}

constexpr int64_t kUs = 1000000;  // ps

// annotated_kernel: one more run of dot.1, on a second stream at 100 us, with
// launch details (kernel_stats reports only kernels with them) and an
// annotation naming another op.
XSpace StepSpace(bool annotated_kernel = false) {
  XSpace space;
  hlo_test::AddMetadataPlane(space, {{7, StepModule()}});  // program 7
  XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 1);
  gpu.Int("compute_cap_major", 9).Int("compute_cap_minor", 0).Int("core_count", 132);
  gpu.Int("clock_rate", 1980000).Int("memory_bandwidth", 3350000000000LL);
  gpu.Int("memory_size", int64_t{80} << 30).Str("device_vendor", "Nvidia");
  XLineBuilder line = gpu.AddLine(1, "Stream #1(Kernel)");
  auto kernel = [&](const char* name, const char* hlo_op, int64_t begin_us, int64_t dur_us) {
    line.AddEvent(name, begin_us * kUs, dur_us * kUs).Str("hlo_op", hlo_op).Int("program_id", 7);
  };
  kernel("gemm_a", "dot.1", 0, 10);   // one occurrence of dot.1 as two kernels
  kernel("gemm_b", "dot.1", 10, 5);
  kernel("loop_fusion", "fusion.1", 20, 4);
  kernel("gemm_a", "dot.1", 30, 10);  // second occurrence
  kernel("conv", "convolution.1", 50, 3);
  kernel("reduce_kernel", "reduce.1", 60, 1);
  kernel("fusion_2", "call.1", 70, 2);         // command buffer: matches fusion.2 by kernel name
  kernel("library_gemm", "call.1", 72, 3);     // command buffer: no match, stays on call.1
  if (annotated_kernel) {
    gpu.AddLine(2, "Stream #2(Kernel)")
        .AddEvent("gemm_c", 100 * kUs, 5 * kUs)
        .Str("hlo_op", "dot.1")
        .Int("program_id", 7)
        .Str("name", "jit(step)/stale_annotation")
        .Ref("kernel_details", "regs:64 static_shared:0 dynamic_shared:0 grid:1,1,1 block:128,1,1 occ_pct:50");
    // A custom call the cost model cannot count, run as two kernels: its
    // FLOPs are the ones the profiler wrote on them, its bytes still the
    // instruction's.
    XLineBuilder library = gpu.AddLine(3, "Stream #3(Kernel)");
    for (int64_t begin_us : {110, 112}) {
      library.AddEvent("my_library_kernel", begin_us * kUs, 2 * kUs)
          .Str("hlo_op", "custom-call.1")
          .Int("program_id", 7)
          .Int("flops", 12345)
          .Int("bytes_accessed", 99);
    }
    // Another one, with no FLOPs from the profiler either: they are unknown.
    library.AddEvent("another_library_kernel", 120 * kUs, 2 * kUs).Str("hlo_op", "custom-call.2").Int("program_id", 7);
  }
  return space;
}

std::unique_ptr<XSpaceModel> Model(const XSpace& space) {
  auto m = ParseXSpace(space.SerializeAsString(), "test");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

const HloOpMetrics* Op(const HloOpDb& db, const std::string& name) {
  for (const HloOpMetrics& m : db.ops) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

TEST(HloCostModel, HandCountedFlops) {
  auto program = HloProgram::Parse(7, "jit_step", StepModule().SerializeAsString());
  ASSERT_TRUE(program.ok());
  const HloProgram& p = **program;
  // dot [64,128]x[128,32]: 2*64*32*128.
  HloCost dot = HloInstructionCost(p, *p.FindInstruction("dot.1"));
  EXPECT_DOUBLE_EQ(dot.flops, 524288);
  EXPECT_DOUBLE_EQ(dot.bytes_accessed, (64 * 128 + 128 * 32 + 64 * 32) * 4.0);
  // fusion: add + multiply on 1024 elements; bytes: two operands + output.
  HloCost fusion = HloInstructionCost(p, *p.FindInstruction("fusion.1"));
  EXPECT_DOUBLE_EQ(fusion.flops, 2048);
  EXPECT_DOUBLE_EQ(fusion.bytes_accessed, 3 * 1024 * 4.0);
  // convolution: 2 * (1*6*6*16 outputs) * (3*3 window) * 3 input features.
  EXPECT_DOUBLE_EQ(HloInstructionCost(p, *p.FindInstruction("convolution.1")).flops, 31104);
  // The DNN library's run of it: the same FLOPs; bytes of the image, the
  // kernel and the result (768 + 1728 + 2304), its 4096-byte scratch left out.
  HloCost dnn = HloInstructionCost(p, *p.FindInstruction("cudnn-conv.1"));
  EXPECT_TRUE(dnn.flops_known);
  EXPECT_DOUBLE_EQ(dnn.flops, 31104);
  EXPECT_DOUBLE_EQ(dnn.bytes_accessed, 4800);
  // reduce [100,10] -> [100] with an add: 900 additions.
  EXPECT_DOUBLE_EQ(HloInstructionCost(p, *p.FindInstruction("reduce.1")).flops, 900);
  EXPECT_DOUBLE_EQ(HloInstructionCost(p, *p.FindInstruction("zero")).bytes_accessed, 0);
}

TEST(HloOpDb, GpuKernelsCommandBuffersAndPeaks) {
  XSpace space = StepSpace();
  HloOpDb db = ConvertXSpaceToHloOpDb(*Model(space));
  ASSERT_EQ(db.programs.by_id.size(), 1u);
  EXPECT_EQ(db.ProgramName(7), "jit_step(7)");
  const HloOpMetrics* dot = Op(db, "dot.1");
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->occurrences, 2u);
  EXPECT_EQ(dot->time_ps, uint64_t{25} * kUs);
  EXPECT_DOUBLE_EQ(dot->flops, 2 * 524288.0);
  EXPECT_EQ(dot->provenance, "jit(step)/dot_general");
  EXPECT_EQ(dot->source_info, "model.py:42");
  EXPECT_EQ(dot->category, "convolution");
  EXPECT_EQ(Op(db, "fusion.1")->category, "loop fusion");
  const HloOpMetrics* f2 = Op(db, "fusion.2");
  ASSERT_NE(f2, nullptr);
  EXPECT_EQ(f2->time_ps, uint64_t{2} * kUs);
  EXPECT_DOUBLE_EQ(f2->flops, 256);
  const HloOpMetrics* call = Op(db, "call.1");
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->time_ps, uint64_t{3} * kUs);
  // Span 0..75 us, kernels 38 us: 37 us idle.
  EXPECT_EQ(db.total_time_ps, uint64_t{75} * kUs);
  EXPECT_EQ(Op(db, "IDLE")->self_time_ps, uint64_t{37} * kUs);
  // Hopper at the profile's 1.98 GHz: 132 SMs x 4096 FLOPs a clock; bandwidth from the profile.
  EXPECT_EQ(db.peaks.device_type, "Nvidia GPU (Hopper)");
  EXPECT_NEAR(db.peaks.peak_tflops, 132 * 4096 * 1.98 / 1e3, 1e-9);
  EXPECT_DOUBLE_EQ(db.peaks.hbm_gbps, 3350);
}

// The OpStats step (framework_op_stats, overview, kernel_stats) takes a GPU
// XLA op's category, framework op and cost from its HLO instruction, as
// xprof's GPU op metrics do from its HLO module map: values counted by hand.
TEST(HloOnGpuOpStats, OpsTakeTheirInstructionsCategoryFrameworkOpAndCost) {
  XSpace space = StepSpace(/*annotated_kernel=*/true);
  auto model = Model(space);
  OpStats s = ConvertXSpaceToOpStats(*model);
  const OpMetrics& dot = s.device_op_metrics_db.ops.at(OpKey("dot.1", 7));
  // gemm_a + gemm_b (one run), gemm_a, gemm_c: three runs.
  EXPECT_EQ(dot.occurrences, 3u);
  EXPECT_EQ(dot.category, "convolution");
  EXPECT_EQ(dot.provenance, "jit(step)/dot_general");
  EXPECT_DOUBLE_EQ(dot.flops, 3 * 524288.0);  // 2*64*32*128 a run
  EXPECT_EQ(dot.bytes_accessed, uint64_t{3} * (64 * 128 + 128 * 32 + 64 * 32) * 4);
  // fusion.1's instruction names no framework op: it stands for itself.
  EXPECT_EQ(s.device_op_metrics_db.ops.at(OpKey("fusion.1", 7)).provenance, "");
  EXPECT_EQ(s.device_op_metrics_db.ops.at(OpKey("fusion.1", 7)).category, "loop fusion");
  // Both kernels' FLOPs, one occurrence's bytes.
  const OpMetrics& opaque = s.device_op_metrics_db.ops.at(OpKey("custom-call.1", 7));
  EXPECT_EQ(opaque.occurrences, 1u);
  EXPECT_DOUBLE_EQ(opaque.flops, 2 * 12345.0);
  EXPECT_EQ(opaque.bytes_accessed, uint64_t{2} * 256 * 4);  // operand and result
  // hlo_stats counts them the same way.
  HloOpDb hlo = ConvertXSpaceToHloOpDb(*model);
  ASSERT_NE(Op(hlo, "custom-call.1"), nullptr);
  EXPECT_DOUBLE_EQ(Op(hlo, "custom-call.1")->flops, 2 * 12345.0);
  EXPECT_DOUBLE_EQ(Op(hlo, "custom-call.1")->bytes_accessed, 2 * 256 * 4.0);
  EXPECT_DOUBLE_EQ(Op(hlo, "dot.1")->flops, 3 * 524288.0);
  const OpMetrics& jax_op = s.device_tf_op_metrics_db.ops.at("jit(step)/dot_general");
  EXPECT_DOUBLE_EQ(jax_op.flops, 3 * 524288.0);
  ASSERT_EQ(s.kernel_stats_db.reports_size(), 1);
  EXPECT_EQ(s.kernel_stats_db.reports(0).op_name(), "jit(step)/dot_general");

  // framework_op_stats: 1572864 FLOPs in 30 us is 52.43 GFLOP/s, 0.0053 % of
  // the H100's 989 TFLOP/s; 172032 bytes in 30 us is 5.73 GB/s, 0.17 % of its
  // 3350 GB/s: bound by HBM.
  tensorflow::profiler::TfStatsDatabase db = ConvertOpStatsToTfStats(s);
  const tensorflow::profiler::TfStatsRecord* record = nullptr;
  for (const auto& r : db.without_idle().tf_stats_record()) {
    if (r.op_name() == "jit(step)/dot_general") record = &r;
  }
  ASSERT_NE(record, nullptr);
  EXPECT_NEAR(record->measured_flop_rate(), 1572864.0 / 30000.0, 1e-9);
  EXPECT_EQ(record->bound_by(), "HBM");
  // custom-call.2's FLOPs are unknown: 2048 bytes in 2 us is 0.03 % of the
  // HBM peak, but its compute might be anything, so no bound is named (xprof
  // counts the FLOPs as 0 and says HBM).
  EXPECT_TRUE(s.device_op_metrics_db.ops.at(OpKey("custom-call.2", 7)).flops_unknown);
  const tensorflow::profiler::TfStatsRecord* attention = nullptr;
  for (const auto& r : db.without_idle().tf_stats_record()) {
    if (r.op_name() == "jit(step)/attention") attention = &r;
  }
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(attention->bound_by(), "Unknown");
  ASSERT_NE(Op(hlo, "custom-call.2"), nullptr);
  EXPECT_FALSE(Op(hlo, "custom-call.2")->flops_known);
  json::value hs = json::parse(HloStatsToJson(hlo));
  const json::array& cols = hs.at("cols").as_array();
  size_t bound = 0, name = 0;
  for (size_t i = 0; i < cols.size(); ++i) {
    if (cols[i].at("id") == "bound_by") bound = i;
    if (cols[i].at("id") == "hlo_op_name") name = i;
  }
  bool seen = false;
  for (const json::value& row : hs.at("rows").as_array()) {
    const json::array& c = row.at("c").as_array();
    if (c.at(name).at("v") != "custom-call.2") continue;
    seen = true;
    EXPECT_EQ(c.at(bound).at("v"), "Unknown");
  }
  EXPECT_TRUE(seen);
}

TEST(HloOpDb, ToolsShapes) {
  HloOpDb db = ConvertXSpaceToHloOpDb(*Model(StepSpace()));
  json::value hs = json::parse(HloStatsToJson(db));
  ASSERT_EQ(hs.at("cols").as_array().size(), 27u);
  const auto& first = hs.at("rows").as_array().at(0).at("c").as_array();
  EXPECT_EQ(first.at(3).at("v").as_string(), "dot.1");  // most self time
  // GFLOP/s: 1048576 FLOPs in 25 us.
  EXPECT_NEAR(first.at(15).at("v").to_number<double>(), 1048576 / 25e3, 1e-9);
  json::value prof = json::parse(ConvertHloOpDbToOpProfileJson(db));
  const auto& by_program = prof.at("byProgram").at("children").as_array();
  bool found = false;
  for (const auto& c : by_program) found |= c.at("name").as_string() == "jit_step(7)";
  EXPECT_TRUE(found);
  EXPECT_EQ(prof.at("deviceType").as_string(), "GPU");
  json::value roof = json::parse(ConvertHloOpDbToRooflineJson(db));
  ASSERT_EQ(roof.as_array().size(), 2u);
  // GFLOP/s: 132 SMs x 4096 FLOPs a clock x 1.98 GHz.
  EXPECT_NEAR(std::stod(std::string(roof.at(0).at("p").at("peak_flop_rate").as_string())), 1070530.56, 1e-6);
}

// An aggregated TPU op event stands for num_occurrences runs: its duration
// is theirs together, its FLOPs and bytes stats are per run. hlo_stats counts
// it as framework_op_stats does: 4 runs, 4 x 10 FLOPs, 4 x 64 bytes, 400 ps.
TEST(HloOpDb, AggregatedTpuEventsCountTheirRuns) {
  XSpace space;
  XPlaneBuilder tpu = AddPlane(space, "/device:TPU:0", 1);
  XLineBuilder ops = tpu.AddLine(2, "XLA Ops");
  ops.AddAggregatedEvent("fusion.1", 4, 400).Int("flops", 10).Int("bytes_accessed", 64).Uint("program_id", 7);
  ops.AddEvent("copy.1", 1000, 100).Int("flops", 0).Int("bytes_accessed", 32).Uint("program_id", 7);
  auto model = Model(space);
  HloOpDb db = ConvertXSpaceToHloOpDb(*model);
  const HloOpMetrics* fusion = nullptr;
  for (const HloOpMetrics& m : db.ops) {
    if (m.name == "fusion.1") fusion = &m;
  }
  ASSERT_NE(fusion, nullptr);
  EXPECT_EQ(fusion->occurrences, 4u);
  EXPECT_EQ(fusion->time_ps, 400u);
  EXPECT_DOUBLE_EQ(fusion->flops, 40);
  EXPECT_DOUBLE_EQ(fusion->bytes_accessed, 256);
  const OpMetrics& same = ConvertXSpaceToOpStats(*model).device_op_metrics_db.ops.at(OpKey("fusion.1", 7));
  EXPECT_EQ(same.occurrences, fusion->occurrences);
  EXPECT_DOUBLE_EQ(same.flops, fusion->flops);
  EXPECT_EQ(same.bytes_accessed, 256u);
}

const std::string kRealTpuProfile = std::string(TBPROF_TESTDATA) + "/xplane/jax_tpu_v6e/tpu_inference_2.xplane.pb";

// The real TPU profile as libprotobuf reads it, read once for the tests that count from it.
const XSpace& RealTpuSpace() {
  static const XSpace space = test_files::ParseWithLibprotobuf(kRealTpuProfile);
  return space;
}

// TPU profile: per (program, op) the summed device_duration_ps of its `XLA Ops` events.
TEST(HloOpDbReal, TpuOpTimesEqualEventSums) {
  const XSpace& space = RealTpuSpace();
  ASSERT_GT(space.planes_size(), 0);
  std::map<std::string, int64_t> expected;
  int64_t total = 0;
  for (const auto& plane : space.planes()) {
    if (plane.name().rfind("/device:TPU:", 0) != 0) continue;
    const int64_t dur_id = test_files::StatMetadataId(plane, "device_duration_ps");
    for (const auto& line : plane.lines()) {
      if (line.name() != "XLA Ops") continue;
      for (const auto& e : line.events()) {
        const auto& md = plane.event_metadata().at(e.metadata_id());
        int64_t d = e.duration_ps();
        for (const auto& s : e.stats()) {
          if (s.metadata_id() == dur_id) d = s.int64_value() ? s.int64_value() : static_cast<int64_t>(s.uint64_value());
        }
        expected[md.display_name().empty() ? md.name() : md.display_name()] += d;
        total += d;
      }
    }
  }
  auto model = LoadXSpaceFile(kRealTpuProfile);
  ASSERT_TRUE(model.ok());
  HloOpDb db = ConvertXSpaceToHloOpDb(**model);
  std::map<std::string, int64_t> got;
  int64_t got_total = 0;
  for (const HloOpMetrics& m : db.ops) {
    if (m.is_idle) continue;
    got[m.name] += static_cast<int64_t>(m.time_ps);
    got_total += static_cast<int64_t>(m.time_ps);
  }
  EXPECT_EQ(got, expected);
  EXPECT_EQ(got_total, total);
  EXPECT_EQ(db.programs.by_id.size(), 4u);
  EXPECT_DOUBLE_EQ(db.peaks.peak_tflops, 918);

  // No TPU plane records a DMA stall time, so no op's share of it is known:
  // every row leaves it empty rather than saying 0 %.
  for (const auto& plane : space.planes()) {
    for (const auto& [id, sm] : plane.stat_metadata()) EXPECT_EQ(sm.name().find("dma_stall"), std::string::npos);
  }
  boost::json::value table = boost::json::parse(HloStatsToJson(db));
  const boost::json::array& cols = table.at("cols").as_array();
  size_t dma = cols.size();
  for (size_t i = 0; i < cols.size(); ++i) {
    if (cols[i].at("id").as_string() == "dma_stall_percent") dma = i;
  }
  ASSERT_LT(dma, cols.size());
  ASSERT_FALSE(table.at("rows").as_array().empty());
  for (const auto& row : table.at("rows").as_array()) EXPECT_TRUE(row.at("c").as_array()[dma].at("v").is_null());
}

// Self times on the real TPU profile, as xprof takes them: the XLA Ops line
// in its stored (host-clock) order, each op nested in the innermost open op
// whose device span includes its own, an op's self time its device duration
// less its direct children's. The line's stored order is not the device
// spans' order, so an op may begin, on the device, before the op stored
// ahead of it; it is not inside that op. Counted here from libprotobuf's
// reading of the file; framework_op_stats (OpStats) and hlo_stats must both
// give these self times, and the idle time that is left.
TEST(HloOpDbReal, TpuSelfTimesNestByDeviceSpanInclusion) {
  const XSpace& space = RealTpuSpace();
  ASSERT_GT(space.planes_size(), 0);
  std::map<std::string, int64_t> expected;
  int64_t idle = 0;
  bool out_of_device_order = false;
  for (const auto& plane : space.planes()) {
    if (plane.name().rfind("/device:TPU:", 0) != 0) continue;
    const int64_t off_id = test_files::StatMetadataId(plane, "device_offset_ps");
    const int64_t dur_id = test_files::StatMetadataId(plane, "device_duration_ps");
    for (const auto& line : plane.lines()) {
      if (line.name() != "XLA Ops") continue;
      struct Open {
        int64_t begin, end, children;
        std::string name;
      };
      std::vector<Open> stack;
      int64_t busy = 0, first = INT64_MAX, last = INT64_MIN, previous_begin = INT64_MIN;
      auto close = [&] {
        const Open o = stack.back();
        stack.pop_back();
        expected[o.name] += o.end - o.begin - o.children;
        busy += o.end - o.begin - o.children;
      };
      for (const auto& e : line.events()) {
        int64_t begin = 0, duration = 0;
        for (const auto& st : e.stats()) {
          if (st.metadata_id() == off_id) begin = st.int64_value() ? st.int64_value() : int64_t(st.uint64_value());
          if (st.metadata_id() == dur_id) duration = st.int64_value() ? st.int64_value() : int64_t(st.uint64_value());
        }
        const int64_t end = begin + duration;
        out_of_device_order |= begin < previous_begin;
        previous_begin = begin;
        first = std::min(first, begin), last = std::max(last, end);
        while (!stack.empty() && !(stack.back().begin <= begin && end <= stack.back().end)) close();
        if (!stack.empty()) stack.back().children += duration;
        const auto& md = plane.event_metadata().at(e.metadata_id());
        stack.push_back({begin, end, 0, md.display_name().empty() ? md.name() : md.display_name()});
      }
      while (!stack.empty()) close();
      idle += std::max<int64_t>(busy, last - first) - busy;
    }
  }
  ASSERT_TRUE(out_of_device_order);  // what the rule is about is in this file

  auto model = LoadXSpaceFile(kRealTpuProfile);
  ASSERT_TRUE(model.ok());
  std::map<std::string, int64_t> hlo;
  for (const HloOpMetrics& m : ConvertXSpaceToHloOpDb(**model).ops) {
    if (!m.is_idle) hlo[m.name] += static_cast<int64_t>(m.self_time_ps);
  }
  EXPECT_EQ(hlo, expected);
  std::map<std::string, int64_t> ops;
  int64_t ops_idle = -1;
  for (const auto& [key, m] : ConvertXSpaceToOpStats(**model).device_op_metrics_db.ops) {
    if (m.name == "IDLE") {
      ops_idle = static_cast<int64_t>(m.self_time_ps);
    } else {
      ops[m.name] += static_cast<int64_t>(m.self_time_ps);
    }
  }
  EXPECT_EQ(ops, expected);
  EXPECT_EQ(ops_idle, idle);
}

// ROCm GEMM profile: per HLO op (last `::` part of hlo_op) the summed kernel durations.
TEST(HloOpDbReal, RocmOpTimesEqualKernelSums) {
  std::string path = std::string(TBPROF_TESTDATA) + "/xplane/jax_rocm_mi300_gemm/tw003.xplane.pb";
  const XSpace space = test_files::ParseWithLibprotobuf(path);
  ASSERT_GT(space.planes_size(), 0);
  std::map<std::pair<int64_t, std::string>, int64_t> expected;
  for (const auto& plane : space.planes()) {
    if (plane.name().rfind("/device:GPU:", 0) != 0) continue;
    const int64_t op_id = test_files::StatMetadataId(plane, "hlo_op"), pid_id = test_files::StatMetadataId(plane, "program_id");
    for (const auto& line : plane.lines()) {
      for (const auto& e : line.events()) {
        std::string op;
        int64_t pid = 0;
        for (const auto& s : e.stats()) {
          if (s.metadata_id() == op_id) op = s.has_ref_value() ? plane.stat_metadata().at(s.ref_value()).name() : s.str_value();
          if (s.metadata_id() == pid_id) pid = s.int64_value() ? s.int64_value() : static_cast<int64_t>(s.uint64_value());
        }
        if (op.empty()) continue;
        size_t sep = op.rfind("::");
        expected[{pid, sep == std::string::npos ? op : op.substr(sep + 2)}] += e.duration_ps();
      }
    }
  }
  ASSERT_FALSE(expected.empty());
  auto model = LoadXSpaceFile(path);
  ASSERT_TRUE(model.ok());
  HloOpDb db = ConvertXSpaceToHloOpDb(**model);
  std::map<std::pair<int64_t, std::string>, int64_t> got;
  for (const HloOpMetrics& m : db.ops) {
    if (!m.is_idle) got[{static_cast<int64_t>(m.program_id), m.name}] += static_cast<int64_t>(m.time_ps);
  }
  EXPECT_EQ(got, expected);
  // gfx942 (compute capability 9.4) at 2.1 GHz: 304 CUs x 2048 FLOPs a clock.
  EXPECT_EQ(db.peaks.device_type, "AMD GPU - gfx942");
  EXPECT_NEAR(db.peaks.peak_tflops, 304 * 2048 * 2.1 / 1e3, 1e-9);
  // The 8192x8192x4096 bf16 GEMM: 2*8192*8192*4096 FLOPs per occurrence.
  bool saw_big_gemm = false;
  for (const HloOpMetrics& m : db.ops) {
    if (m.expression.find("bf16[8192,8192]") != std::string::npos) {
      saw_big_gemm = true;
      EXPECT_DOUBLE_EQ(m.flops / m.occurrences, 2.0 * 8192 * 8192 * 4096);
    }
  }
  EXPECT_TRUE(saw_big_gemm);
}

// hlo_stats' columns are xprof's (ids, labels and types of a real xprof response).
TEST(HloStatsShape, ColumnsMatchXprofResponse) {
  std::string path = std::string(TBPROF_TESTDATA) + "/xprof_outputs_tpu_training/hlo_stats.json.gz";
  auto golden = ReadFileMaybeGzip(path);
  ASSERT_TRUE(golden.ok()) << golden.status().message();
  json::value want = json::parse(*golden);
  json::value got = json::parse(HloStatsToJson(ConvertXSpaceToHloOpDb(*Model(StepSpace()))));
  EXPECT_EQ(got.at("cols"), want.at("cols"));
}

}  // namespace
}  // namespace tbprof
