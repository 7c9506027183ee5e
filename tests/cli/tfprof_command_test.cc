// `tbprof tfprof` as a user runs it: tfprof's option syntax, its Doc/Profile
// output, commands read from the standard input without a view, and clear
// errors for bad files and options.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>

#include "tests/testing/test_files.h"
#include "tests/testing/tfprof_fixtures.h"

namespace tbprof {
namespace {

using test_files::RunCommand;

std::string WriteShowModel() {
  std::string path = test_files::TempPath("profile_100");
  std::ofstream(path, std::ios::binary)
      << tfprof_fixtures::TfTestModelWriter(tfprof_fixtures::TfTestModel::kShow).Serialize();
  return path;
}

std::string Tbprof(const std::string& args) { return std::string(TBPROF_BINARY) + " tfprof " + args; }

std::string AfterProfile(const std::string& out) {
  size_t at = out.find("Profile:\n");
  return at == std::string::npos ? "(no Profile: in) " + out : out.substr(at + 9);
}

// TensorFlow's DumpScopeMode answer (tfprof_show_test.cc), through the CLI.
TEST(TfprofCommand, ScopeViewWithTfprofOptionSyntax) {
  auto r = RunCommand(Tbprof(WriteShowModel() +
                             " scope -max_depth 5 -account_type_regexes VariableV2 -hide_name_regexes '' "
                             "-select params,bytes,peak_bytes,residual_bytes,output_bytes,micros,float_ops"));
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  EXPECT_EQ(r.output.rfind("\nDoc:\n", 0), 0u);
  EXPECT_EQ(AfterProfile(r.output),
            tfprof_fixtures::kShowModelScopeAnswer);
}

// The command line's defaults: Variable accounting, params, depth 4.
TEST(TfprofCommand, CommandLineDefaults) {
  auto r = RunCommand(Tbprof(WriteShowModel() + " scope"));
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  EXPECT_EQ(AfterProfile(r.output),
            "node name | # parameters\n_TFProfRoot (--/451 params)\n  DW (3x3x3x6, 162/162 params)\n"
            "  DW2 (2x2x6x12, 288/288 params)\n  ScalarW (1, 1/1 params)\n");
}

TEST(TfprofCommand, CommandsFromStandardInputWithSet) {
  const std::string input = "set -account_type_regexes '.*' -select occurrence\\nop -max_depth 0\\nquit\\n";
  auto r = RunCommand("printf \"" + input + "\" | " + Tbprof(WriteShowModel()));
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  // Name order, first row only: Add, 3 nodes, none ran.
  EXPECT_EQ(AfterProfile(r.output), "node name | op occurrence (run|defined)\nAdd                             0|3\n");
}

TEST(TfprofCommand, FileOutput) {
  const std::string out = test_files::TempPath("tfprof_dump.txt");
  auto r = RunCommand(Tbprof(WriteShowModel() + " op -select params -output file:outfile=" + out));
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  EXPECT_EQ(r.output, "");
  EXPECT_NE(AfterProfile(test_files::ReadAll(out)).find("VariableV2"), std::string::npos);
}

TEST(TfprofCommand, TimelineOutput) {
  const std::string out = test_files::TempPath("tfprof_timeline");
  auto r = RunCommand(Tbprof(WriteShowModel() + " scope -account_type_regexes '.*' -output timeline:outfile=" + out));
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  // Step -1 names the file <outfile>_-1; the root's event lasts the root's 4904 us.
  EXPECT_NE(test_files::ReadAll(out + "_-1").find("\"dur\":4904,\"name\":\"_TFProfRoot\""), std::string::npos);
  r = RunCommand(Tbprof(WriteShowModel() + " op -output timeline:outfile=" + out + " 2>&1"));
  EXPECT_NE(r.output.find("not the op view"), std::string::npos) << r.output;
}

TEST(TfprofCommand, BadInputIsNamed) {
  const std::string damaged = test_files::TempPath("profile_7");
  std::ofstream(damaged, std::ios::binary) << std::string("\x0a\xff\xff\xff", 4);
  auto r = RunCommand(Tbprof(damaged + " scope 2>&1"));
  EXPECT_EQ(WEXITSTATUS(r.status), 1);
  EXPECT_NE(r.output.find(damaged + ": not a valid ProfileProto"), std::string::npos) << r.output;

  r = RunCommand(Tbprof(WriteShowModel() + " scope -show_name_regexes 'a((' 2>&1"));
  EXPECT_NE(WEXITSTATUS(r.status), 0);
  EXPECT_NE(r.output.find("'a((' is not a valid regular expression"), std::string::npos) << r.output;

  r = RunCommand(Tbprof(WriteShowModel() + " op -select micros,nonsense 2>&1"));
  EXPECT_NE(r.output.find("unknown select field 'nonsense'"), std::string::npos) << r.output;

  r = RunCommand(Tbprof(WriteShowModel() + " op -no_such_option 1 2>&1"));
  EXPECT_NE(r.output.find("Unknown option '-no_such_option'"), std::string::npos) << r.output;

  r = RunCommand(Tbprof("/no/such/profile_1 scope 2>&1"));
  EXPECT_EQ(WEXITSTATUS(r.status), 1);
  EXPECT_NE(r.output.find("/no/such/profile_1"), std::string::npos) << r.output;
}

TEST(TfprofCommand, XPlaneProfileScopeAndOpViews) {
  auto files = test_files::RealXPlaneFiles();
  ASSERT_FALSE(files.empty());
  auto r = RunCommand(Tbprof(files[0] + " scope -max_depth 2 -account_type_regexes '.*' -select micros,bytes"));
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  // Bytes of an xplane profile are unknown: "--", never 0B.
  EXPECT_NE(AfterProfile(r.output).find("_TFProfRoot (--, --/"), std::string::npos) << r.output;
  r = RunCommand(Tbprof(files[0] + " op -account_type_regexes '.*' -select micros -order_by micros"));
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  EXPECT_NE(AfterProfile(r.output).find("(100.00%,"), std::string::npos) << r.output;
}

// tfprof's defaults account only variables: on a profile without any the
// table would be empty, so the command says why and what to change.
TEST(TfprofCommand, DefaultsOnAProfileWithoutVariablesSayWhyNothingShows) {
  auto files = test_files::RealXPlaneFiles();
  ASSERT_FALSE(files.empty());
  for (const char* view : {"scope", "op"}) {
    auto r = RunCommand(Tbprof(files[0] + " " + view));
    ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.output;
    EXPECT_EQ(AfterProfile(r.output),
              "no node matched -account_type_regexes Variable,VariableV2; add -account_type_regexes .* to account "
              "every op\n")
        << view;
  }
}

}  // namespace
}  // namespace tbprof
