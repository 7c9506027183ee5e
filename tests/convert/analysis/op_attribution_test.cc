// A GPU kernel's framework op in every profiler era: TensorFlow up to 2.4
// wrote it in the stat `level 0`, later versions in `tf_op`; XLA programs add
// `hlo_op`/`hlo_module`/`program_id`. The same kernel must reach
// framework_op_stats, kernel_stats (op name, TensorCore eligibility) and the
// overview (top ops, duty cycle) whichever name it was written under.
// Expected values are counted by hand from the events below.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/tools/tool_registry.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

namespace json = boost::json;
using ops_test::kUs;
using tensorflow::profiler::XSpace;

// One training step (0-100 µs) launching a MatMul kernel (30-70 µs) and a
// Relu kernel (75-85 µs) on a V100 (compute capability 7.0, no vendor stat:
// TF 2.4 wrote none), attributed through `op_stat`.
XSpace BertLikeSpace(const char* op_stat) {
  XSpace space;
  space.add_hostnames("v100host");
  {
    XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
    XLineBuilder t = host.AddLine(1, "python");
    t.AddEvent("train", 0, 100 * kUs).Int("step_num", 1).Int("_r", 1);
    t.AddEvent("bert/dense/MatMul:MatMul", 10 * kUs, 30 * kUs);
    t.AddEvent("cudaLaunchKernel", 15 * kUs, 5 * kUs).Int("correlation_id", 1).Int("device_id", 0);
    t.AddEvent("bert/relu:Relu", 50 * kUs, 10 * kUs);
    t.AddEvent("cudaLaunchKernel", 52 * kUs, 1 * kUs).Int("correlation_id", 2).Int("device_id", 0);
  }
  {
    XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 1);
    gpu.Int("compute_cap_major", 7).Int("compute_cap_minor", 0);
    XLineBuilder s = gpu.AddLine(7, "Stream #7(Compute)");
    s.AddEvent("volta_sgemm_128x64_nn", 30 * kUs, 40 * kUs)
        .Int("correlation_id", 1)
        .Str(op_stat, "bert/dense/MatMul:MatMul")
        .Ref("kernel_details", "regs:64 static_shared:0 dynamic_shared:0 grid:8,1,1 block:256,1,1 occ_pct:50");
    s.AddEvent("relu_kernel", 75 * kUs, 10 * kUs)
        .Int("correlation_id", 2)
        .Str(op_stat, "bert/relu:Relu")
        .Ref("kernel_details", "regs:16 static_shared:0 dynamic_shared:0 grid:4,1,1 block:256,1,1 occ_pct:100");
  }
  return space;
}


const json::value& Cell(const json::value& table, size_t row, size_t col) {
  return table.at("rows").as_array().at(row).at("c").as_array().at(col).at("v");
}
std::string Prop(const json::value& table, const char* key) {
  return std::string(table.at("p").at(key).as_string());
}

class OpAttribution : public ::testing::TestWithParam<const char*> {};

