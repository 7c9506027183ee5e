// Tool outputs (DataTable JSON/CSV) for the hand-built XSpaces, through the
// tool registry as /data and `tbprof convert` call them. Expected numbers are
// derived in tests/testing/ops_fixtures.cc.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <filesystem>

#include "convert/tools/artifact_cache.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/tool_registry.h"
#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

namespace json = boost::json;

json::value RunTool(const std::string& tool, const std::vector<std::string>& paths, ToolParams params = {},
                    ArtifactCache* cache = nullptr, std::string* content_type = nullptr, bool csv = false) {
  const ToolSpec* spec = FindProfileTool(tool);
  EXPECT_NE(spec, nullptr) << tool;
  if (!spec) return {};
  ToolInput in;
  in.profile_paths = paths;
  in.params = std::move(params);
  in.csv = csv;
  in.cache = cache;
  auto out = spec->run(in);
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return {};
  if (content_type) *content_type = out->content_type;
  if (out->content_type != "application/json") return json::string(out->body);
  return json::parse(out->body);
}

std::vector<std::string> ColumnIds(const json::value& table) {
  std::vector<std::string> ids;
  for (const auto& c : table.at("cols").as_array()) ids.emplace_back(c.at("id").as_string());
  return ids;
}

const json::value& Cell(const json::value& table, size_t row, size_t col) {
  return table.at("rows").as_array().at(row).at("c").as_array().at(col).at("v");
}

double Num(const json::value& v) { return v.is_double() ? v.as_double() : static_cast<double>(v.to_number<double>()); }
std::string Str(const json::value& v) { return std::string(v.as_string()); }
std::string Prop(const json::value& table, const char* key) { return Str(table.at("p").at(key)); }

class OpsToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpu_ = ops_test::WriteSpace(ops_test::GpuTwoStepSpace(), "testhost");
    cpu_ = ops_test::WriteSpace(ops_test::CpuInputBoundSpace(), "cpuhost");
  }
  std::string gpu_, cpu_;
};

TEST_F(OpsToolsTest, InputPipelineGpu) {
  json::value v = RunTool("input_pipeline_analyzer", {gpu_});
  ASSERT_TRUE(v.is_array());
  // xprof's five tables; the first (TPU cores waiting longest for input) is empty off TPU.
  ASSERT_EQ(v.as_array().size(), 5u);
  EXPECT_TRUE(ColumnIds(v.as_array()[0]).empty());
  EXPECT_TRUE(v.as_array()[0].at("rows").as_array().empty());
  const json::value& steps = v.as_array()[1];
  EXPECT_EQ(ColumnIds(steps), (std::vector<std::string>{"stepnum", "deviceComputeTimeMs", "deviceToDeviceTimeMs",
                                                        "deviceCollectivesTimeMs", "hostComputeTimeMs",
                                                        "kernelLaunchTimeMs", "infeedTimeMs", "outfeedTimeMs",
                                                        "compileTimeMs", "otherTimeMs", "tooltip", "stepTimeMs"}));
  ASSERT_EQ(steps.at("rows").as_array().size(), 2u);
  EXPECT_EQ(Str(Cell(steps, 0, 0)), "train 1");
  EXPECT_DOUBLE_EQ(Num(Cell(steps, 0, 1)), 0.055);
  EXPECT_DOUBLE_EQ(Num(Cell(steps, 0, 9)), 0.005);
  EXPECT_DOUBLE_EQ(Num(Cell(steps, 0, 11)), 0.06);
  EXPECT_DOUBLE_EQ(Num(Cell(steps, 1, 11)), 0.035);
  EXPECT_EQ(Prop(steps, "hardware_type"), "GPU");
  // 0.005 ms of "All others" in 0.095 ms of steps = 5.3% >= 3%: potentially input-bound.
  EXPECT_EQ(Prop(steps, "input_conclusion"),
            "Your program is POTENTIALLY input-bound because 5.3% of the total step time sampled is spent on 'All "
            "Others' time (which could be due to I/O or Python execution or both).");
  // This page carries each bottleneck's statement, empty when it is not one.
  EXPECT_EQ(Prop(steps, "all_other_bottleneck"), "");
  EXPECT_EQ(Prop(steps, "kernel_launch_bottleneck"), "");
  EXPECT_EQ(Prop(steps, "summary_nextstep").rfind("Consider using <a href=", 0), 0u);
  EXPECT_EQ(Prop(steps, "steptime_ms_average"), "0.0");
  EXPECT_EQ(v.as_array()[3].at("rows").as_array().size(), 5u);  // five recommendation links
  EXPECT_EQ(v.as_array()[4].at("rows").as_array().size(), 0u);  // no diagnostics
}

