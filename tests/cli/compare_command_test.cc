// `tbprof compare` run as a command: formats, the --fail-if exit codes (0
// passed, 1 crossed, 2 usage, 3 undecidable, 4 unreadable) and the ways a run
// is named (a profile file, a run directory, a logdir holding one run).
#include <sys/wait.h>

#include <set>
#include <string>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace json = boost::json;
using test_files::RunCommand;

const std::string kData = TBPROF_TESTDATA;
const std::string kGemm = kData + "/xplane/jax_rocm_mi300_gemm/tw003.xplane.pb";
const std::string kConv = kData + "/xplane/jax_rocm_mi300_conv_8gpu/tw003.xplane.pb";
const std::string kComputeBound = kData + "/legacy_logdir_tf22/plugins/profile/GPU-compute-bound";
const std::string kInputBound = kData + "/legacy_logdir_tf22/plugins/profile/GPU-input-bound";
const std::string kTpu = kData + "/xplane/jax_tpu_v6e/tpu_inference_2.xplane.pb";
const std::string kTorchRun = kData + "/kineto_torch_tb_samples/resnet50_num_workers_0";
const std::string kSpan1 = "worker0.1623143089861";
const std::string kSpan2 = "worker0.1623143566756";
const std::string kHtaBase = kData + "/kineto_hta/trace_compare/base.json.gz";
const std::string kHtaTest = kData + "/kineto_hta/trace_compare/test.json.gz";

struct CliRun {
  int exit_code;
  std::string output;
};

CliRun Compare(const std::string& args) {
  auto r = RunCommand(std::string(TBPROF_BINARY) + " compare " + args + " 2>&1");
  return {WEXITSTATUS(r.status), r.output};
}

CliRun CompareStdout(const std::string& args) {
  auto r = RunCommand(std::string(TBPROF_BINARY) + " compare " + args + " 2>/dev/null");
  return {WEXITSTATUS(r.status), r.output};
}

TEST(CompareCommand, FailIfExitCodes) {
  // A run with itself changes by 0: above -1% is crossed, above +1% is not.
  EXPECT_EQ(Compare(kInputBound + " " + kInputBound + " --fail-if 'step_time>+1%'").exit_code, 0);
  CliRun crossed = Compare(kInputBound + " " + kInputBound + " --fail-if 'step_time>-1%'");
  EXPECT_EQ(crossed.exit_code, 1) << crossed.output;
  EXPECT_NE(crossed.output.find("FAIL step_time>-1%"), std::string::npos) << crossed.output;
  // The two legacy runs' step times, as their input_pipeline files hold them
  // (1805.1 and 1114.5 ms on average): input-bound is 690.6 ms (38.3%) faster.
  EXPECT_EQ(Compare(kComputeBound + " " + kInputBound + " --fail-if 'step_time>+0ms'").exit_code, 0);
  EXPECT_EQ(Compare(kComputeBound + " " + kInputBound + " --fail-if 'step_time<-690ms'").exit_code, 1);
  EXPECT_EQ(Compare(kComputeBound + " " + kInputBound + " --fail-if 'step_time<-691ms'").exit_code, 0);
  EXPECT_EQ(Compare(kComputeBound + " " + kInputBound + " --fail-if 'step_time<-38%'").exit_code, 1);
  EXPECT_EQ(Compare(kComputeBound + " " + kInputBound + " --fail-if 'step_time<-39%'").exit_code, 0);
  // compute-bound has no framework-op table: an op check cannot be decided.
  EXPECT_EQ(Compare(kComputeBound + " " + kInputBound + " --fail-if 'op:anything>+1%'").exit_code, 3);
  // Several checks: a crossed one wins over an undecidable one.
  EXPECT_EQ(Compare(kInputBound + " " + kInputBound + " --fail-if 'op:no_such_op>+1%' --fail-if 'step_time<+1%'")
                .exit_code,
            1);
  EXPECT_EQ(Compare(kInputBound + " " + kInputBound + " --fail-if 'step_time>+5'").exit_code, 2);
  EXPECT_EQ(Compare(kInputBound).exit_code, 2);
  EXPECT_EQ(Compare(kInputBound + " " + kInputBound + " --format xml").exit_code, 2);
  CliRun missing = Compare(kInputBound + " /nonexistent/run.xplane.pb");
  EXPECT_EQ(missing.exit_code, 4) << missing.output;
}

