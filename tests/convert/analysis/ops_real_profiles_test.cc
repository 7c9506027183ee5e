// The real profiles in testdata (JAX on TPU v6e and on AMD MI300/MI355) and the
// legacy per-tool .pb files: conversions succeed and tables are self-consistent;
// legacy values are the ones `protoc --decode` shows for those files.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "convert/tools/tool_registry.h"
#include "proto/kernel_stats.pb.h"
#include "proto/xplane.pb.h"
#include "tests/testing/ops_fixtures.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

using ops_test::RunXPlaneTool;

namespace json = boost::json;
namespace fs = std::filesystem;

double Num(const json::value& v) { return v.to_number<double>(); }
const json::array& Rows(const json::value& t) { return t.at("rows").as_array(); }
const json::value& Cell(const json::value& row, size_t col) { return row.at("c").as_array().at(col).at("v"); }

std::string Testdata(const std::string& rel) { return std::string(TBPROF_TESTDATA) + "/" + rel; }

const std::vector<std::string>& RealProfiles() {
  static const std::vector<std::string> files = {
      "xplane/jax_tpu_v6e/tpu_inference_2.xplane.pb", "xplane/jax_rocm_mi300_gemm/tw003.xplane.pb",
      "xplane/jax_rocm_mi300_conv_8gpu/tw003.xplane.pb", "xplane/jax_rocm_mi355_fused_attn/934987a2fc2f.xplane.pb"};
  return files;
}


class OpsRealProfiles : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    path_ = Testdata(GetParam());
    if (!fs::exists(path_)) GTEST_FAIL() << "required: testdata not found: " << path_;
  }
  std::string path_;
};

TEST_P(OpsRealProfiles, FrameworkOpStatsFractionsAddUp) {
  json::value v = RunXPlaneTool("framework_op_stats", path_);
  ASSERT_TRUE(v.is_array());
  for (size_t t = 0; t < 2; ++t) {
    const json::value& table = v.as_array()[t];
    ASSERT_FALSE(Rows(table).empty());
    double device_sum = 0, host_sum = 0, last_device_cum = 0, last_host_cum = 0, rank = 0;
    size_t device_rows = 0, host_rows = 0;
    for (const auto& row : Rows(table)) {
      EXPECT_EQ(Num(Cell(row, 0)), rank + 1);
      rank = Num(Cell(row, 0));
      double occurrences = Num(Cell(row, 4)), total = Num(Cell(row, 5)), self = Num(Cell(row, 7));
      EXPECT_LE(self, total + 1e-6);
      if (occurrences > 0) {
        EXPECT_NEAR(Num(Cell(row, 6)) * occurrences, total, 1e-6 * std::max(1.0, total));
      }
      if (Cell(row, 1).as_string() == "Device") {
        ++device_rows;
        device_sum += Num(Cell(row, 9));
        last_device_cum = Num(Cell(row, 10));
        EXPECT_NEAR(last_device_cum, device_sum, 1e-9);
      } else {
        ++host_rows;
        host_sum += Num(Cell(row, 11));
        last_host_cum = Num(Cell(row, 12));
        EXPECT_NEAR(last_host_cum, host_sum, 1e-9);
      }
    }
    EXPECT_GT(device_rows, 0u);
    if (device_rows < 500) {
      EXPECT_NEAR(device_sum, 1.0, 1e-6) << "table " << t;
    }
    if (host_rows > 0 && host_rows < 500) {
      EXPECT_NEAR(host_sum, 1.0, 1e-6) << "table " << t;
    }
  }
}