TEST_F(OpsToolsTest, InputPipelineCpuInputBound) {
  json::value v = RunTool("input_pipeline_analyzer", {cpu_});
  const json::value& steps = v.as_array()[1];
  EXPECT_DOUBLE_EQ(Num(Cell(steps, 0, 4)), 0.04);  // host compute
  EXPECT_DOUBLE_EQ(Num(Cell(steps, 0, 6)), 0.03);  // input (IteratorGetNext wait)
  EXPECT_DOUBLE_EQ(Num(Cell(steps, 0, 9)), 0.03);  // all others
  EXPECT_EQ(Prop(steps, "input_conclusion"),
            "Your program is HIGHLY input-bound because 30.0% of the total step time sampled is waiting for input. "
            "Therefore, you should first focus on reducing the input time.");
  const std::string all_other =
      "30.0 % of the total step time sampled is spent on 'All Others' time. This could be due to Python "
      "execution overhead.";
  EXPECT_EQ(Prop(steps, "all_other_bottleneck"), all_other);
  EXPECT_EQ(Prop(steps, "all_other_statement"), all_other);
  EXPECT_EQ(Prop(steps, "summary_nextstep"), "Look at Section 3 for the breakdown of input time on the host.");
  EXPECT_EQ(Prop(steps, "steptime_ms_average"), "0.1");
  const json::value& ops = v.as_array()[2];
  EXPECT_EQ(ColumnIds(ops), (std::vector<std::string>{"opName", "count", "timeInMs", "timeInPercent", "selfTimeInMs",
                                                      "selfTimeInPercent", "category"}));
  ASSERT_EQ(ops.at("rows").as_array().size(), 2u);
  EXPECT_EQ(Str(Cell(ops, 0, 0)), "Iterator::Prefetch");
  EXPECT_DOUBLE_EQ(Num(Cell(ops, 0, 2)), 0.02);
  EXPECT_DOUBLE_EQ(Num(Cell(ops, 0, 3)), 1.0);  // 100% of the input-op time, as a fraction
  EXPECT_DOUBLE_EQ(Num(Cell(ops, 0, 5)), 0.5);
  EXPECT_EQ(Str(Cell(ops, 0, 6)), "Preprocessing");
  EXPECT_EQ(Str(Cell(ops, 1, 0)), "Iterator::Prefetch::TFRecord");
  EXPECT_EQ(Str(Cell(ops, 1, 6)), "Advanced file read");
  EXPECT_EQ(Prop(ops, "advanced_file_read_us"), "10.000");
  EXPECT_EQ(Prop(ops, "preprocessing_us"), "10.000");
  EXPECT_EQ(Prop(ops, "demanded_file_read_us"), "0.000");
  EXPECT_EQ(Prop(ops, "unclassified_nonequeue_us"), "0.000");
}

