// xprof's own unit tests of the roofline ridge point and the GPU cost
// analysis of GEMM custom calls, ported as known-answer tests of our steps. Each input is built as the original test builds it (ops of an
// op metrics table, device peaks, HLO instructions); the expected values are
// the original test's. The device peak tests are in device_peaks_test.cc.
// Where tbprof deliberately differs (an unknown figure is left empty instead
// of 0) the test says so and checks our answer.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <algorithm>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "convert/analysis/device/device_peaks.h"
#include "convert/analysis/hlo_program/hlo_cost_model.h"
#include "convert/analysis/hlo/roofline.h"
#include "convert/analysis/hlo/xspace_to_hlo_stats.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/hlo.pb.h"
#include "proto/xspace_builder.h"
#include "tests/testing/hlo_fixtures.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

namespace json = boost::json;

// The roofline table's HBM ridge point for the device peaks given.
std::string HbmRidgePoint(double peak_gflops, double peak_gib_per_s) {
  HloOpDb db;
  db.peaks.kind = DeviceKind::kTpu;
  db.peaks.peak_tflops = peak_gflops / 1e3;
  db.peaks.hbm_gbps = peak_gib_per_s * 1024.0 * 1024 * 1024 / 1e9;  // ours is in GB/s
  json::value tables = json::parse(ConvertHloOpDbToRooflineJson(db));
  return std::string(tables.as_array()[0].at("p").at("hbm_ridge_point").as_string());
}

// xprof: RooflineModelUtilsTest.RidgePointNormalCase and RidgePointAnotherNormalCase.
TEST(XprofRooflinePort, RidgePoint) {
  EXPECT_NEAR(std::stod(HbmRidgePoint(1000.0, 100.0)), 9.31322, 1e-5);
  EXPECT_NEAR(std::stod(HbmRidgePoint(500.0, 200.0)), 2.32830, 1e-5);
}

// xprof: RooflineModelUtilsTest.RidgePointZeroMemoryBandwidth and RidgePointZeroFlops
// expect 0. A zero peak means the peak is not known, and tbprof leaves the ridge
// point empty rather than writing 0 for it.
TEST(XprofRooflinePort, RidgePointWithoutAPeakIsUnknown) {
  EXPECT_EQ(HbmRidgePoint(100.0, 0.0), "");
  EXPECT_EQ(HbmRidgePoint(0.0, 100.0), "");
}

xla::ShapeProto Array(xla::PrimitiveType type, std::initializer_list<int64_t> dims) {
  xla::ShapeProto s;
  s.set_element_type(type);
  for (int64_t d : dims) s.add_dimensions(d);
  return s;
}

// Module `r` with one computation, `e` (id 1), its entry.
xla::HloComputationProto* AddEntryComputation(xla::HloProto& proto) {
  auto* module = proto.mutable_hlo_module();
  module->set_name("r");
  module->set_entry_computation_id(1);
  auto* e = module->add_computations();
  e->set_name("e");
  e->set_id(1);
  return e;
}

// Entry computation `e`: the parameters, then `gemm`, a GEMM custom call of
// them whose result is (out, s8[workspace]), as XLA's GPU backend emits it.
std::shared_ptr<const HloProgram> GemmProgram(const std::vector<xla::ShapeProto>& params, xla::ShapeProto out,
                                              int64_t workspace, const std::string& target) {
  xla::HloProto proto;
  xla::HloComputationProto* e = AddEntryComputation(proto);
  int64_t id = 1;
  e->add_instructions();  // the gemm, filled in once its operands have ids
  for (size_t i = 0; i < params.size(); ++i) {
    auto* p = e->add_instructions();
    p->set_name("arg" + std::to_string(i));
    p->set_opcode("parameter");
    p->set_parameter_number(static_cast<int64_t>(i));
    *p->mutable_shape() = params[i];
    p->set_id(++id);
  }
  auto* gemm = e->mutable_instructions(0);
  gemm->set_name("gemm");
  gemm->set_opcode("custom-call");
  gemm->set_id(1);
  for (int64_t i = 2; i <= id; ++i) gemm->add_operand_ids(i);
  gemm->mutable_shape()->set_element_type(xla::TUPLE);
  *gemm->mutable_shape()->add_tuple_shapes() = std::move(out);
  *gemm->mutable_shape()->add_tuple_shapes() = Array(xla::S8, {workspace});
  gemm->set_custom_call_target(target);
  gemm->set_backend_config(
      R"({"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],)"
      R"("rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"alpha_imag":0,)"
      R"("precision_config":{"operand_precision":["DEFAULT","DEFAULT"]},"epilogue":"DEFAULT"}})");
  e->set_root_id(1);
  auto program = HloProgram::Parse(1, "r", proto.SerializeAsString());
  EXPECT_TRUE(program.ok());
  return program.ok() ? *program : nullptr;
}

