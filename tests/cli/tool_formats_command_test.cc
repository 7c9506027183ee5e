// A tool asked of a file whose format cannot fill it says so and what the tool
// reads, instead of calling the file damaged (tfprof on a PyTorch trace).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <string>

#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

using test_files::RunCommand;

const std::string kTrace = std::string(TBPROF_TESTDATA) + "/kineto_nvidia/h100_bert_small.pt.trace.json.gz";

TEST(ToolFormatsCommand, ConvertRefusesTfprofOnAPyTorchTrace) {
  auto r = RunCommand(std::string(TBPROF_BINARY) + " convert " + kTrace + " --tool tfprof 2>&1");
  EXPECT_EQ(WEXITSTATUS(r.status), 2) << r.output;
  EXPECT_NE(r.output.find("tfprof needs a TensorFlow/JAX xplane profile (.xplane.pb) or a tfprof profile "
                          "(ProfileProto); h100_bert_small.pt.trace.json.gz is a PyTorch (Kineto) trace"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("damaged"), std::string::npos) << r.output;
}

TEST(ToolFormatsCommand, TfprofRefusesAPyTorchTrace) {
  auto r = RunCommand(std::string(TBPROF_BINARY) + " tfprof " + kTrace + " op 2>&1");
  EXPECT_NE(WEXITSTATUS(r.status), 0) << r.output;
  EXPECT_NE(r.output.find("tfprof's views need a TensorFlow/JAX xplane profile (.xplane.pb) or a tfprof profile "
                          "(ProfileProto); h100_bert_small.pt.trace.json.gz is a PyTorch (Kineto) trace"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("damaged"), std::string::npos) << r.output;
}

TEST(ToolFormatsCommand, ConvertStillReadsAPyTorchTraceForItsTools) {
  auto r = RunCommand(std::string(TBPROF_BINARY) + " convert " + kTrace + " --tool kernel_stats --out /dev/null 2>&1");
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.output.substr(0, 400);
}

}  // namespace
}  // namespace tbprof