TEST_F(OpsToolsTest, FrameworkOpStatsTablesAndCsv) {
  json::value v = RunTool("framework_op_stats", {gpu_});
  ASSERT_EQ(v.as_array().size(), 2u);
  const json::value& with_idle = v.as_array()[0];
  const json::value& without_idle = v.as_array()[1];
  std::vector<std::string> ids = ColumnIds(without_idle);
  ASSERT_EQ(ids.size(), 20u);  // the GPU TensorCore column is present on GPU profiles
  EXPECT_EQ(ids[12], "Host_cumulative_total_self_time_percent");
  EXPECT_EQ(ids[17], "gpu_tensorcore_utilization");
  EXPECT_EQ(ids[19], "eager");
  // Without idle: device MatMul 70, Relu 10, Einsum 5 of 85 µs; host MatMul 48, Relu 10, ReadVariableOp 2 of 60 µs.
  ASSERT_EQ(without_idle.at("rows").as_array().size(), 6u);
  EXPECT_EQ(Str(Cell(without_idle, 0, 1)), "Device");
  EXPECT_EQ(Str(Cell(without_idle, 0, 2)), "MatMul");
  EXPECT_EQ(Str(Cell(without_idle, 0, 3)), "model/dense/MatMul");
  EXPECT_DOUBLE_EQ(Num(Cell(without_idle, 0, 4)), 2);
  EXPECT_DOUBLE_EQ(Num(Cell(without_idle, 0, 5)), 70);
  EXPECT_DOUBLE_EQ(Num(Cell(without_idle, 0, 6)), 35);
  EXPECT_DOUBLE_EQ(Num(Cell(without_idle, 0, 9)), 70.0 / 85);
  EXPECT_DOUBLE_EQ(Num(Cell(without_idle, 2, 10)), 1.0);
  EXPECT_DOUBLE_EQ(Num(Cell(without_idle, 0, 17)), 1.0);  // all MatMul kernel time uses TensorCores
  EXPECT_DOUBLE_EQ(Num(Cell(without_idle, 1, 17)), 0.0);
  EXPECT_EQ(Str(Cell(without_idle, 3, 1)), "Host");
  EXPECT_DOUBLE_EQ(Num(Cell(without_idle, 3, 0)), 4);  // rank continues after the device rows
  EXPECT_DOUBLE_EQ(Num(Cell(without_idle, 3, 7)), 48);
  EXPECT_DOUBLE_EQ(Num(Cell(without_idle, 3, 11)), 0.8);
  EXPECT_DOUBLE_EQ(Num(Cell(without_idle, 5, 12)), 1.0);
  EXPECT_EQ(Str(Cell(without_idle, 0, 19)), "Function");
  // With idle: IDLE leads both sides (145 of 230 µs on the device, 160 of 220 µs on the host).
  ASSERT_EQ(with_idle.at("rows").as_array().size(), 8u);
  EXPECT_EQ(Str(Cell(with_idle, 0, 3)), "IDLE");
  EXPECT_DOUBLE_EQ(Num(Cell(with_idle, 0, 9)), 145.0 / 230);
  EXPECT_EQ(Str(Cell(with_idle, 4, 3)), "IDLE");
  EXPECT_DOUBLE_EQ(Num(Cell(with_idle, 4, 11)), 160.0 / 220);
  EXPECT_EQ(Prop(with_idle, "task_type"), "Inference");

  std::string content_type;
  json::value csv = RunTool("framework_op_stats", {gpu_}, {}, nullptr, &content_type, /*csv=*/true);
  EXPECT_EQ(content_type, "text/csv");
  std::string text(csv.as_string());
  EXPECT_EQ(text.substr(0, text.find("\r\n")),
            "Rank,Host/device,Operation Type,Operation Name,#Occurrences,Total time (us),Avg. time (us),Total "
            "self-time (us),Avg. self-time (us),Total self-time on Device (%),Cumulative total-self time on Device "
            "(%),Total self-time on Host (%),Cumulative total-self time on Host (%),Normalized FLOP Rate "
            "(FLOPs/s),Model FLOP Rate (GFLOP/s),Measured Memory BW (GBytes/Sec),Operational Intensity "
            "(FLOPs/Byte),GPU TensorCore utilization,Bound by,Execution mode");
  EXPECT_NE(text.find("\r\n1,Device,IDLE,IDLE,0,145,0,145,0,"), std::string::npos);
  EXPECT_NE(FindProfileTool("tensorflow_stats"), nullptr);
}