TEST(CompareCommand, AnHloOpAddedInBCrossesAnyIncreaseThreshold) {
  CliRun j = CompareStdout(kGemm + " " + kConv + " --format json --tool hlo_stats");
  ASSERT_EQ(j.exit_code, 0) << j.output;
  json::value v = json::parse(j.output);
  std::string added, both;
  for (const auto& r : v.at("hlo_ops").as_array()) {
    if (added.empty() && r.at("presence") == "added") added = std::string(r.at("name").as_string());
  }
  ASSERT_FALSE(added.empty());
  EXPECT_EQ(Compare(kGemm + " " + kConv + " --tool hlo_stats --fail-if 'hlo:" + added + ">+1000%'").exit_code, 1);
  EXPECT_EQ(Compare(kGemm + " " + kConv + " --tool hlo_stats --fail-if 'hlo:" + added + "<+0us'").exit_code, 0);
}

TEST(CompareCommand, FormatsAndRunNames) {
  CliRun table = CompareStdout(kComputeBound + " " + kInputBound);
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("Steps (averages per step, ms)"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("step_time_ms"), std::string::npos);
  CliRun csv = CompareStdout(kComputeBound + " " + kInputBound + " --format csv");
  ASSERT_EQ(csv.exit_code, 0);
  EXPECT_TRUE(csv.output.starts_with("section,name,metric,where,type,presence,a,b,delta,delta_percent")) << csv.output;
  // A logdir holding one run is that run; a profile file is a run of one host.
  CliRun logdir = CompareStdout(kData + "/legacy_logdir_tf23_cpu " + kData + "/legacy_logdir_tf23_cpu --format json");
  ASSERT_EQ(logdir.exit_code, 0) << logdir.output;
  json::value logdir_json = json::parse(logdir.output);
  EXPECT_FALSE(logdir_json.at("framework_ops").as_array().empty());
  CliRun file = CompareStdout(kGemm + " " + kGemm + " --format json --tool framework_op_stats");
  ASSERT_EQ(file.exit_code, 0) << file.output;
  json::value file_json = json::parse(file.output);
  ASSERT_FALSE(file_json.at("framework_ops").as_array().empty());
  for (const auto& r : file_json.at("framework_ops").as_array()) {
    EXPECT_EQ(r.at("delta_us").to_number<double>(), 0.0);
  }
  // A logdir of several runs is not one run: the message names them.
  CliRun several = Compare(kData + "/legacy_logdir_tf22 " + kInputBound);
  EXPECT_EQ(several.exit_code, 4);
  EXPECT_NE(several.output.find("GPU-input-bound"), std::string::npos) << several.output;
}

// HTA's trace diff of iteration 1010 (tests/test_trace_diff.py states it):
// three ops added, nccl:all_reduce (67 us) removed; --fail-if on an event.
TEST(CompareCommand, HostEventsOfOneStepOfTwoPyTorchTraces) {
  CliRun j = CompareStdout(kHtaBase + " " + kHtaTest + " --step 1010 --tool overview_page --format json");
  ASSERT_EQ(j.exit_code, 0) << j.output;
  json::value v = json::parse(j.output);
  std::set<std::string> added, removed;
  for (const auto& r : v.at("step_events").as_array()) {
    if (r.at("presence") == "added") added.insert(std::string(r.at("name").as_string()));
    if (r.at("presence") == "removed") removed.insert(std::string(r.at("name").as_string()));
  }
  EXPECT_EQ(added, (std::set<std::string>{"AddmmBackward0", "All2All_Pooled_Req", "CatBackward0"}));
  EXPECT_EQ(removed, (std::set<std::string>{"nccl:all_reduce"}));
  const std::string pair = kHtaBase + " " + kHtaTest + " --step 1010 --tool overview_page";
  EXPECT_EQ(Compare(pair + " --fail-if 'event:nccl:all_reduce<-60us'").exit_code, 1);
  EXPECT_EQ(Compare(pair + " --fail-if 'event:AddmmBackward0>+300us'").exit_code, 0);  // 207 us added
  EXPECT_EQ(Compare(pair + " --fail-if 'event:AddmmBackward0>+200us'").exit_code, 1);
  CliRun table = CompareStdout(pair);
  EXPECT_NE(table.output.find("Host events of step 1010 (A) and step 1010 (B) (9 rows, 3 added, 1 removed"),
            std::string::npos)
      << table.output;
  CliRun missing = Compare(kHtaBase + " " + kHtaTest + " --step 3");
  EXPECT_EQ(missing.exit_code, 4);
  EXPECT_NE(missing.output.find("no step 3 on the host (its steps: 1009, 1010)"), std::string::npos) << missing.output;
  EXPECT_EQ(Compare(pair + " --base_step x").exit_code, 2);
  EXPECT_EQ(Compare(kComputeBound + " " + kInputBound + " --step 1").exit_code, 4);  // legacy files hold no events
}