// xprof: XprofGpuHloCostAnalysisTest.Fp16GemmNoAdjustment: rows(A) × cols(B) × cols(A) × 2.
TEST(XprofGpuCostPort, Fp16Gemm) {
  auto p = GemmProgram({Array(xla::F16, {65536, 32800}), Array(xla::F16, {32800, 32})}, Array(xla::F16, {65536, 32}), 0,
                       "__cublas$lt$matmul");
  ASSERT_NE(p, nullptr);
  HloCost cost = HloInstructionCost(*p, *p->FindInstruction("gemm"));
  EXPECT_TRUE(cost.flops_known);
  EXPECT_DOUBLE_EQ(cost.flops, 65536.0 * 32800 * 32 * 2);
}

// xprof: XprofGpuHloCostAnalysisTest.S8GemmAdjustment. The FLOP count is ported;
// the "device FLOPs adjustment" (int8 FLOPs halved to fp16-equivalents) is not:
// tbprof's cost model has no normalised-FLOPs rule.
TEST(XprofGpuCostPort, S8Gemm) {
  auto p = GemmProgram({Array(xla::S8, {65536, 32800}), Array(xla::S8, {32800, 32})}, Array(xla::S32, {65536, 32}), 0,
                       "__cublas$lt$matmul");
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(HloInstructionCost(*p, *p->FindInstruction("gemm")).flops, 65536.0 * 32800 * 32 * 2);
}

// xprof: XprofGpuHloCostAnalysisTest.Fp8GemmWithFp32ParameterAdjustment (FLOP
// count only, as above): the two f32 scale operands do not change the count.
TEST(XprofGpuCostPort, Fp8GemmWithScaleOperands) {
  auto p = GemmProgram({Array(xla::F8E4M3FN, {2048, 5120}), Array(xla::F8E4M3FN, {5120, 5120}), Array(xla::F32, {}),
                        Array(xla::F32, {})},
                       Array(xla::BF16, {2048, 5120}), 33554432, "__cublas$lt$matmul$f8");
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(HloInstructionCost(*p, *p->FindInstruction("gemm")).flops, 2048.0 * 5120 * 5120 * 2);
}

// xprof: XprofGpuHloCostAnalysisTest.CustomCallWithZeroOperands: a custom call
// with no operands is analysed without failing; its FLOPs are unknown to us.
TEST(XprofGpuCostPort, CustomCallWithZeroOperands) {
  xla::HloProto proto;
  xla::HloComputationProto* e = AddEntryComputation(proto);
  auto* custom = e->add_instructions();
  custom->set_name("custom");
  custom->set_opcode("custom-call");
  custom->set_id(1);
  *custom->mutable_shape() = Array(xla::F32, {2, 32, 256});
  custom->set_custom_call_target("AllocateBuffer");
  e->set_root_id(1);
  auto program = HloProgram::Parse(1, "r", proto.SerializeAsString());
  ASSERT_TRUE(program.ok());
  HloCost cost = HloInstructionCost(**program, *(*program)->FindInstruction("custom"));
  EXPECT_FALSE(cost.flops_known);
  EXPECT_DOUBLE_EQ(cost.bytes_accessed, 2 * 32 * 256 * 4.0);
}

