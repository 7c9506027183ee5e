// A trace's first picture kept apart from its index (convert/analysis/
// trace_viewer/trace_preview.h, on disk by convert/tools/trace_preview_file.h):
// the streaming viewer's whole-trace answers from it are the index's, byte for
// byte, at every resolution it keeps; other requests, and a preview of another
// profile, build, or damaged, go to the index.
#include "convert/tools/trace_preview_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "convert/analysis/trace_viewer/trace_preview.h"
#include "convert/load/profile_file.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/model_image_file.h"
#include "convert/tools/tool_registry.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;

// A synthetic GPU profile of some 600k events (past the 500k below which
// traces are never down-sampled), its index and its preview, made once.
struct PreviewFixture {
  std::string path = test_files::TempPath("trace_preview.xplane.pb");
  std::unique_ptr<TraceIndex> index;
  std::optional<TracePreview> preview;
  PreviewFixture() {
    test_files::WriteSyntheticFile(path, test_files::SynthShape(/*gpus=*/2, /*steps=*/20, /*events=*/600000, /*seed=*/3));
    auto model = LoadProfileFile(path);
    EXPECT_TRUE(model.ok()) << model.status().message();
    if (!model.ok()) return;
    index = TraceIndex::Build(std::shared_ptr<const XSpaceModel>(std::move(*model)));
    preview = BuildTracePreview(*index, kTraceStreamingThreshold);
  }
};
const PreviewFixture& Fixture() {
  static const PreviewFixture* fixture = new PreviewFixture();
  return *fixture;
}

// The streaming viewer's answer for one host named "host0".
StatusOr<ToolOutput> Streaming(const std::string& path, const ToolParams& params) {
  ToolInput in;
  in.hosts = {"host0"};
  in.profile_paths = {path};
  in.params = params;
  const ToolSpec* tool = FindProfileTool("trace_viewer@");
  if (tool == nullptr) return NotFound("trace_viewer@");
  return tool->run(in);
}

std::string PreviewPath() { return Fixture().path + kTracePreviewSuffix; }

// The answer with and without the preview file beside the profile.
struct TwoAnswers {
  std::string from_preview, from_index;
  bool preview_imported = false;  // whether the answer with the preview beside the profile imported it
};
TwoAnswers AnswersOf(const ToolParams& params) {
  TwoAnswers a;
  const uint64_t loads = ProfileFileLoads();
  auto with = Streaming(Fixture().path, params);
  a.preview_imported = ProfileFileLoads() != loads;
  EXPECT_TRUE(with.ok()) << with.status().message();
  fs::rename(PreviewPath(), PreviewPath() + ".aside");
  auto without = Streaming(Fixture().path, params);
  fs::rename(PreviewPath() + ".aside", PreviewPath());
  EXPECT_TRUE(without.ok()) << without.status().message();
  if (with.ok()) a.from_preview = with->body;
  if (without.ok()) a.from_index = without->body;
  return a;
}

class TracePreviewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(Fixture().index, nullptr);
    ASSERT_TRUE(Fixture().preview.has_value()) << "a trace of 600k events is down-sampled";
    auto identity = IdentityOfProfile(Fixture().path);
    ASSERT_TRUE(identity.ok());
    ASSERT_TRUE(WriteTracePreviewFile(PreviewPath(), *identity, *Fixture().preview).ok());
    saved_ = CurrentSummaryPolicy();
    SummaryPolicy p;
    p.log = [this](const std::string& line) { lines_.push_back(line); };
    SetSummaryPolicy(p);
  }
  void TearDown() override {
    SetSummaryPolicy(saved_);
    fs::remove(PreviewPath());
  }
  SummaryPolicy saved_;
  std::vector<std::string> lines_;
};

TEST_F(TracePreviewTest, WholeTraceAnswersAreTheIndexsAtEveryResolutionItKeeps) {
  EXPECT_LT(Fixture().preview->events.size(), static_cast<size_t>(Fixture().index->num_events()) / 2)
      << "the preview keeps a part of the trace";
  for (const char* resolution : {"16384", "14440", "5480", "2000", "300", "1"}) {
    SCOPED_TRACE(resolution);
    const TwoAnswers a = AnswersOf({{"resolution", resolution}});
    EXPECT_GT(a.from_index.size(), 1000u);
    EXPECT_FALSE(a.preview_imported) << "the profile was read";
    EXPECT_TRUE(a.from_preview == a.from_index) << a.from_preview.size() << " vs " << a.from_index.size();
  }
  EXPECT_TRUE(lines_.empty()) << lines_[0];
}

// The preview gives exactly what it keeps: an answer it can give, and none
// for a finer resolution, for every event (resolution 0), or without a host name.
TEST_F(TracePreviewTest, AnswersOnlyWhatItKeeps) {
  const TracePreview& p = *Fixture().preview;
  EXPECT_TRUE(AnswerFromPreview(p, 5480, kTraceStreamingThreshold, "host0").has_value());
  EXPECT_FALSE(AnswerFromPreview(p, 4 * kTracePreviewMaxResolution, kTraceStreamingThreshold, "host0").has_value());
  EXPECT_FALSE(AnswerFromPreview(p, 0, kTraceStreamingThreshold, "host0").has_value());
  EXPECT_FALSE(AnswerFromPreview(p, 5480, kTraceStreamingThreshold, "").has_value());
  EXPECT_FALSE(AnswerFromPreview(p, 5480, p.num_events + 1, "host0").has_value()) << "a trace not down-sampled";
  // A host name that JSON escapes comes out escaped, as the index writes it.
  auto quoted = AnswerFromPreview(p, 5480, kTraceStreamingThreshold, "a\"b");
  ASSERT_TRUE(quoted.has_value());
  EXPECT_NE(quoted->metadata_json.find("a\\\"b "), std::string::npos);
}

