// `tbprof harness gpu`'s flags, as a user gives them: bad ones are usage
// errors (exit 2) before anything runs, and --help lists every workload and
// exit code.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <string>

#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

using test_files::RunCommand;

test_files::CommandResult HarnessGpu(const std::string& args) {
  return RunCommand(std::string(TBPROF_BINARY) + " harness gpu " + args + " 2>&1");
}

TEST(HarnessGpuCommand, BadFlagsAreUsageErrors) {
  auto iters = HarnessGpu("--iters zero");
  EXPECT_EQ(WEXITSTATUS(iters.status), 2) << iters.output;
  EXPECT_NE(iters.output.find("--iters expects an integer in [1, 100000], got 'zero'"), std::string::npos)
      << iters.output;
  // --check reads the CUPTI trace that --untraced does not take.
  auto both = HarnessGpu("--check --untraced");
  EXPECT_EQ(WEXITSTATUS(both.status), 2) << both.output;
  EXPECT_NE(both.output.find("--untraced"), std::string::npos) << both.output;
  auto unknown = HarnessGpu("--no_such_flag");
  EXPECT_EQ(WEXITSTATUS(unknown.status), 2) << unknown.output;
  auto stray = HarnessGpu("fp16_tc_gemm");
  EXPECT_EQ(WEXITSTATUS(stray.status), 2) << stray.output;
}

TEST(HarnessGpuCommand, HelpListsEveryFlagAndExitCode) {
  auto help = HarnessGpu("--help");
  EXPECT_EQ(WEXITSTATUS(help.status), 0) << help.output;
  for (const char* flag : {"--workload", "--iters", "--logdir", "--check", "--untraced"}) {
    EXPECT_NE(help.output.find(flag), std::string::npos) << flag << "\n" << help.output;
  }
  EXPECT_NE(help.output.find("3 no GPU"), std::string::npos) << help.output;
}

#ifdef TBPROF_HAVE_GPU_HARNESS
TEST(HarnessGpuCommand, HelpListsEveryWorkloadAndAnUnknownOneIsAUsageError) {
  auto help = HarnessGpu("--help");
  for (const char* w : {"fp32_simt_gemm", "fp16_tc_gemm", "fp16_tc_gemm_odd", "bf16_tc_gemm", "bf16_tc_gemm_odd",
                        "cublas_fp16_gemm", "cublas_fp32_gemm", "elementwise", "copies", "multi_stream"}) {
    EXPECT_NE(help.output.find(w), std::string::npos) << w;
  }
  auto unknown = HarnessGpu("--workload no_such_workload");
  EXPECT_EQ(WEXITSTATUS(unknown.status), 2) << unknown.output;
  EXPECT_NE(unknown.output.find("unknown workload 'no_such_workload'"), std::string::npos) << unknown.output;
}
#endif

}  // namespace
}  // namespace tbprof