// xprof: HardwareTypeUtilsTest.GpuModelNameFallsBackToFamilyWithoutName and
// GpuModelNameIgnoresNvidiaProductName: an Nvidia device of compute capability
// 9.x is "Nvidia GPU (Hopper)", whatever product name it carries. (The AMD
// naming cases are not ported: tbprof names every AMD device "AMD GPU".)
TEST(XprofDevicePeaksPort, NvidiaModelNameIsTheFamily) {
  for (const char* product : {"", "NVIDIA H100 80GB HBM3"}) {
    SCOPED_TRACE(product);
    tensorflow::profiler::XSpace space;
    XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 1);
    gpu.Str("device_vendor", "Nvidia").Int("compute_cap_major", 9).Int("compute_cap_minor", 0);
    if (*product) gpu.Str("device_name", product);
    auto model = ParseXSpace(space.SerializeAsString(), "test");
    ASSERT_TRUE(model.ok()) << model.status().message();
    EXPECT_EQ(DevicePeaksOf(**model).device_type, "Nvidia GPU (Hopper)");
  }
}

// xprof's SetRooflineMetrics: "Bound by" is the resource used closest to its
// peak, compute and HBM everywhere, CMEM and VMEM on TPUs. Figures by hand:
// 1 ms; 50 TFLOP/s of 100 is 0.5, 400 GB/s of HBM's 1000 is 0.4.
TEST(RooflineBottleneck, TheResourceClosestToItsPeak) {
  DevicePeaks tpu;
  tpu.kind = DeviceKind::kTpu;
  tpu.peak_tflops = 100, tpu.hbm_gbps = 1000, tpu.cmem_rd_gbps = 2000, tpu.vmem_wr_gbps = 4000;
  tpu.has_merged_vmem = true;
  RooflineUse use;
  use.time_ps = 1e9;
  use.flops = 5e10;
  use.bytes = use.hbm_bytes = 4e8;
  RooflineBottleneck b = FindRooflineBottleneck(use, tpu);
  EXPECT_EQ(b.resource, "Compute");
  EXPECT_DOUBLE_EQ(b.flops_utilization, 0.5);
  EXPECT_DOUBLE_EQ(b.memory_utilization, 0.4);
  EXPECT_DOUBLE_EQ(b.operational_intensity, 125);  // 5e10 / 4e8
  // 3600 GB/s written to VMEM of 4000: 0.9, the closest; its intensity is per VMEM byte.
  use.vmem_wr = 3.6e9;
  b = FindRooflineBottleneck(use, tpu);
  EXPECT_EQ(b.resource, "VMEM Write");
  EXPECT_DOUBLE_EQ(b.memory_utilization, 0.9);
  EXPECT_DOUBLE_EQ(b.operational_intensity, 5e10 / 3.6e9);
  // CMEM read with no peak for it counts for nothing.
  tpu.cmem_rd_gbps = -1;
  use.vmem_wr = 0, use.cmem_rd = 1e12;
  EXPECT_EQ(FindRooflineBottleneck(use, tpu).resource, "Compute");
  // A GPU's on-chip traffic is not broken down: only compute and HBM count.
  DevicePeaks gpu = tpu;
  gpu.kind = DeviceKind::kGpu;
  use.cmem_rd = 0, use.vmem_wr = 3.6e9;
  EXPECT_EQ(FindRooflineBottleneck(use, gpu).resource, "Compute");
  // 600 GB/s of HBM: 0.6 beats compute's 0.5.
  use.hbm_bytes = 6e8;
  EXPECT_EQ(FindRooflineBottleneck(use, gpu).resource, "HBM");
}