// Windows, searches, an event's details, finer resolutions: the index answers, as without a preview.
TEST_F(TracePreviewTest, OtherRequestsAreTheIndexs) {
  const int64_t mid_ps = (Fixture().index->min_ps() + Fixture().index->max_ps()) / 2;
  const std::string mid_ms = std::to_string(static_cast<double>(mid_ps) / 1e9);
  for (const ToolParams& params : std::vector<ToolParams>{{{"resolution", "5480"}, {"start_time_ms", mid_ms}},
                                                          {{"resolution", "100000"}},
                                                          {{"resolution", "0"}},
                                                          {{"search_prefix", "step"}},
                                                          {{"resolution", "5480"}, {"critical_path", ""}}}) {
    const TwoAnswers a = AnswersOf(params);
    EXPECT_TRUE(a.preview_imported) << "not the index's answer";
    EXPECT_TRUE(a.from_preview == a.from_index) << params.begin()->first << "=" << params.begin()->second;
  }
}

TEST_F(TracePreviewTest, AChangedProfileOrADamagedPreviewIsIgnoredAndSaysSo) {
  const std::string bytes = [] {
    std::ifstream f(PreviewPath(), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }();
  auto identity = IdentityOfProfile(Fixture().path);
  ASSERT_TRUE(identity.ok());
  auto write = [](const std::string& b) { std::ofstream(PreviewPath(), std::ios::binary | std::ios::trunc) << b; };
  struct Case {
    std::string bytes;
    ProfileIdentity identity;
    const char* says;
  };
  ProfileIdentity other = *identity;
  other.digest ^= 1;
  std::string flipped = bytes, stamped = bytes, cut = bytes.substr(0, bytes.size() / 2);
  flipped[bytes.size() / 2] ^= 0x20;
  stamped[34] ^= 1;  // the writing build's size
  for (const Case& c : {Case{bytes, other, "another version of the profile"}, Case{flipped, *identity, "damaged"},
                        Case{stamped, *identity, "another tbprof build"}, Case{cut, *identity, "damaged"}}) {
    write(c.bytes);
    auto read = ReadTracePreviewFile(PreviewPath(), c.identity);
    ASSERT_FALSE(read.ok()) << c.says;
    EXPECT_NE(read.status().message().find(c.says), std::string::npos) << read.status().message();
  }
  // Served, a damaged one is logged and the index answers.
  write(flipped);
  const TwoAnswers a = AnswersOf({{"resolution", "5480"}});
  EXPECT_TRUE(a.from_preview == a.from_index);
  ASSERT_FALSE(lines_.empty());
  EXPECT_NE(lines_[0].find("trace preview"), std::string::npos) << lines_[0];
}

// A server told to write summaries keeps the first picture of the index it
// built, for a profile whose image pays (a sparse 512 MiB xplane stands for
// one: only its size and identity are read), and for no other.
TEST(TracePreviewWrite, AServerToldToWriteKeepsTheFirstPictureOfALargeProfile) {
  ASSERT_NE(Fixture().index, nullptr);
  const fs::path dir = fs::path(test_files::TempPath("trace_preview_write"));
  fs::create_directories(dir);
  const std::string big = (dir / "big.xplane.pb").string();
  { std::ofstream(big, std::ios::binary).put('\0'); }
  fs::resize_file(big, kXPlaneImageMinBytes);
  auto identity = IdentityOfProfile(big);
  ASSERT_TRUE(identity.ok());
  std::vector<std::string> lines;
  SummaryPolicy policy;
  policy.log = [&](const std::string& line) { lines.push_back(line); };

  WriteTracePreviewIfAsked(big, *Fixture().index, *identity, policy);
  EXPECT_FALSE(fs::exists(big + kTracePreviewSuffix)) << "written without being told";
  policy.write = true;
  WriteTracePreviewIfAsked(Fixture().path, *Fixture().index, *IdentityOfProfile(Fixture().path), policy);
  EXPECT_FALSE(fs::exists(Fixture().path + kTracePreviewSuffix)) << "written for a profile whose image does not pay";
  WriteTracePreviewIfAsked(big, *Fixture().index, *identity, policy);
  auto read = ReadTracePreviewFile(big + kTracePreviewSuffix, *identity);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(SerializeTracePreview(*read), SerializeTracePreview(*Fixture().preview));
  // A profile changed since the index was built: nothing kept of it.
  fs::remove(big + kTracePreviewSuffix);
  fs::resize_file(big, kXPlaneImageMinBytes + 1);
  WriteTracePreviewIfAsked(big, *Fixture().index, *identity, policy);
  EXPECT_FALSE(fs::exists(big + kTracePreviewSuffix));
  EXPECT_TRUE(lines.empty());
  fs::remove_all(dir);
}

TEST(TracePreviewSerial, ComesBackWholeAndRefusesEveryCut) {
  ASSERT_TRUE(Fixture().preview.has_value());
  const TracePreview& p = *Fixture().preview;
  const std::string bytes = SerializeTracePreview(p);
  auto back = DeserializeTracePreview(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(SerializeTracePreview(*back), bytes);
  EXPECT_EQ(back->events.size(), p.events.size());
  for (size_t n = 0; n < bytes.size(); n += std::max<size_t>(1, bytes.size() / 997)) {
    ASSERT_FALSE(DeserializeTracePreview(std::string_view(bytes).substr(0, n)).ok()) << "cut to " << n;
  }
  EXPECT_FALSE(DeserializeTracePreview(bytes + '\0').ok());
}

}  // namespace
}  // namespace tbprof