TEST_P(OpAttribution, KernelsReachEveryTool) {
  std::string path = ops_test::WriteSpace(BertLikeSpace(GetParam()), std::string("era_") + (GetParam()[0] == 'l' ? "24" : "25"));

  // framework_op_stats (with idle), by self time: MatMul 40 µs, Relu 10 µs,
  // IDLE 5 µs (the 55 µs from first kernel start to last kernel end, less 50).
  json::value tf_stats = ops_test::RunXPlaneTool("framework_op_stats", path);
  const json::value& with_idle = tf_stats.as_array()[0];
  std::vector<std::pair<std::string, std::string>> device_ops;
  for (const auto& row : with_idle.at("rows").as_array()) {
    const auto& c = row.at("c").as_array();
    if (c[1].at("v").as_string() == "Device") {
      device_ops.emplace_back(std::string(c[3].at("v").as_string()), std::string(c[2].at("v").as_string()));
    }
  }
  EXPECT_EQ(device_ops, (std::vector<std::pair<std::string, std::string>>{
                            {"bert/dense/MatMul", "MatMul"}, {"bert/relu", "Relu"}, {"IDLE", "IDLE"}}));

  // kernel_stats: one row per kernel with its op; MatMul is TensorCore
  // eligible, though this SIMT kernel does not use TensorCores.
  json::value kernels = ops_test::RunXPlaneTool("kernel_stats", path);
  ASSERT_EQ(kernels.at("rows").as_array().size(), 2u);
  EXPECT_EQ(Cell(kernels, 0, 1).as_string(), "volta_sgemm_128x64_nn");
  EXPECT_EQ(Cell(kernels, 0, 9).as_string(), "bert/dense/MatMul");
  EXPECT_TRUE(Cell(kernels, 0, 7).as_bool());
  EXPECT_FALSE(Cell(kernels, 0, 8).as_bool());
  EXPECT_EQ(Cell(kernels, 1, 9).as_string(), "bert/relu");
  EXPECT_FALSE(Cell(kernels, 1, 7).as_bool());

  // overview: top device ops 40/50 and 10/50 of the op time; the GPU was busy
  // 50 of the 55 µs from the first kernel's start to the last one's end.
  json::value overview = ops_test::RunXPlaneTool("overview_page", path);
  const json::value& analysis = overview.as_array()[0];
  ASSERT_EQ(analysis.at("rows").as_array().size(), 2u);
  EXPECT_EQ(Cell(analysis, 0, 3).as_string(), "bert/dense/MatMul");
  EXPECT_DOUBLE_EQ(Cell(analysis, 0, 0).to_number<double>(), 0.8);
  EXPECT_TRUE(Cell(analysis, 0, 5).as_bool());
  EXPECT_EQ(Prop(analysis, "device_duty_cycle_percent"), "90.9%");
  EXPECT_EQ(Prop(analysis, "device_idle_time_percent"), "9.1%");
  const json::value& env = overview.as_array()[2];
  EXPECT_EQ(Prop(env, "device_type"), "Nvidia GPU (Volta)");

  // input_pipeline: the step's device compute is the two kernels (50 µs).
  json::value ipa = ops_test::RunXPlaneTool("input_pipeline_analyzer", path);
  const json::value& steps = ipa.as_array()[1];
  ASSERT_EQ(steps.at("rows").as_array().size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(TensorFlowEras, OpAttribution, ::testing::Values("level 0", "tf_op"),
                         [](const auto& info) { return std::string(info.param[0] == 'l' ? "Level0_TF24" : "TfOp_TF25"); });

}  // namespace
}  // namespace tbprof

