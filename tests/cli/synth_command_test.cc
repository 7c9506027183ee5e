// `tbprof synth` as a user runs it: --out names a logdir, and the help says so.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <string>

#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

using test_files::RunCommand;

std::string Synth(const std::string& args) { return std::string(TBPROF_BINARY) + " synth " + args + " 2>&1"; }

// A user who passed a run folder got plugins/profile/ nested inside it, which serve did not list.
TEST(SynthCommand, HelpSaysOutIsALogdirNotARunFolder) {
  auto r = RunCommand(Synth("--help"));
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  EXPECT_NE(r.output.find("logdir to write (required), not a run folder"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("DIR/plugins/profile/<--run>/"), std::string::npos) << r.output;
}

TEST(SynthCommand, TheRunGoesUnderPluginsProfileOfTheLogdir) {
  const std::string logdir = test_files::TempPath("synth_logdir");
  auto r = RunCommand(Synth("--out " + logdir + " --events 200 --steps 2 --run r1"));
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  EXPECT_EQ(r.output.rfind(logdir + "/plugins/profile/r1/", 0), 0u) << r.output;
}

}  // namespace
}  // namespace tbprof