TEST_F(OpsToolsTest, KernelStatsTable) {
  json::value t = RunTool("kernel_stats", {gpu_});
  ASSERT_TRUE(t.is_object());
  EXPECT_EQ(ColumnIds(t), (std::vector<std::string>{"rank", "kernel_name", "registers_per_thread", "shmem_bytes",
                                                    "block_dim", "grid_dim", "occupancy_pct",
                                                    "is_op_tensor_core_eligible", "is_kernel_using_tensor_core",
                                                    "op_name", "occurrences", "total_duration_us", "avg_duration_us",
                                                    "min_duration_us", "max_duration_us"}));
  ASSERT_EQ(t.at("rows").as_array().size(), 3u);
  EXPECT_EQ(Str(Cell(t, 0, 1)), "volta_h884gemm_kernel");
  EXPECT_DOUBLE_EQ(Num(Cell(t, 0, 3)), 1024);
  EXPECT_EQ(Str(Cell(t, 0, 4)), "128,1,1");
  EXPECT_EQ(Str(Cell(t, 0, 5)), "8,1,1");
  EXPECT_TRUE(Cell(t, 0, 7).as_bool());
  EXPECT_TRUE(Cell(t, 0, 8).as_bool());
  EXPECT_DOUBLE_EQ(Num(Cell(t, 0, 11)), 70);
  EXPECT_DOUBLE_EQ(Num(Cell(t, 0, 12)), 35);
  EXPECT_DOUBLE_EQ(Num(Cell(t, 0, 13)), 30);
  EXPECT_DOUBLE_EQ(Num(Cell(t, 0, 14)), 40);
  EXPECT_TRUE(Cell(t, 2, 7).as_bool());   // einsum ab,bc->ac
  EXPECT_FALSE(Cell(t, 2, 8).as_bool());
  EXPECT_DOUBLE_EQ(Num(Cell(t, 2, 3)), 256);
}

TEST_F(OpsToolsTest, OverviewPageGpu) {
  json::value v = RunTool("overview_page", {gpu_});
  ASSERT_EQ(v.as_array().size(), 7u);
  const json::value& analysis = v.as_array()[0];
  EXPECT_EQ(ColumnIds(analysis), (std::vector<std::string>{"selfTimePercent", "cumulativeTimePercent", "category",
                                                           "operation", "flopRate", "tcEligibility"}));
  ASSERT_EQ(analysis.at("rows").as_array().size(), 3u);
  EXPECT_DOUBLE_EQ(Num(Cell(analysis, 0, 0)), 70.0 / 85);
  EXPECT_EQ(Str(Cell(analysis, 0, 3)), "model/dense/MatMul");
  EXPECT_TRUE(Cell(analysis, 0, 5).as_bool());
  EXPECT_FALSE(Cell(analysis, 1, 5).as_bool());
  EXPECT_DOUBLE_EQ(Num(Cell(analysis, 2, 1)), 1.0);
  EXPECT_EQ(Prop(analysis, "host_tf_op_percent"), "50.0%");  // 4 host vs 4 device occurrences
  EXPECT_EQ(Prop(analysis, "device_compute_32bit_percent"), "100.0%");
  // The GPU is busy 90 of its 230 traced µs (25-30 copy, 30-70, 75-85, 220-250,
  // 250-255 kernels): idle 140 / 230. xprof says 145 / 230 here, leaving the
  // host-to-device copy out of busy time, and no duty cycle at all on GPU.
  EXPECT_EQ(Prop(analysis, "device_idle_time_percent"), "60.9%");
  EXPECT_EQ(Prop(analysis, "device_duty_cycle_percent"), "39.1%");
  EXPECT_EQ(Prop(analysis, "host_idle_time_percent"), "72.7%");    // 160 / 220
  const json::value& env = v.as_array()[2];
  EXPECT_EQ(Prop(env, "device_type"), "Nvidia GPU (Volta)");
  EXPECT_EQ(Prop(env, "device_core_count"), "1");
  EXPECT_EQ(Prop(env, "task_count"), "1 (num tasks per host = 1)");
  const json::value& rec = v.as_array()[3];
  EXPECT_EQ(Prop(rec, "bottleneck"), "both");
  EXPECT_EQ(Prop(rec, "precision_statement"),
            "Only 0.0% of device computation is 16 bit. So you might want to replace more 32-bit Ops by 16-bit Ops "
            "to improve performance (if the reduced accuracy is acceptable).");
  EXPECT_EQ(ColumnIds(rec), (std::vector<std::string>{"tip_type", "link", "description"}));
  EXPECT_TRUE(v.as_array()[5].as_object().empty());
  EXPECT_EQ(ColumnIds(v.as_array()[6]), (std::vector<std::string>{"severity", "message"}));
}