TEST_P(OpsRealProfiles, OverviewAndInputPipelineAreConsistent) {
  json::value ov = RunXPlaneTool("overview_page", path_);
  ASSERT_EQ(ov.as_array().size(), 7u);
  const json::value& analysis = ov.as_array()[0];
  ASSERT_FALSE(Rows(analysis).empty());
  EXPECT_LE(Rows(analysis).size(), 10u);
  double cumulative = 0;
  for (const auto& row : Rows(analysis)) {
    cumulative += Num(Cell(row, 0));
    EXPECT_NEAR(Num(Cell(row, 1)), cumulative, 1e-9);
  }
  EXPECT_LE(cumulative, 1.0 + 1e-9);
  json::value ipa = RunXPlaneTool("input_pipeline_analyzer", path_);
  // Five tables everywhere. The first, the cores that waited longest for
  // input, has one column per step of the TPU step table, and none off TPU.
  ASSERT_EQ(ipa.as_array().size(), 5u);
  const bool tpu = GetParam().find("tpu") != std::string::npos;
  if (tpu) {
    EXPECT_EQ(ipa.as_array()[0].as_object().at("cols").as_array().size(), Rows(ipa.as_array()[1]).size() + 1);
  } else {
    EXPECT_TRUE(ipa.as_array()[0].as_object().at("cols").as_array().empty());
    for (const auto& row : Rows(ipa.as_array()[1])) {
      double parts = 0;
      for (size_t c = 1; c <= 9; ++c) parts += Num(Cell(row, c));
      EXPECT_NEAR(parts, Num(Cell(row, 11)), 1e-6);  // the breakdown covers the step
    }
  }
  json::value pod = RunXPlaneTool("pod_viewer", path_);
  EXPECT_TRUE(pod.as_object().contains("podStatsSequence"));
}

TEST_P(OpsRealProfiles, KernelStatsRowsAreSortedAndConsistent) {
  json::value t = RunXPlaneTool("kernel_stats", path_);
  bool gpu = GetParam().find("rocm") != std::string::npos;
  if (gpu) {
    EXPECT_FALSE(Rows(t).empty());
  }
  double previous_total = INFINITY;
  for (const auto& row : Rows(t)) {
    double occurrences = Num(Cell(row, 10)), total = Num(Cell(row, 11)), avg = Num(Cell(row, 12));
    double lo = Num(Cell(row, 13)), hi = Num(Cell(row, 14));
    EXPECT_LE(total, previous_total);
    previous_total = total;
    EXPECT_GE(occurrences, 1);
    EXPECT_NEAR(avg * occurrences, total, occurrences * 0.001 + 1e-9);  // avg is an integer ns
    EXPECT_LE(lo, avg + 1e-9);
    EXPECT_LE(avg, hi + 1e-9);
  }
}

// Every kernel_details text of a file, read by libprotobuf's own parser (not
// tbprof's decoder), and the figure after `key` in each ("" when absent).
std::vector<std::string> KernelDetailsFigures(const std::string& path, const std::string& key) {
  const tensorflow::profiler::XSpace space = test_files::ParseWithLibprotobuf(path);
  std::vector<std::string> out;
  for (const auto& plane : space.planes()) {
    const int64_t id = test_files::StatMetadataId(plane, "kernel_details");
    // A text is the stat's own or, stored once, the name of the stat metadata it refers to.
    auto add = [&](const tensorflow::profiler::XStat& stat) {
      if (stat.metadata_id() != id) return;
      const std::string& text = stat.has_ref_value() ? plane.stat_metadata().at(stat.ref_value()).name()
                                                     : stat.str_value();
      size_t at = text.find(key);
      out.push_back(at == std::string::npos ? "" : text.substr(at + key.size(), text.find(' ', at) - at - key.size()));
    };
    for (const auto& line : plane.lines()) {
      for (const auto& event : line.events()) {
        for (const auto& stat : event.stats()) add(stat);
      }
    }
    for (const auto& [k, md] : plane.event_metadata()) {
      for (const auto& stat : md.stats()) add(stat);
    }
  }
  return out;
}

