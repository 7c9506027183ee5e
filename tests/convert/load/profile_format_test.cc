// The one guess of a file's format: by name where the name says it, by the
// first bytes where it does not (HTA's rank-<N>.json.gz, export_chrome_trace's
// trace.json), and the header summary /run_tools lists by, which must agree
// with the decoded model of every real profile.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/load/profile_file.h"
#include "convert/load/profile_format.h"
#include "convert/load/profile_summary.h"
#include "convert/model/schema.h"
#include "convert/tools/tool_registry.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
const fs::path kRealdata = TBPROF_TESTDATA;

TEST(ProfileFormat, NamesDecideWhereTheyCan) {
  EXPECT_EQ(ProfileFormatOf("host.domain.xplane.pb", ""), ProfileFormat::kXPlane);
  EXPECT_EQ(ProfileFormatOf("host.xplane.pb.gz", ""), ProfileFormat::kXPlane);
  EXPECT_EQ(ProfileFormatOf("worker0.1623143089861.pt.trace.json.gz", ""), ProfileFormat::kKinetoTrace);
  EXPECT_EQ(ProfileFormatOf("profile_12", ""), ProfileFormat::kTfprofProfile);
  EXPECT_EQ(ProfileFormatOf("profile_12x", ""), ProfileFormat::kUnknown);
  // A legacy trace viewer file is Chrome-trace JSON too: its name says it is a legacy file.
  EXPECT_EQ(ProfileFormatOf("10.240.1.50.trace.json.gz", "{\"traceEvents\": ["), ProfileFormat::kLegacyToolFile);
  EXPECT_EQ(ProfileFormatOf("overview_page.json", "{\"traceEvents\": ["), ProfileFormat::kLegacyToolFile);
  const ProfileFileName rank = ParseProfileFileName("rank-3.json.gz");
  EXPECT_TRUE(rank.content_decides);
  EXPECT_EQ(rank.host, "rank-3");
  EXPECT_EQ(ParseProfileFileName("trace.json").host, "trace");
}

TEST(ProfileFormat, JsonNamesAreDecidedByTheirFirstBytes) {
  EXPECT_EQ(ProfileFormatOf("rank-3.json.gz", "{\"schemaVersion\": 1, \"deviceProperties\": []"),
            ProfileFormat::kKinetoTrace);
  EXPECT_EQ(ProfileFormatOf("trace.json", "  {\"distributedInfo\": {}, \"traceEvents\": ["), ProfileFormat::kKinetoTrace);
  EXPECT_EQ(ProfileFormatOf("metrics.json", "{\"loss\": [1, 2]}"), ProfileFormat::kUnknown);
  EXPECT_EQ(ProfileFormatOf("list.json", "[{\"traceEvents\": 1}]"), ProfileFormat::kUnknown);
  EXPECT_EQ(ProfileFormatOfFile((kRealdata / "kineto_hta/triton/triton_example.json.gz").string()),
            ProfileFormat::kKinetoTrace);
}

TEST(ProfileFormat, EveryLegacyFileOfTheToolTableIsALegacyFile) {
  for (const LegacyToolSpec& l : LegacyConverters()) {
    EXPECT_EQ(ParseProfileFileName("host." + l.suffix).format, ProfileFormat::kLegacyToolFile) << l.suffix;
    EXPECT_NE(FindProfileTool(l.tool), nullptr) << l.tool << " has no entry of its own";
  }
  EXPECT_EQ(LegacyConverters().size(), LegacyToolFileSuffixes().size());
}

// The header scan says what the decoded model says, for every real profile and a synthetic GPU one.
TEST(ProfileSummary, AgreesWithTheDecodedModel) {
  std::vector<std::string> paths;
  for (const auto& f : fs::recursive_directory_iterator(kRealdata / "xplane")) {
    if (f.is_regular_file() && f.path().parent_path().filename() != "corrupt") paths.push_back(f.path().string());
  }
  const fs::path synthetic = fs::temp_directory_path() / ("tbprof_summary_" + std::to_string(getpid()) + ".xplane.pb");
  test_files::WriteSyntheticFile(synthetic.string(), test_files::SynthShape(/*gpus=*/2, /*steps=*/2, 2000));
  paths.push_back(synthetic.string());
  int with_hlo = 0, with_gpu = 0;
  for (const std::string& path : paths) {
    auto summary = SummarizeProfile(path, ProfileFormatOfFile(path));
    ASSERT_TRUE(summary.ok()) << path << ": " << summary.status().message();
    auto model = LoadProfileFile(path);
    ASSERT_TRUE(model.ok()) << path;
    EXPECT_EQ(summary->has_gpu_plane, !(*model)->FindPlanesWithPrefix(schema::kGpuPlanePrefix).empty()) << path;
    EXPECT_EQ(summary->has_hlo_programs, HasHloModules(**model)) << path;
    with_hlo += summary->has_hlo_programs;
    with_gpu += summary->has_gpu_plane;
  }
  fs::remove(synthetic);
  EXPECT_GT(with_hlo, 0);
  EXPECT_GT(with_gpu, 0);
}

}  // namespace
}  // namespace tbprof