TEST_F(OpsToolsTest, OverviewPageWithoutStepsWarns) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU");
  host.AddLine(1, "t").AddEvent("x:X", 0, ops_test::kUs);
  std::string path = ops_test::WriteSpace(space, "nosteps");
  json::value v = RunTool("overview_page", {path});
  const json::value& rec = v.as_array()[3];
  EXPECT_EQ(Prop(rec, "bottleneck"), "unknown");
  EXPECT_EQ(Prop(rec, "statement"),
            "No step time measured. Therefore we cannot tell where the performance bottleneck is.");
  const json::value& diag = v.as_array()[6];
  ASSERT_EQ(diag.at("rows").as_array().size(), 1u);
  EXPECT_EQ(Str(Cell(diag, 0, 0)), "WARNING");
  EXPECT_EQ(Str(Cell(diag, 0, 1)).rfind("No step marker observed", 0), 0u);
}

TEST_F(OpsToolsTest, PodViewerHasOneCorePerHost) {
  auto other = ops_test::GpuTwoStepSpace();
  other.set_hostnames(0, "otherhost");
  std::string second = ops_test::WriteSpace(other, "otherhost");
  json::value v = RunTool("pod_viewer", {gpu_, second});
  const auto& steps = v.at("podStatsSequence").at("podStatsMap").as_array();
  ASSERT_EQ(steps.size(), 2u);
  const auto& cores = steps[0].at("podStatsPerCore").as_object();
  ASSERT_EQ(cores.size(), 2u);
  const auto& first = cores.at("1");
  EXPECT_EQ(Str(first.at("hostName")), "testhost");
  EXPECT_DOUBLE_EQ(Num(first.at("totalDurationUs")), 60);
  EXPECT_DOUBLE_EQ(Num(first.at("stepBreakdownUs").at("1")), 55);
  EXPECT_DOUBLE_EQ(Num(first.at("stepBreakdownUs").at("9")), 5);
  EXPECT_EQ(Str(first.at("bottleneck")), "Device compute");
  EXPECT_EQ(Str(cores.at("1001").at("hostName")), "otherhost");
  EXPECT_EQ(v.at("stepBreakdownEvents").as_array().size(), 9u);
}

TEST_F(OpsToolsTest, OpStatsComputedOncePerFile) {
  ArtifactCache cache(64 << 20);
  json::value a = RunTool("overview_page", {gpu_}, {}, &cache);
  uint64_t misses = cache.misses();
  json::value b = RunTool("framework_op_stats", {gpu_}, {}, &cache);
  json::value c = RunTool("overview_page", {gpu_}, {}, &cache);
  EXPECT_EQ(cache.misses(), misses);  // the model and OpStats of the file were reused
  EXPECT_GE(cache.hits(), 2u);
  EXPECT_EQ(json::serialize(a), json::serialize(c));
}

// 1,200 distinct kernels on one GPU stream, kernel i running once for i+1 µs (i = 0…1199).
tensorflow::profiler::XSpace ManyKernelsSpace(const std::string& host) {
  tensorflow::profiler::XSpace space;
  space.add_hostnames(host);
  XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 0);
  XLineBuilder s = gpu.AddLine(7, "Stream #7(Compute)");
  int64_t t = 0;
  for (int i = 0; i < 1200; ++i) {
    const int64_t dur = (i + 1) * ops_test::kUs;
    s.AddEvent("kernel_" + std::to_string(i), t, dur)
        .Ref("kernel_details", "regs:32 static_shared:0 dynamic_shared:0 grid:1,1,1 block:32,1,1 occ_pct:50");
    t += dur + ops_test::kUs;
  }
  return space;
}

