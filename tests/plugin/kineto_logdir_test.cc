// PyTorch traces in a logdir: torch-tb-profiler's layout (a run is a
// directory of <worker>.<timestamp>.pt.trace.json[.gz] files), the profile
// plugin's (plugins/profile/<run>/), and both in one logdir beside xplanes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <boost/json.hpp>

#include <fstream>
#include <map>

#include "plugin/logdir.h"
#include "plugin/routes.h"
#include "plugin/run_tools.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
const fs::path kTestdata = TBPROF_TESTDATA;

class KinetoLogdir : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("tbprof_kineto_logdir_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    const fs::path sample = kTestdata / "kineto_torch_tb_samples/resnet50_num_workers_0";
    fs::create_directories(root_ / "resnet50");
    for (const auto& e : fs::directory_iterator(sample)) fs::copy_file(e.path(), root_ / "resnet50" / e.path().filename());
    fs::create_directories(root_ / "plugins/profile/bert");
    fs::copy_file(kTestdata / "kineto_nvidia/h100_bert_small.pt.trace.json.gz",
                  root_ / "plugins/profile/bert/rank0.pt.trace.json.gz");
    for (const auto& e : fs::recursive_directory_iterator(kTestdata / "xplane/jax_rocm_mi300_gemm")) {
      if (e.path().string().ends_with(".xplane.pb")) {
        fs::create_directories(root_ / "jax/plugins/profile/gemm");
        fs::copy_file(e.path(), root_ / "jax/plugins/profile/gemm" / e.path().filename());
        break;
      }
    }
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(KinetoLogdir, BothLayoutsAndXPlanesAreRuns) {
  auto logdir = Logdir::Open(root_.string());
  ASSERT_TRUE(logdir.ok()) << logdir.status().message();
  auto runs = logdir->ListRuns({});
  ASSERT_TRUE(runs.ok());
  std::vector<std::string> names;
  for (const RunRef& r : *runs) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"resnet50", "jax/gemm", "bert"}));

  // Each file of a worker is a host named after it: the two spans of worker0.
  auto resnet = logdir->FindRun("resnet50", {});
  ASSERT_TRUE(resnet.ok()) << resnet.status().message();
  RunContents c = logdir->ScanRun(resnet->dir);
  ASSERT_EQ(c.profiles.size(), 2u);
  EXPECT_EQ(c.profiles[0].host, "worker0.1623143089861");
  EXPECT_EQ(c.profiles[1].host, "worker0.1623143566756");
  // Spans are picked like hosts, even for the overview (all hosts only for xplanes).
  for (std::string tool : {"kernel_stats", "overview_page"}) {
    std::vector<std::string> hosts = HostsOfRun(c, tool);
    EXPECT_NE(std::find(hosts.begin(), hosts.end(), "worker0.1623143089861"), hosts.end()) << tool;
    EXPECT_NE(std::find(hosts.begin(), hosts.end(), "worker0.1623143566756"), hosts.end()) << tool;
  }
  EXPECT_FALSE(AllHostsOnlyInRun("overview_page", c));

  std::vector<std::string> tools = ToolsOfRun(c, nullptr);
  for (std::string t : {"overview_page", "framework_op_stats", "kernel_stats", "trace_viewer@", "memory_profile",
                        "input_pipeline_analyzer"}) {
    EXPECT_NE(std::find(tools.begin(), tools.end(), t), tools.end()) << t;
  }
  for (std::string t : {"hlo_stats", "op_profile", "roofline_model", "memory_viewer", "graph_viewer"}) {
    EXPECT_EQ(std::find(tools.begin(), tools.end(), t), tools.end()) << t << " needs HLO programs";
  }

  auto bert = logdir->FindRun("bert", {});
  ASSERT_TRUE(bert.ok());
  RunContents b = logdir->ScanRun(bert->dir);
  ASSERT_EQ(b.profiles.size(), 1u);
  EXPECT_EQ(b.profiles[0].host, "rank0");
  EXPECT_FALSE(logdir->FindRun("resnet50/../..", {}).ok());
}

namespace json = boost::json;