namespace tbprof {
namespace {

// JAX on a GPU: two `StepTraceAnnotation("train", step_num=7/8)` steps, each
// dispatching one XLA kernel that carries `hlo_op`, `hlo_module`,
// `program_id` and its JAX op in `tf_op` (no `name` stat), linked to its launch
// by correlation_id.
XSpace JaxGpuSpace() {
  XSpace space;
  space.add_hostnames("jaxhost");
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder t = host.AddLine(1, "python");
  XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 1);
  gpu.Str("device_vendor", "Nvidia").Int("compute_cap_major", 9).Int("compute_cap_minor", 0);
  XLineBuilder s = gpu.AddLine(7, "Stream #7(Compute)");
  for (int step = 0; step < 2; ++step) {
    int64_t base = step * 100 * kUs;
    t.AddEvent("train", base, 100 * kUs).Int("step_num", 7 + step).Int("_r", 1);
    t.AddEvent("PjitFunction(f)", base + 5 * kUs, 80 * kUs);
    t.AddEvent("cuLaunchKernel", base + 10 * kUs, 2 * kUs).Int("correlation_id", 11 + step).Int("device_id", 0);
    s.AddEvent("nvjet_tst_128x128_64x4_2x1_v_bz_TNN", base + 20 * kUs, 40 * kUs)
        .Int("correlation_id", 11 + step)
        .Str("hlo_op", "dot.1")
        .Str("hlo_module", "jit_f")
        .Int("program_id", 3)
        .Str("tf_op", "jit(f)/dot_general")
        .Ref("kernel_details", "regs:128 static_shared:0 dynamic_shared:98304 grid:4,1,1 block:384,1,1 occ_pct:12.5");
  }
  return space;
}

TEST(OpAttributionXla, JaxGpuStepsAndOps) {
  OpStats s = ops_test::OpStatsOf(JaxGpuSpace());
  ASSERT_EQ(s.steps.size(), 1u);
  ASSERT_EQ(s.steps[0].steps.size(), 2u);
  EXPECT_EQ(s.steps[0].steps[0].step_name, "train 7");
  EXPECT_EQ(s.steps[0].steps[1].step_name, "train 8");
  // Each step's device compute is its 40 µs kernel.
  EXPECT_EQ(s.steps[0].steps[0].type_ps.at(DEVICE_COMPUTE_32), 40 * static_cast<uint64_t>(kUs));
  // The HLO op's row, rolled up to its JAX op.
  // (keyed by name and program: dot.1 of program 3)
  ASSERT_TRUE(s.device_op_metrics_db.ops.count(OpKey("dot.1", 3)));
  EXPECT_EQ(s.device_op_metrics_db.ops.at(OpKey("dot.1", 3)).occurrences, 2u);
  ASSERT_TRUE(s.device_tf_op_metrics_db.ops.count("jit(f)/dot_general"));
  EXPECT_EQ(s.device_tf_op_metrics_db.ops.at("jit(f)/dot_general").category, "dot_general");
  // kernel_stats: the JAX op, eligible (a dot_general) and on TensorCores (nvjet).
  ASSERT_EQ(s.kernel_stats_db.reports_size(), 1);
  EXPECT_EQ(s.kernel_stats_db.reports(0).op_name(), "jit(f)/dot_general");
  EXPECT_TRUE(s.kernel_stats_db.reports(0).is_op_tensor_core_eligible());
  EXPECT_TRUE(s.kernel_stats_db.reports(0).is_kernel_using_tensor_core());
  EXPECT_EQ(s.kernel_stats_db.reports(0).occurrences(), 2u);
  EXPECT_EQ(s.run_environment.device_type, "Nvidia GPU (Hopper)");
}

// Two XLA programs each have an HLO op named "fusion.1", for different JAX
// ops (HLO names are numbered per program, so this is the common case). xprof
// keys device ops by (program, name): each fusion.1 counts for its own JAX op.
// A JAX function compiled for two shapes is two programs whose ops share a
// framework op: that op ran in each, so its count is the sum over programs of
// each program's count (xprof's largest-of-all rule would say 1).
TEST(OpAttributionXla, SameHloNameInTwoProgramsKeepsEachItsFrameworkOp) {
  XSpace space;
  space.add_hostnames("jaxhost");
  XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 1);
  XLineBuilder s = gpu.AddLine(7, "Stream #7(Compute)");
  auto kernel = [&](int64_t begin_us, int64_t program, const char* hlo_op, const char* op) {
    s.AddEvent("loop_fusion_kernel", begin_us * kUs, 10 * kUs)
        .Str("hlo_op", hlo_op)
        .Int("program_id", program)
        .Str("tf_op", op)
        .Ref("kernel_details", "regs:32 static_shared:0 dynamic_shared:0 grid:1,1,1 block:128,1,1 occ_pct:50");
  };
  kernel(0, 1, "fusion.1", "jit(f)/add");
  kernel(20, 2, "fusion.1", "jit(g)/mul");
  kernel(40, 3, "dot.2", "jit(h)/dot_general");  // jit(h) for one shape...
  kernel(60, 2, "fusion.1", "jit(g)/mul");       // (a second run: not the previous kernel's op)
  kernel(80, 4, "dot.5", "jit(h)/dot_general");  // ...and for another
  OpStats stats = ops_test::OpStatsOf(space);
  const auto& tf = stats.device_tf_op_metrics_db.ops;
  ASSERT_TRUE(tf.count("jit(f)/add"));
  ASSERT_TRUE(tf.count("jit(g)/mul"));
  EXPECT_EQ(tf.at("jit(f)/add").occurrences, 1u);
  EXPECT_EQ(tf.at("jit(f)/add").time_ps, 10 * static_cast<uint64_t>(kUs));
  EXPECT_EQ(tf.at("jit(g)/mul").occurrences, 2u);
  EXPECT_EQ(tf.at("jit(g)/mul").time_ps, 20 * static_cast<uint64_t>(kUs));
  ASSERT_TRUE(tf.count("jit(h)/dot_general"));
  EXPECT_EQ(tf.at("jit(h)/dot_general").occurrences, 2u);
  EXPECT_EQ(stats.device_op_metrics_db.ops.at(OpKey("fusion.1", 2)).provenance, "jit(g)/mul");
}