TEST(RooflineBottleneck, UnknownWithoutAUseOrAPeak) {
  RooflineUse use;
  use.time_ps = 1e9;
  DevicePeaks peaks;
  peaks.kind = DeviceKind::kGpu;
  peaks.peak_tflops = 100, peaks.hbm_gbps = 1000;
  EXPECT_EQ(FindRooflineBottleneck(use, peaks).resource, "Unknown");  // no FLOPs, no bytes
  use.flops = 5e10, use.bytes = use.hbm_bytes = 4e8;
  EXPECT_EQ(FindRooflineBottleneck(use, DevicePeaks{}).resource, "Unknown");  // no peaks (a CPU)
  // A tie keeps compute, considered first.
  use.hbm_bytes = 5e8;
  EXPECT_EQ(FindRooflineBottleneck(use, peaks).resource, "Compute");
}

// Adds a metadata stat (int or string) as the TPU runtime writes op attributes.
void MetadataStat(XPlaneBuilder& plane, tensorflow::profiler::XEventMetadata* md, const std::string& name,
                  std::variant<int64_t, std::string> value) {
  auto* stat = md->add_stats();
  stat->set_metadata_id(plane.StatMetadataId(name));
  if (auto* i = std::get_if<int64_t>(&value)) stat->set_int64_value(*i);
  else stat->set_str_value(std::get<std::string>(value));
}

const HloOpMetrics* OpNamed(const HloOpDb& db, const std::string& name) {
  for (const HloOpMetrics& m : db.ops) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

// xprof: OpMetricsDbTest.FromXEventHandlesMissingOccurrences: one XLA Ops
// event of 100 ps whose metadata carries the op's attributes. The source line
// stat is the one TPU profiles carry, `source`.
TEST(XprofOpMetricsPort, OpFromOneTpuEvent) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder tpu = AddPlane(space, "/device:TPU:0", 1);
  auto* md = tpu.EventMetadata("metadata");
  md->set_display_name("display_name");
  MetadataStat(tpu, md, "program_id", int64_t{1});
  MetadataStat(tpu, md, "symbol_id", int64_t{2});
  MetadataStat(tpu, md, "deduplicated_name", std::string("deduplicated_name"));
  MetadataStat(tpu, md, "tf_op", std::string("tf_op"));
  MetadataStat(tpu, md, "hlo_category", std::string("tf_op_category"));
  MetadataStat(tpu, md, "flops", int64_t{3});
  MetadataStat(tpu, md, "model_flops", int64_t{4});
  MetadataStat(tpu, md, "bytes_accessed", int64_t{5});
  MetadataStat(tpu, md, "source", std::string("my_file.py:123"));
  MetadataStat(tpu, md, "source_stack", std::string("my_file.py:123\nmy_other_file.py:456"));
  tpu.AddLine(1, "XLA Ops").AddEvent("metadata", 0, 100);
  auto model = ops_test::ToModel(space);
  HloOpDb db = ConvertXSpaceToHloOpDb(*model);
  const HloOpMetrics* op = OpNamed(db, "display_name");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->occurrences, 1u);
  EXPECT_EQ(op->time_ps, 100u);
  EXPECT_EQ(op->self_time_ps, 100u);
  EXPECT_EQ(op->program_id, 1u);
  EXPECT_DOUBLE_EQ(op->flops, 3);
  EXPECT_DOUBLE_EQ(op->model_flops, 4);
  EXPECT_DOUBLE_EQ(op->bytes_accessed, 5);
  EXPECT_EQ(op->expression, "metadata");  // xprof's long_name
  EXPECT_EQ(op->deduplicated_name, "deduplicated_name");
  EXPECT_EQ(op->category, "tf_op_category");
  EXPECT_EQ(op->provenance, "tf_op");
  EXPECT_EQ(op->source_info, "my_file.py:123");
  EXPECT_EQ(op->source_stack, "my_file.py:123\nmy_other_file.py:456");
}