// ROCm's tracer writes no registers, an occupancy of 0 it did not compute,
// and each kernel's LDS (AMD's shared memory) as group_mem: registers and
// occupancy are unknown (empty cells), shared memory is the group_mem.
TEST(OpsRealRocmKernels, LaunchFiguresAreTheTracersOrUnknown) {
  for (const std::string& rel : RealProfiles()) {
    if (rel.find("rocm") == std::string::npos) continue;
    SCOPED_TRACE(rel);
    const std::string path = Testdata(rel);
    ASSERT_TRUE(fs::exists(path)) << "required: testdata not found: " << path;
    for (const std::string& regs : KernelDetailsFigures(path, "regs:")) ASSERT_EQ(regs, "");
    size_t zeros = 0;
    for (const std::string& o : KernelDetailsFigures(path, "occ_pct:")) {
      ASSERT_TRUE(o.empty() || o == "0") << o;
      zeros += o == "0";
    }
    ASSERT_GT(zeros, 0u);
    std::set<double> lds;
    for (const std::string& g : KernelDetailsFigures(path, "group_mem:")) {
      if (!g.empty()) lds.insert(std::stod(g));
    }
    json::value t = RunXPlaneTool("kernel_stats", path);
    ASSERT_FALSE(Rows(t).empty());
    std::set<double> shown;
    for (const auto& row : Rows(t)) {
      EXPECT_TRUE(Cell(row, 2).is_null());  // registers_per_thread
      EXPECT_TRUE(Cell(row, 6).is_null());  // occupancy_pct
      shown.insert(Num(Cell(row, 3)));      // shmem_bytes
    }
    EXPECT_EQ(shown, lds);
    EXPECT_GT(*lds.rbegin(), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Profiles, OpsRealProfiles, ::testing::ValuesIn(RealProfiles()));

const LegacyToolSpec* Legacy(const std::string& suffix) {
  for (const LegacyToolSpec& s : LegacyConverters()) {
    if (s.suffix == suffix) return &s;
  }
  return nullptr;
}

// The legacy converter of `suffix` (e.g. "overview_page.pb") run on the
// testdata file `rel`; null, failing the test, when either is missing.
json::value RunLegacy(const std::string& suffix, const std::string& rel) {
  const std::string path = Testdata(rel);
  const LegacyToolSpec* spec = Legacy(suffix);
  if (spec == nullptr || !fs::exists(path)) {
    ADD_FAILURE() << "required: " << suffix << " converter and testdata " << path;
    return json::value();
  }
  auto out = spec->run(path, {});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? json::parse(out->body) : json::value();
}

// The run environment's session and training flag. Expected values from a
// second reading of the files' bytes: the Task Environment plane's
// profile_start_time/profile_stop_time uint64 stats decoded from the wire, the
// dates by Python's datetime; the training flag from whether any HLO op name
// holds a "transpose(" or "gradients/"/"gradient_tape/" scope (each file has
// HLO modules): only the MI355 attention profile has them
// ("jit(loss_fn)/transpose(jvp(bsd,de->bse))/dot_general").
TEST(OpsRealRunEnvironment, SessionAndTraining) {
  struct Case {
    const char* file;
    const char* start;     // profile_start_time
    const char* duration;  // profile_duration_ms
    const char* training;
  };
  const Case cases[] = {
      // 1741722099081044120 .. 1741722197726153802 ns
      {"xplane/jax_tpu_v6e/tpu_inference_2.xplane.pb", "2025-03-11T19:41:39.08104412+00:00", "98645", "false"},
      // 1771595650217823548 .. 1771595650231005056 ns
      {"xplane/jax_rocm_mi300_gemm/tw003.xplane.pb", "2026-02-20T13:54:10.217823548+00:00", "13", "false"},
      {"xplane/jax_rocm_mi355_fused_attn/934987a2fc2f.xplane.pb", nullptr, nullptr, "true"},
  };
  for (const Case& c : cases) {
    std::string path = Testdata(c.file);
    if (!fs::exists(path)) GTEST_FAIL() << "required: testdata not found: " << path;
    json::value v = RunXPlaneTool("overview_page", path);
    const json::object& p = v.as_array()[2].at("p").as_object();
    EXPECT_EQ(p.at("is_training").as_string(), c.training) << c.file;
    if (c.start == nullptr) continue;
    EXPECT_EQ(p.at("profile_start_time").as_string(), c.start) << c.file;
    EXPECT_EQ(p.at("profile_duration_ms").as_string(), c.duration) << c.file;
  }
}

const std::string kTf22 = "legacy_logdir_tf22/plugins/profile/";
const std::string kTf23 = "legacy_logdir_tf23_cpu/plugins/profile/2020_08_05_13_37_44/8c859046be41.ant.amazon.com.";

TEST(OpsLegacy, InputPipelinePb) {
  json::value v = RunLegacy("input_pipeline.pb", kTf22 + "GPU-input-bound/localhost.input_pipeline.pb");
  ASSERT_EQ(v.as_array().size(), 5u);
  const json::value& steps = v.as_array()[1];
  EXPECT_EQ(Rows(steps).size(), 11u);
  EXPECT_EQ(steps.at("p").at("steptime_ms_average").as_string(), "1114.5");  // average 1114.4989…
  EXPECT_EQ(steps.at("p").at("steptime_ms_maximum").as_string(), "1173.6");
  EXPECT_EQ(steps.at("p").at("hardware_type").as_string(), "GPU");
  EXPECT_EQ(steps.at("p").at("summary_nextstep").as_string(),
            "Look at Section 3 for the breakdown of input time on the host.");
  const json::value& ops = v.as_array()[2];
  EXPECT_EQ(Rows(ops).size(), 90u);
  EXPECT_EQ(Cell(Rows(ops)[0], 0).as_string(), "Iterator::Prefetch::Generator");
  EXPECT_EQ(Num(Cell(Rows(ops)[0], 1)), 80);
  EXPECT_DOUBLE_EQ(Num(Cell(Rows(ops)[0], 3)), 43.278023671857014 / 100);
  EXPECT_EQ(ops.at("p").at("advanced_file_read_us").as_string(), "3201226.476");
  EXPECT_EQ(ops.at("p").at("preprocessing_us").as_string(), "203097796.855");
}

TEST(OpsLegacy, OverviewPagePb) {
  json::value v = RunLegacy("overview_page.pb", kTf22 + "GPU-compute-bound/localhost.overview_page.pb");
  ASSERT_EQ(v.as_array().size(), 7u);
  const json::value& analysis = v.as_array()[0];
  ASSERT_FALSE(Rows(analysis).empty());
  EXPECT_EQ(Cell(Rows(analysis)[0], 3).as_string(), "replica_1/model/tf_op_layer_Pad/Pad/_2775");
  EXPECT_EQ(Cell(Rows(analysis)[0], 2).as_string(), "_Send");
  EXPECT_DOUBLE_EQ(Num(Cell(Rows(analysis)[0], 0)), 0.036882839395452033);
  const json::value& env = v.as_array()[2];
  EXPECT_EQ(env.at("p").at("device_type").as_string(), "GPU");
  EXPECT_EQ(env.at("p").at("device_core_count").as_string(), "8");
  // The file's run environment has no field 11 (is_training) and an empty
  // host-independent job info: training unknown, no session figures.
  EXPECT_EQ(env.at("p").at("is_training").as_string(), "");
  EXPECT_FALSE(env.at("p").as_object().contains("profile_duration_ms"));
  EXPECT_FALSE(env.at("p").as_object().contains("profile_start_time"));
  const json::value& rec = v.as_array()[3];
  EXPECT_EQ(rec.at("p").at("bottleneck").as_string(), "device");
  EXPECT_EQ(rec.at("p").at("non_bottleneck_tip_types").as_string(), "host");
  EXPECT_EQ(Cell(Rows(rec)[0], 0).as_string(), "faq");
  EXPECT_EQ(Cell(Rows(rec)[0], 1).as_string(), "Refer to the TF2 Profiler FAQ");
}

TEST(OpsLegacy, TensorflowStatsPb) {
  json::value v = RunLegacy("tensorflow_stats.pb", kTf22 + "GPU-input-bound/localhost.tensorflow_stats.pb");
  ASSERT_EQ(v.as_array().size(), 2u);
  const json::value& with_idle = v.as_array()[0];
  EXPECT_EQ(Rows(with_idle).size(), 9749u);
  EXPECT_EQ(Rows(v.as_array()[1]).size(), 9747u);
  // This TF 2.2 file has no device_type (field 6), so no GPU TensorCore column.
  EXPECT_EQ(with_idle.at("cols").as_array().size(), 19u);
  const json::value& first = Rows(with_idle)[0];
  EXPECT_EQ(Num(Cell(first, 0)), 1);
  EXPECT_EQ(Cell(first, 1).as_string(), "Device");
  EXPECT_EQ(Cell(first, 3).as_string(), "IDLE");
  EXPECT_EQ(Num(Cell(first, 4)), 8);
  EXPECT_DOUBLE_EQ(Num(Cell(first, 5)), 82285503.313);
  EXPECT_DOUBLE_EQ(Num(Cell(first, 9)), 0.8390147112352071);

  json::value c = RunLegacy("tensorflow_stats.pb", kTf23 + "tensorflow_stats.pb");
  EXPECT_EQ(Rows(c.as_array()[0]).size(), 81u);
  EXPECT_EQ(Rows(c.as_array()[1]).size(), 80u);
  ToolInput csv_input;
  csv_input.csv = true;
  auto csv = Legacy("tensorflow_stats.pb")->run(Testdata(kTf23 + "tensorflow_stats.pb"), csv_input);
  ASSERT_TRUE(csv.ok());
  EXPECT_EQ(csv->content_type, "text/csv");
  EXPECT_EQ(std::count(csv->body.begin(), csv->body.end(), '\n'), 82);  // header + 81 rows
}

// A legacy file's kernel without shared-memory fields used none (proto3
// leaves the 0 out, and TensorFlow's CUDA tracer always recorded it); its
// occupancy, which files of that era did not record, is unknown.
TEST(OpsLegacy, KernelStatsPbAbsentSharedMemoryIsZeroAbsentOccupancyUnknown) {
  tensorflow::profiler::KernelStatsDb db;
  auto* r = db.add_reports();
  r->set_name("volta_sgemm_128x64_nn");
  r->set_registers_per_thread(126);
  for (int i = 0; i < 3; ++i) r->add_block_dim(i == 0 ? 256 : 1), r->add_grid_dim(i == 0 ? 40 : 1);
  r->set_total_duration_ns(5000);
  r->set_min_duration_ns(5000);
  r->set_max_duration_ns(5000);
  r->set_occurrences(1);
  const std::string file = test_files::TempPath("legacy.kernel_stats.pb");
  {
    std::ofstream out(file, std::ios::binary);
    ASSERT_TRUE(db.SerializeToOstream(&out));
  }
  auto got = Legacy("kernel_stats.pb")->run(file, {});
  fs::remove(file);
  ASSERT_TRUE(got.ok()) << got.status().message();
  json::value v = json::parse(got->body);
  ASSERT_EQ(Rows(v).size(), 1u);
  EXPECT_EQ(Num(Cell(Rows(v)[0], 2)), 126);  // registers_per_thread
  EXPECT_EQ(Num(Cell(Rows(v)[0], 3)), 0);    // shmem_bytes
  EXPECT_TRUE(Cell(Rows(v)[0], 6).is_null());  // occupancy_pct
}

TEST(OpsLegacy, EmptyKernelStatsPbAndBadFiles) {
  json::value v = RunLegacy("kernel_stats.pb", kTf23 + "kernel_stats.pb");
  EXPECT_EQ(v.at("cols").as_array().size(), 15u);
  EXPECT_TRUE(Rows(v).empty());
  // A file that is not the named proto, and a missing file, are errors.
  std::string not_proto = Testdata("legacy_logdir_tf22/plugins/profile/Cloud-TPU/10.240.1.50.overview_page.json");
  EXPECT_FALSE(Legacy("overview_page.pb")->run(not_proto, {}).ok());
  EXPECT_FALSE(Legacy("input_pipeline.pb")->run(Testdata(kTf23 + "missing.input_pipeline.pb"), {}).ok());
}

}  // namespace
}  // namespace tbprof