// XLA:CPU: a host thread runs HLO ops ("fusion.3", "dot.1") that carry their
// JAX op in `tf_op`, on the event or on its metadata; xprof's host op metrics
// count each as that op. An instant carrying a `tf_op` (TF's allocator writes
// one on every allocation) is no execution and counts nowhere.
XSpace XlaCpuSpace() {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder t = host.AddLine(1, "XLACpuThread");
  t.AddEvent("fusion.3", 0, 30 * kUs).Str("tf_op", "jit(f)/add");
  t.AddEvent("dot.1", 40 * kUs, 50 * kUs).Str("tf_op", "jit(f)/dot_general");
  t.AddEvent("MemoryAllocation", 45 * kUs, 0).Str("tf_op", "jit(f)/dot_general").Int("requested_bytes", 64);
  t.AddEvent("fusion.3", 100 * kUs, 10 * kUs).Str("tf_op", "jit(f)/add");
  // The op named on the metadata only: 120-135 µs.
  t.AddEvent("fusion.7", 120 * kUs, 15 * kUs);
  tensorflow::profiler::XStat* on_metadata = host.EventMetadata("fusion.7")->add_stats();
  on_metadata->set_metadata_id(host.StatMetadataId("tf_op"));
  on_metadata->set_str_value("jit(f)/mul");
  return space;
}

void ExpectXlaCpuOps(const OpStats& s) {
  constexpr uint64_t kUsPs = static_cast<uint64_t>(kUs);
  const auto& ops = s.host_op_metrics_db.ops;
  ASSERT_TRUE(ops.count("jit(f)/add"));
  EXPECT_EQ(ops.at("jit(f)/add").category, "");  // xprof's: a name without ":type" has no type
  EXPECT_EQ(ops.at("jit(f)/add").occurrences, 2u);
  EXPECT_EQ(ops.at("jit(f)/add").time_ps, 40 * kUsPs);
  EXPECT_EQ(ops.at("jit(f)/add").self_time_ps, 40 * kUsPs);
  EXPECT_EQ(ops.at("jit(f)/add").min_time_ps, 10 * kUsPs);
  ASSERT_TRUE(ops.count("jit(f)/dot_general"));
  EXPECT_EQ(ops.at("jit(f)/dot_general").occurrences, 1u);  // not the allocation
  EXPECT_EQ(ops.at("jit(f)/dot_general").self_time_ps, 50 * kUsPs);
  ASSERT_TRUE(ops.count("jit(f)/mul"));
  EXPECT_EQ(ops.at("jit(f)/mul").category, "");
  EXPECT_EQ(ops.at("jit(f)/mul").self_time_ps, 15 * kUsPs);
  // The thread's ops span 0-135 µs, 105 of them in ops.
  EXPECT_EQ(s.host_op_metrics_db.total_op_time_ps, 105 * kUsPs);
  EXPECT_EQ(s.host_op_metrics_db.total_time_ps, 135 * kUsPs);
  ASSERT_TRUE(ops.count("IDLE"));
  EXPECT_EQ(ops.at("IDLE").self_time_ps, 30 * kUsPs);
  EXPECT_EQ(ops.size(), 4u);
}

TEST(OpAttributionXla, XlaCpuOpsNamedByTheirTfOpStat) { ExpectXlaCpuOps(ops_test::OpStatsOf(XlaCpuSpace())); }

// The tools load files keeping the host's `tf_op` only off the allocator's
// events; the XLA:CPU ops must come through that load the same.
TEST(OpAttributionXla, XlaCpuOpsSurviveTheOpStatsLoad) {
  std::string path = ops_test::WriteSpace(XlaCpuSpace(), "xla_cpu");
  auto model = LoadXSpaceFile(path, OpStatsLoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().message();
  ExpectXlaCpuOps(ConvertXSpaceToOpStats(**model));
  // framework_op_stats shows them as host ops.
  ToolInput in;
  in.profile_paths = {path};
  auto out = FindProfileTool("framework_op_stats")->run(in);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_NE(out->body.find(R"({"v":"Host"},{"v":""},{"v":"jit(f)/add"},{"v":2.0})"), std::string::npos)
      << out->body.substr(0, 2000);
}

}  // namespace
}  // namespace tbprof
