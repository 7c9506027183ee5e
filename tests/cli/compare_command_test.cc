// `tbprof compare` run as a command: formats, the --fail-if exit codes (0
// passed, 1 crossed, 2 usage, 3 undecidable, 4 unreadable) and the ways a run
// is named (a profile file, a run directory, a logdir holding one run).
#include <sys/wait.h>

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

}  // namespace
}  // namespace tbprof