// The table keeps xprof's 1,000 longest kernels and says what it leaves out. By hand: the 200 hidden are
// kernels 0…199, 1+2+…+200 = 20,100 µs over 200 launches; two such hosts combined double each kernel
// (40,200 µs, 400 launches: the kernels each host's own table would hide are still added up).
TEST_F(OpsToolsTest, KernelStatsSaysWhatItsTableLeavesOut) {
  const std::string one = ops_test::WriteSpace(ManyKernelsSpace("h1"), "many1");
  const std::string two = ops_test::WriteSpace(ManyKernelsSpace("h2"), "many2");
  json::value t = RunTool("kernel_stats", {one});
  ASSERT_TRUE(t.is_object());
  ASSERT_EQ(t.at("rows").as_array().size(), 1000u);
  EXPECT_DOUBLE_EQ(Num(Cell(t, 0, 11)), 1200);
  EXPECT_DOUBLE_EQ(Num(Cell(t, 999, 11)), 201);
  EXPECT_EQ(Prop(t, "hidden_kernels"), "200");
  EXPECT_EQ(Prop(t, "hidden_occurrences"), "200");
  EXPECT_EQ(Prop(t, "hidden_total_duration_us"), "20100");

  json::value both = RunTool("kernel_stats", {one, two});
  ASSERT_EQ(both.at("rows").as_array().size(), 1000u);
  EXPECT_DOUBLE_EQ(Num(Cell(both, 999, 11)), 402);
  EXPECT_DOUBLE_EQ(Num(Cell(both, 999, 10)), 2);
  EXPECT_EQ(Prop(both, "hidden_kernels"), "200");
  EXPECT_EQ(Prop(both, "hidden_occurrences"), "400");
  EXPECT_EQ(Prop(both, "hidden_total_duration_us"), "40200");

  // The CSV download holds every kernel: a header line and 1,200 rows.
  json::value csv = RunTool("kernel_stats", {one}, {}, nullptr, nullptr, /*csv=*/true);
  const std::string text(csv.as_string());
  size_t lines = 0;
  for (size_t at = text.find("\r\n"); at != std::string::npos; at = text.find("\r\n", at + 2)) ++lines;
  EXPECT_EQ(lines, 1201u);

  // A table that holds every kernel says nothing is hidden.
  json::value few = RunTool("kernel_stats", {gpu_});
  EXPECT_EQ(Prop(few, "hidden_kernels"), "0");
  EXPECT_EQ(Prop(few, "hidden_total_duration_us"), "0");
}

TEST_F(OpsToolsTest, CorruptFileIsAnError) {
  const char* dir = TBPROF_TESTDATA;
  std::string path = std::string(dir) + "/xplane/corrupt/utf8_mangled.xplane.pb";
  if (!std::filesystem::exists(path)) GTEST_FAIL() << "required: testdata not found: " << path;
  ToolInput in;
  in.profile_paths = {path};
  for (const char* tool : {"overview_page", "input_pipeline_analyzer", "framework_op_stats", "kernel_stats",
                           "pod_viewer"}) {
    auto out = FindProfileTool(tool)->run(in);
    EXPECT_FALSE(out.ok()) << tool;
    EXPECT_FALSE(out.status().message().empty());
  }
  in.profile_paths = {};
  EXPECT_FALSE(FindProfileTool("overview_page")->run(in).ok());
}

// OpStats and the trace index group a file's events once between them:
// whichever comes second takes the grouping from the cache, and answers as
// it does without a cache.
TEST_F(OpsToolsTest, OverviewAndTraceViewerShareOneGrouping) {
  const json::value overview = RunTool("overview_page", {gpu_});
  const json::value trace = RunTool("trace_viewer@", {gpu_});
  ASSERT_TRUE(trace.is_object());
  for (bool overview_first : {true, false}) {
    SCOPED_TRACE(overview_first ? "overview first" : "trace viewer first");
    ArtifactCache cache(1u << 30);
    EXPECT_EQ(PeekGroupsCached(gpu_, &cache), nullptr);
    const std::string first = overview_first ? "overview_page" : "trace_viewer@";
    const std::string second = overview_first ? "trace_viewer@" : "overview_page";
    EXPECT_EQ(RunTool(first, {gpu_}, {}, &cache), overview_first ? overview : trace);
    const std::shared_ptr<const EventGroups> groups = PeekGroupsCached(gpu_, &cache);
    ASSERT_NE(groups, nullptr);
    EXPECT_FALSE(groups->group_names.empty());
    EXPECT_EQ(RunTool(second, {gpu_}, {}, &cache), overview_first ? trace : overview);
    EXPECT_EQ(PeekGroupsCached(gpu_, &cache), groups);
  }
  // The cached grouping is the one used: one that groups nothing leaves the
  // GPU without its Steps line.
  const std::string steps_line = R"("name":"Steps")";
  EXPECT_NE(json::serialize(trace).find(steps_line), std::string::npos);
  ArtifactCache cache(1u << 30);
  KeepGroupsCached(gpu_, std::make_shared<const EventGroups>(), &cache);
  EXPECT_EQ(json::serialize(RunTool("trace_viewer@", {gpu_}, {}, &cache)).find(steps_line), std::string::npos);
}

}  // namespace
}  // namespace tbprof