// torch-tb-profiler's GPU summary for the sample (its result_check_file.txt,
// read here): title -> value, e.g. "GPU Utilization" -> "55.51 %".
std::map<std::string, std::string> TorchTbGpuSummary() {
  std::ifstream in(kTestdata / "kineto_torch_tb_samples/result_check_file.txt");
  std::string overview;
  std::getline(in, overview);
  std::map<std::string, std::string> out;
  const json::value parsed = json::parse(overview);  // outlives the loop (a temporary would not)
  for (const json::value& item : parsed.at("gpu_metrics").at("data").as_array()) {
    out[std::string(item.at("title").as_string())] = std::string(item.at("value").as_string());
  }
  return out;
}

class KinetoRoutes : public KinetoLogdir {
 protected:
  void SetUp() override {
    KinetoLogdir::SetUp();
    ProfileServiceOptions options;
    options.logdir = root_.string();
    options.web_dir = (root_ / "no_web").string();
    options.cache_bytes = 64 << 20;
    auto s = ProfileService::Create(options);
    ASSERT_TRUE(s.ok()) << s.status().message();
    service_ = std::move(*s);
  }
  json::value GetJson(const std::string& target) {
    HttpRequest r;
    r.target = target;
    HttpResponse got = service_->Handle(r);
    EXPECT_EQ(got.status, 200) << target << ": " << got.Body();
    boost::system::error_code ec;
    json::value v = json::parse(got.Body(), ec);
    EXPECT_FALSE(ec) << target;
    return v;
  }
  std::unique_ptr<ProfileService> service_;
};

bool Lists(const json::value& tools, std::string_view tool) {
  for (const json::value& t : tools.as_array()) {
    if (t.as_string() == tool) return true;
  }
  return false;
}

// A PyTorch run lists only tools its traces can fill: tf.data's analysis
// needs TensorFlow's iterator events (an xplane run still lists it).
TEST_F(KinetoRoutes, RunToolsOfPyTorchRunsLeaveOutTfData) {
  for (std::string run : {"resnet50", "bert"}) {
    json::value tools = GetJson("/data/plugin/profile/run_tools?run=" + run);
    EXPECT_FALSE(Lists(tools, "tf_data_bottleneck_analysis")) << run;
    for (std::string_view t : {"overview_page", "framework_op_stats", "kernel_stats", "trace_viewer@",
                               "input_pipeline_analyzer", "memory_profile"}) {
      EXPECT_TRUE(Lists(tools, t)) << run << " " << t;
    }
  }
  EXPECT_TRUE(Lists(GetJson("/data/plugin/profile/run_tools?run=jax/gemm"), "tf_data_bottleneck_analysis"));
  EXPECT_FALSE(PyTorchTraceCanFill("tf_data_bottleneck_analysis"));
}

// The overview of span 1 carries torch-tb-profiler's GPU summary as extra
// properties of the analysis table; an xplane run's has none of them.
TEST_F(KinetoRoutes, OverviewServesTorchTbProfilersGpuSummary) {
  json::value page = GetJson("/data?run=resnet50&tag=overview_page&host=worker0.1623143089861");
  const json::object& props = page.as_array()[0].at("p").as_object();
  std::map<std::string, std::string> expected = TorchTbGpuSummary();
  auto served = [&](const char* key) {
    std::string v(props.at(key).as_string());
    return v.substr(0, v.size() - 1) + " %";  // "55.51%" as the plugin wrote it: "55.51 %"
  };
  EXPECT_EQ(served("gpu_utilization_percent"), expected["GPU Utilization"]);
  EXPECT_EQ(served("sm_efficiency_percent"), expected["Est. SM Efficiency"]);
  EXPECT_EQ(served("achieved_occupancy_percent"), expected["Est. Achieved Occupancy"]);

  json::value xplane = GetJson("/data?run=jax/gemm&tag=overview_page");
  const json::object& xp = xplane.as_array()[0].at("p").as_object();
  for (const char* key : {"gpu_utilization_percent", "sm_efficiency_percent", "achieved_occupancy_percent"}) {
    EXPECT_FALSE(xp.contains(key)) << key;
  }
}

}  // namespace
}  // namespace tbprof
