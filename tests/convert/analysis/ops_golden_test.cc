// Whole-output golden files for the OpStats tools under tests/golden/ops/.
// Regenerate (after checking the change is intended) with:
//   TBPROF_UPDATE_GOLDEN=1 ./build/tbprof_tests --gtest_filter='OpsGolden*'
// Files hold the exact output with a line break before each table and row, so
// a mismatch is reported (and reviewed in git) as a line diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "convert/tools/tool_registry.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;

std::string Lines(const std::string& body) {
  std::string out;
  out.reserve(body.size() + body.size() / 16);
  for (size_t i = 0; i < body.size(); ++i) {
    if (body.compare(i, 6, "{\"c\":[") == 0 || body.compare(i, 8, "{\"cols\":") == 0 ||
        body.compare(i, 12, "{\"stepNum\":") == 0) {
      out.push_back('\n');
    }
    out.push_back(body[i]);
  }
  out.push_back('\n');
  return out;
}

std::vector<std::string> SplitLines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) v.push_back(line);
  return v;
}

void CheckGolden(const std::string& name, const std::string& body) {
  fs::path path = fs::path(TBPROF_SOURCE_DIR) / "tests/golden/ops" / (name + ".json");
  std::string actual = Lines(body);
  const char* update = std::getenv("TBPROF_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing golden file " << path
                         << "; create it with TBPROF_UPDATE_GOLDEN=1 ./build/tbprof_tests --gtest_filter='OpsGolden*'";
  std::string expected((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (expected == actual) return;
  std::vector<std::string> e = SplitLines(expected), a = SplitLines(actual);
  size_t i = 0;
  while (i < e.size() && i < a.size() && e[i] == a[i]) ++i;
  ADD_FAILURE() << path << " differs at line " << (i + 1) << "\n- " << (i < e.size() ? e[i] : "<end of file>")
                << "\n+ " << (i < a.size() ? a[i] : "<end of output>")
                << "\n(expected " << e.size() << " lines, got " << a.size() << ")";
}

const char* const kTools[] = {"overview_page", "input_pipeline_analyzer", "framework_op_stats", "kernel_stats",
                              "pod_viewer"};

void CheckAllTools(const std::string& case_name, const std::string& path) {
  for (const char* tool : kTools) {
    ToolInput in;
    in.profile_paths = {path};
    auto out = FindProfileTool(tool)->run(in);
    ASSERT_TRUE(out.ok()) << tool << ": " << out.status().message();
    CheckGolden(case_name + "." + tool, out->body);
  }
}

TEST(OpsGolden, HandBuiltGpuProfile) {
  CheckAllTools("gpu_two_steps", ops_test::WriteSpace(ops_test::GpuTwoStepSpace(), "testhost"));
}

TEST(OpsGolden, HandBuiltCpuProfile) {
  CheckAllTools("cpu_input_bound", ops_test::WriteSpace(ops_test::CpuInputBoundSpace(), "cpuhost"));
}

TEST(OpsGolden, RealProfiles) {
  struct Case {
    const char* name;
    const char* file;
  };
  for (const Case& c : {Case{"jax_rocm_mi300_gemm", "xplane/jax_rocm_mi300_gemm/tw003.xplane.pb"},
                        Case{"jax_tpu_v6e", "xplane/jax_tpu_v6e/tpu_inference_2.xplane.pb"}}) {
    std::string path = std::string(TBPROF_TESTDATA) + "/" + c.file;
    if (!fs::exists(path)) GTEST_FAIL() << "required: testdata not found: " << path;
    CheckAllTools(c.name, path);
  }
}

}  // namespace
}  // namespace tbprof