// Two spans of one worker (torch-tb-profiler's layout), as two files or as
// the run's directory twice with --host/--base_host: the same comparison.
TEST(CompareCommand, TwoSpansOfOneWorker) {
  CliRun files = CompareStdout(kTorchRun + "/" + kSpan1 + ".pt.trace.json.gz " + kTorchRun + "/" + kSpan2 +
                               ".pt.trace.json.gz --format json --tool overview_page,kernel_stats");
  ASSERT_EQ(files.exit_code, 0) << files.output;
  CliRun hosts = CompareStdout(kTorchRun + " " + kTorchRun + " --base_host " + kSpan1 + " --host " + kSpan2 +
                               " --format json --tool overview_page,kernel_stats");
  ASSERT_EQ(hosts.exit_code, 0) << hosts.output;
  json::value f = json::parse(files.output), h = json::parse(hosts.output);
  EXPECT_EQ(f.at("steps"), h.at("steps"));
  EXPECT_EQ(f.at("kernels"), h.at("kernels"));
  double a = 0, b = 0;
  for (const auto& m : f.at("steps").as_array()) {
    if (m.at("name") == "step_time_ms") {
      a = m.at("a").to_number<double>();
      b = m.at("b").to_number<double>();
    }
  }
  EXPECT_GT(a, 0);
  EXPECT_NE(a, b);  // two different spans
  EXPECT_FALSE(f.at("kernels").as_array().empty());
  // The run without --host: its first span (spans are never combined), and the label says so.
  CliRun first = CompareStdout(kTorchRun + " " + kTorchRun + " --host " + kSpan2 + " --format json --tool overview_page,kernel_stats");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  json::value d = json::parse(first.output);
  EXPECT_EQ(d.at("run_a").as_string(), kTorchRun + " (" + kSpan1 + ")");
  EXPECT_EQ(d.at("steps"), h.at("steps"));
}

// The real TPU profile (inference) measures no step: the TPU breakdown rows
// are there, unknown, and the comparison says why; a check on them cannot be decided.
TEST(CompareCommand, TpuStepBreakdownWithoutStepsSaysWhy) {
  CliRun j = CompareStdout(kTpu + " " + kTpu + " --tool overview_page --format json");
  ASSERT_EQ(j.exit_code, 0) << j.output;
  json::value v = json::parse(j.output);
  bool tpu_row = false;
  for (const auto& m : v.at("steps").as_array()) {
    if (m.at("name") == "tc_compute_ms") {
      tpu_row = true;
      EXPECT_TRUE(m.at("a").is_null());
      EXPECT_TRUE(m.at("delta").is_null());
    }
  }
  EXPECT_TRUE(tpu_row);
  EXPECT_NE(std::string(v.at("step_notes").at("a").as_string()).find("no step was measured"), std::string::npos);
  EXPECT_EQ(Compare(kTpu + " " + kTpu + " --tool overview_page --fail-if 'tc_compute>+1%'").exit_code, 3);
}

}  // namespace
}  // namespace tbprof
