// A logdir holding every format tbprof reads, walked as the UI walks it:
// /runs, then each run's /run_tools, then each tool's /hosts, then /data for
// every host offered. Every tool a run lists must answer 200 with a body on
// every host offered for it; a tool a run's format cannot fill (tfprof on a
// PyTorch trace) must not be listed. Listing a run's tools reads the files'
// headers, never a model.
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <filesystem>

#include "convert/model/xspace_model.h"
#include "harness/pipeline_runner.h"
#include "plugin/routes.h"
#include "synthetic/profile_generator.h"
#include "tests/plugin/plugin_test_util.h"
#include "tests/testing/tfprof_fixtures.h"

namespace tbprof {
namespace {

using namespace testing_plugin;

const fs::path kRealdata = TBPROF_TESTDATA;

void Copy(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

// The pipeline harness's demo (one variant, a few steps), as `tbprof harness demo` writes it.
void WriteDemo(const fs::path& logdir) {
  harness::PipelineCosts costs;
  costs.model_us = 200;
  costs.decode_us = 20;
  auto files = harness::WritePipelineData((logdir / "demo_data").string(), costs);
  ASSERT_TRUE(files.ok()) << files.status().message();
  harness::RunOptions options;
  options.steps = 6;
  options.warmup_steps = 1;
  options.logdir = logdir.string();
  options.run_name = "demo_naive";
  auto run = harness::RunPipelineVariant(*harness::FindPipelineVariant("naive"), costs, *files, options);
  ASSERT_TRUE(run.ok()) << run.status().message();
  fs::remove_all(logdir / "demo_data");
}

class EveryListedTool : public testing_plugin::ServiceTest {
 protected:
  void SetUp() override {
    const fs::path logdir = base_ / "logdir";
    WriteDemo(logdir);
    const SynthOptions synth{
        .out_dir = logdir.string(), .run = "synthetic_2hosts", .hosts = 2, .steps = 4, .events = 3000};
    ASSERT_TRUE(GenerateSyntheticLogdir(synth).ok());
    Copy(kRealdata / "legacy_logdir_tf22", logdir / "tf22");
    Copy(kRealdata / "legacy_logdir_tf23_cpu", logdir / "tf23_cpu");
    // The real profiles, one run each; the damaged one is the damaged-file suites' business.
    for (const auto& dir : fs::directory_iterator(kRealdata / "xplane")) {
      if (!dir.is_directory() || dir.path().filename() == "corrupt") continue;
      Copy(dir.path(), logdir / "real/plugins/profile" / dir.path().filename());
    }
    // PyTorch traces: in a profile plugin run, in torch-tb-profiler's layout, and named as HTA and
    // export_chrome_trace name them (the content says what they are).
    Copy(kRealdata / "kineto_nvidia/h100_bert_small.pt.trace.json.gz",
         logdir / "plugins/profile/torch_run/bert.1700000000000.pt.trace.json.gz");
    Copy(kRealdata / "kineto_torch_tb_samples/resnet50_num_workers_0", logdir / "torch_tb/resnet50");
    Copy(kRealdata / "kineto_hta/trace_compare/base.json.gz", logdir / "hta/rank-0.json.gz");
    Copy(kRealdata / "kineto_hta/trace_compare/test.json.gz", logdir / "hta/rank-1.json.gz");
    WriteFile(logdir / "chrome/trace.json", *Inflate(ReadFile(kRealdata / "kineto_hta/triton/triton_example.json.gz"),
                                                     "triton_example.json.gz", uint64_t{1} << 30));
    WriteFile(logdir / "tfprof/profile_100",
              tfprof_fixtures::TfTestModelWriter(tfprof_fixtures::TfTestModel::kShow).Serialize());
    StartService(logdir);
  }

  std::vector<std::string> Strings(const json::value& v) {
    std::vector<std::string> out;
    for (const json::value& s : v.as_array()) out.emplace_back(s.as_string());
    return out;
  }
};

TEST_F(EveryListedTool, AnswersOnEveryHostOfEveryRun) {
  const std::vector<std::string> runs = Strings(GetJson("/runs"));
  for (const char* expected : {"demo_naive", "synthetic_2hosts", "tf22/GPU-input-bound", "tf23_cpu/2020_08_05_13_37_44",
                               "real/jax_tpu_v6e", "torch_run", "torch_tb/resnet50", "hta", "chrome", "tfprof"}) {
    EXPECT_NE(std::find(runs.begin(), runs.end(), expected), runs.end()) << expected << " is not a run";
  }
  int answered = 0;
  for (const std::string& run : runs) {
    const std::string r = PercentEncode(run);
    const std::vector<std::string> tools = Strings(GetJson("/run_tools?run=" + r));
    EXPECT_FALSE(tools.empty()) << run << " lists no tool";
    for (const std::string& tool : tools) {
      std::vector<std::string> hosts;
      const json::value offered = GetJson("/hosts?run=" + r + "&tag=" + PercentEncode(tool));
      for (const json::value& h : offered.as_array()) {
        hosts.emplace_back(h.as_object().at("hostname").as_string());
      }
      if (hosts.empty()) hosts.emplace_back();  // a run of bare files: no host to name
      for (const std::string& host : hosts) {
        // The trace viewers at a bounded resolution, the graph viewer for its programs, as the UI first asks.
        const std::string extra = tool.starts_with("trace_viewer") ? "&resolution=2000"
                                  : tool == "graph_viewer"          ? "&type=programs"
                                                                    : "";
        const std::string target =
            "/data?run=" + r + "&tag=" + PercentEncode(tool) + "&host=" + PercentEncode(host) + extra;
        HttpResponse answer = Get(target);
        EXPECT_EQ(answer.status, 200) << target << ": " << answer.Body().substr(0, 300);
        EXPECT_FALSE(answer.Body().empty()) << target;
        ++answered;
      }
    }
  }
  EXPECT_GT(answered, 50);
}

TEST_F(EveryListedTool, AToolTheFormatCannotFillIsNotListed) {
  for (const char* run : {"torch_run", "torch_tb/resnet50", "hta", "chrome"}) {
    const std::vector<std::string> tools = Strings(GetJson(std::string("/run_tools?run=") + run));
    EXPECT_EQ(std::find(tools.begin(), tools.end(), "tfprof"), tools.end()) << run;
    EXPECT_EQ(std::find(tools.begin(), tools.end(), "tf_data_bottleneck_analysis"), tools.end()) << run;
    EXPECT_NE(std::find(tools.begin(), tools.end(), "overview_page"), tools.end()) << run;
  }
  // Asked for anyway, the answer says what tfprof reads instead of calling the trace damaged.
  HttpResponse r = Get("/data?run=hta&tag=tfprof&host=rank-0");
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.Body().find("tfprof needs a TensorFlow/JAX xplane profile"), std::string::npos) << r.Body();
  EXPECT_NE(r.Body().find("PyTorch (Kineto) trace"), std::string::npos) << r.Body();
  EXPECT_EQ(Strings(GetJson("/run_tools?run=tfprof")), std::vector<std::string>{"tfprof"});
}

TEST_F(EveryListedTool, ListingToolsLoadsNoModel) {
  // A real JAX profile whose HLO tools are listed by what its metadata plane holds.
  const std::vector<std::string> tools = Strings(GetJson("/run_tools?run=real/jax_tpu_v6e"));
  EXPECT_NE(std::find(tools.begin(), tools.end(), "hlo_stats"), tools.end());
  EXPECT_NE(std::find(tools.begin(), tools.end(), "op_profile"), tools.end());
  EXPECT_EQ(std::find(tools.begin(), tools.end(), "kernel_stats"), tools.end()) << "a TPU profile has no GPU plane";
  const std::vector<std::string> gpu = Strings(GetJson("/run_tools?run=synthetic_2hosts"));
  EXPECT_NE(std::find(gpu.begin(), gpu.end(), "kernel_stats"), gpu.end());
  for (const auto& f : fs::directory_iterator(base_ / "logdir/real/plugins/profile/jax_tpu_v6e")) {
    auto id = FileIdentityOf(fs::canonical(f.path()).string());
    ASSERT_TRUE(id.ok());
    EXPECT_EQ(service_->cache().Peek<XSpaceModel>("model|" + FileIdentityKey(fs::canonical(f.path()).string(), *id)),
              nullptr)
        << "listing loaded " << f.path();
  }
  EXPECT_EQ(service_->cache().bytes_used(), 0u) << "listing cached something";
}

}  // namespace
}  // namespace tbprof