// xprof: OpMetricsDbTest.AddOpMetric: two events of one op add up (2
// occurrences, 200 ps), another op of the same program stays apart (100 ps),
// and the ops' time is 300 ps. Not ported: the time-scale multiplier
// (normalized_time_ps) and vdd_energy_j, which tbprof does not read, and the
// third op that has no program id, which xprof drops and tbprof keeps under
// program 0.
TEST(XprofOpMetricsPort, EventsOfOneOpAddUp) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder tpu = AddPlane(space, "/device:TPU:0", 1);
  for (auto [meta, display, symbol] : {std::tuple<const char*, const char*, int64_t>{"m1", "display_name1", 1},
                                       {"m2", "display_name2", 2}}) {
    auto* md = tpu.EventMetadata(meta);
    md->set_display_name(display);
    MetadataStat(tpu, md, "program_id", int64_t{1});
    MetadataStat(tpu, md, "symbol_id", symbol);
  }
  XLineBuilder line = tpu.AddLine(1, "XLA Ops");
  line.AddEvent("m1", 0, 100);
  line.AddEvent("m1", 100, 100);
  line.AddEvent("m2", 200, 100);  // xprof's m2 overlaps m1 in time; here it follows, so it is not nested
  auto model = ops_test::ToModel(space);
  HloOpDb db = ConvertXSpaceToHloOpDb(*model);
  const HloOpMetrics* m1 = OpNamed(db, "display_name1");
  const HloOpMetrics* m2 = OpNamed(db, "display_name2");
  ASSERT_NE(m1, nullptr);
  ASSERT_NE(m2, nullptr);
  EXPECT_EQ(m1->occurrences, 2u);
  EXPECT_EQ(m1->time_ps, 200u);
  EXPECT_EQ(m1->self_time_ps, 200u);
  EXPECT_EQ(m1->expression, "m1");
  EXPECT_EQ(m2->occurrences, 1u);
  EXPECT_EQ(m2->time_ps, 100u);
  EXPECT_EQ(m2->self_time_ps, 100u);
  uint64_t op_time = 0;
  for (const HloOpMetrics& m : db.ops) {
    if (!m.is_idle) op_time += m.self_time_ps;
  }
  EXPECT_EQ(op_time, 300u);
}

// A /host:metadata plane holding one module per program, as XLA writes them.
tensorflow::profiler::XSpace MetadataSpace(const std::vector<std::pair<int64_t, std::string>>& modules) {
  std::vector<std::pair<int64_t, xla::HloProto>> protos;
  for (const auto& [id, name] : modules) {
    xla::HloProto proto;
    proto.mutable_hlo_module()->set_name(name);
    protos.emplace_back(id, std::move(proto));
  }
  tensorflow::profiler::XSpace space;
  hlo_test::AddMetadataPlane(space, protos);
  return space;
}

// xprof: HloProtoMapTest.GetOriginalModuleList: the programs of a profile are
// listed as "<module>(<program id>)", the names op_profile's by-program nodes
// carry. (The module_list route answers bare module names, as xprof's route
// does; that is tested with the routes.)
TEST(XprofHloProtoMapPort, ProgramDisplayNames) {
  auto empty = ops_test::ToModel(MetadataSpace({}));
  EXPECT_TRUE(LoadHloPrograms(*empty).empty());
  auto two = ops_test::ToModel(MetadataSpace({{1, "module1"}, {2, "module2"}}));
  std::vector<std::string> names;
  for (const auto& [id, program] : LoadHloPrograms(*two).by_id) names.push_back(ProgramDisplayName(program->name(), id));
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"module1(1)", "module2(2)"}));
}

// xprof: HloProtoMapTest.GetOriginalHloProto, the lookup by program id (the
// lookup by "<module>(<id>)" name has no counterpart: GPU kernels name their
// module without the id, and that is what tbprof looks up by name).
TEST(XprofHloProtoMapPort, ProgramById) {
  auto model = ops_test::ToModel(MetadataSpace({{1, "module"}}));
  HloPrograms programs = LoadHloPrograms(*model);
  ASSERT_NE(programs.Find(1), nullptr);
  EXPECT_EQ(programs.Find(1)->module().name(), "module");
  EXPECT_EQ(programs.Find(2), nullptr);
}

}  // namespace
}  // namespace tbprof
