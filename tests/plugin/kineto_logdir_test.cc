// PyTorch traces in a logdir: torch-tb-profiler's layout (a run is a
// directory of <worker>.<timestamp>.pt.trace.json[.gz] files), the profile
// plugin's (plugins/profile/<run>/), and both in one logdir beside xplanes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "plugin/logdir.h"
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
  ASSERT_EQ(c.xplanes.size(), 2u);
  EXPECT_EQ(c.xplanes[0].host, "worker0.1623143089861");
  EXPECT_EQ(c.xplanes[1].host, "worker0.1623143566756");
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
  ASSERT_EQ(b.xplanes.size(), 1u);
  EXPECT_EQ(b.xplanes[0].host, "rank0");
  EXPECT_FALSE(logdir->FindRun("resnet50/../..", {}).ok());
}

}  // namespace
}  // namespace tbprof
