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

// Runs `tbprof ARGS` on the trace: it must fail saying `why` (the tool's
// formats, the trace's), never that the trace is damaged. Its exit status.
int ExpectTraceRefused(const std::string& args, const std::string& why) {
  auto r = RunCommand(std::string(TBPROF_BINARY) + " " + args + " 2>&1");
  EXPECT_NE(WEXITSTATUS(r.status), 0) << r.output;
  EXPECT_NE(r.output.find(why + "; h100_bert_small.pt.trace.json.gz is a PyTorch (Kineto) trace"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("damaged"), std::string::npos) << r.output;
  return WEXITSTATUS(r.status);
}

TEST(ToolFormatsCommand, ConvertRefusesTfprofOnAPyTorchTrace) {
  EXPECT_EQ(ExpectTraceRefused("convert " + kTrace + " --tool tfprof",
                               "tfprof needs a TensorFlow/JAX xplane profile (.xplane.pb) or a tfprof profile "
                               "(ProfileProto)"),
            2);
}

TEST(ToolFormatsCommand, TfprofRefusesAPyTorchTrace) {
  ExpectTraceRefused("tfprof " + kTrace + " op",
                     "tfprof's views need a TensorFlow/JAX xplane profile (.xplane.pb) or a tfprof profile "
                     "(ProfileProto)");
}

TEST(ToolFormatsCommand, ConvertStillReadsAPyTorchTraceForItsTools) {
  auto r = RunCommand(std::string(TBPROF_BINARY) + " convert " + kTrace + " --tool kernel_stats --out /dev/null 2>&1");
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.output.substr(0, 400);
}

}  // namespace
}  // namespace tbprof
