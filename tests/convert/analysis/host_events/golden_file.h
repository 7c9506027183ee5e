// Whole-output golden files for the tfdata and memory suites. A golden is only
// (re)written when TBPROF_UPDATE_GOLDEN=1 is set; otherwise a missing or
// different golden fails the test.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace tbprof::testing_golden {

inline void ExpectMatchesGolden(const std::string& relative_path, const std::string& actual) {
  std::filesystem::path path = std::filesystem::path(TBPROF_SOURCE_DIR) / "tests/golden" / relative_path;
  const char* update = std::getenv("TBPROF_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing golden " << path << "; run with TBPROF_UPDATE_GOLDEN=1 to create it";
  std::stringstream expected;
  expected << in.rdbuf();
  const std::string want = expected.str();
  if (want == actual) return;
  // Report where they part, not two whole (possibly huge) documents.
  size_t at = 0;
  while (at < want.size() && at < actual.size() && want[at] == actual[at]) ++at;
  size_t from = at < 80 ? 0 : at - 80;
  ADD_FAILURE() << "output differs from golden " << path << " at byte " << at << " (golden " << want.size()
                << " bytes, output " << actual.size() << ")\n  golden: …" << want.substr(from, 200)
                << "\n  output: …" << actual.substr(from, 200)
                << "\n(TBPROF_UPDATE_GOLDEN=1 rewrites it after review)";
}

}  // namespace tbprof::testing_golden
