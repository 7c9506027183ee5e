// Model images on disk (convert/tools/model_image_file.h): `summarize` writes
// one beside a PyTorch trace's summary (an xplane's from 512 MiB), a later load
// reads the model from it while the profile is unchanged, and a changed
// profile or a damaged image is read from the profile again, with a log line.
#include "convert/tools/model_image_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "convert/load/profile_file.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/tool_registry.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
const fs::path kTestdata = TBPROF_TESTDATA;

// A scratch folder and the summary policy of a test (logging into `lines`), restored after.
struct ImageScratch {
  fs::path dir = fs::temp_directory_path() / ("tbprof-model-image-" + std::to_string(::getpid()));
  std::vector<std::string> lines;
  SummaryPolicy saved = CurrentSummaryPolicy();
  ImageScratch() {
    fs::create_directories(dir);
    SummaryPolicy p;
    p.log = [this](const std::string& line) { lines.push_back(line); };
    SetSummaryPolicy(p);
  }
  ~ImageScratch() {
    SetSummaryPolicy(saved);
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string Copy(const char* testdata_file) const {
    const fs::path to = dir / fs::path(testdata_file).filename();
    fs::copy_file(kTestdata / testdata_file, to, fs::copy_options::overwrite_existing);
    return to.string();
  }
};

constexpr char kBert[] = "kineto_nvidia/h100_bert_small.pt.trace.json.gz";
constexpr char kQwen[] = "kineto_nvidia/h100_qwen1.5_0.5b.pt.trace.json.gz";

size_t EventsOfLoad(const std::string& path) {
  auto m = LoadModelCached(path, nullptr);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? (*m)->NumEvents() : 0;
}

// The whole trace viewer's answer for one host.
StatusOr<ToolOutput> TraceViewerAnswer(const std::string& path) {
  ToolInput in;
  in.hosts = {"host"};
  in.profile_paths = {path};
  const ToolSpec* tool = FindProfileTool("trace_viewer");
  if (tool == nullptr) return NotFound("trace_viewer");
  return tool->run(in);
}

TEST(ModelImageFile, SummarizeWritesAnImageThatLaterLoadsRead) {
  ImageScratch s;
  const std::string trace = s.Copy(kBert);
  const size_t imported = EventsOfLoad(trace);
  ASSERT_GT(imported, 1000u);
  ASSERT_TRUE(SummarizeProfileFile(trace, trace + kSummarySuffix).ok());
  const std::string image = trace + kModelImageSuffix;
  ASSERT_TRUE(fs::exists(image));
  EXPECT_EQ(EventsOfLoad(trace), imported);

  // The image is what is read: one holding another trace's model, under this
  // trace's identity, gives that model.
  auto other = LoadProfileFile((kTestdata / kQwen).string());
  ASSERT_TRUE(other.ok());
  auto identity = IdentityOfProfile(trace);
  ASSERT_TRUE(identity.ok());
  ASSERT_TRUE(WriteModelImageFile(image, *identity, **other).ok());
  EXPECT_EQ(EventsOfLoad(trace), (*other)->NumEvents());
  EXPECT_NE((*other)->NumEvents(), imported);
  EXPECT_TRUE(s.lines.empty());
}

TEST(ModelImageFile, AChangedProfileOrADamagedImageIsReadFromTheProfile) {
  ImageScratch s;
  const std::string trace = s.Copy(kBert);
  const size_t imported = EventsOfLoad(trace);
  ASSERT_TRUE(SummarizeProfileFile(trace, trace + kSummarySuffix).ok());
  const std::string image = trace + kModelImageSuffix;

  // Damaged: one byte changed in the middle.
  {
    std::fstream f(image, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(image) / 2));
    f.put('\x5a');
  }
  EXPECT_EQ(EventsOfLoad(trace), imported);
  ASSERT_EQ(s.lines.size(), 1u);
  EXPECT_NE(s.lines[0].find("ignored"), std::string::npos) << s.lines[0];
  EXPECT_NE(s.lines[0].find("damaged"), std::string::npos) << s.lines[0];

  // Rewritten whole, then the profile touched: of another version of the profile.
  ASSERT_TRUE(fs::remove(image));
  ASSERT_TRUE(SummarizeProfileFile(trace, trace + kSummarySuffix).ok());
  ASSERT_TRUE(fs::exists(image));
  fs::last_write_time(trace, fs::last_write_time(trace) + std::chrono::seconds(5));
  EXPECT_EQ(EventsOfLoad(trace), imported);
  ASSERT_EQ(s.lines.size(), 2u);
  EXPECT_NE(s.lines[1].find("another version of the profile"), std::string::npos) << s.lines[1];
}

// Half a gigabyte is where an xplane's image starts to pay (sparse files: no disk is used).
TEST(ModelImageFile, AnXPlaneOfHalfAGigabyteOrMoreIsWorthAnImage) {
  ImageScratch s;
  for (const uint64_t size : {kXPlaneImageMinBytes - 1, kXPlaneImageMinBytes}) {
    const std::string path = (s.dir / ("host" + std::to_string(size) + ".xplane.pb")).string();
    { std::ofstream(path, std::ios::binary).put('\0'); }
    fs::resize_file(path, size);
    EXPECT_EQ(ModelImagePays(path), size >= kXPlaneImageMinBytes) << size;
  }
  EXPECT_TRUE(ModelImagePays(s.Copy(kBert)));
}

// An xplane's model (byte stats, references to stat metadata, every kind of
// stat) read back from its image answers the trace viewer as the import does.
TEST(ModelImageFile, AnXPlaneModelAnswersTheTraceViewerTheSameFromItsImage) {
  ImageScratch s;
  const std::string xplane = s.Copy("xplane/jax_rocm_mi300_gemm/tw003.xplane.pb");
  auto imported = TraceViewerAnswer(xplane);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  auto model = LoadProfileFile(xplane);
  ASSERT_TRUE(model.ok());
  auto identity = IdentityOfProfile(xplane);
  ASSERT_TRUE(identity.ok());
  ASSERT_TRUE(WriteModelImageFile(xplane + kModelImageSuffix, *identity, **model).ok());
  const uint64_t loads = ProfileFileLoads();
  auto from_image = TraceViewerAnswer(xplane);
  ASSERT_TRUE(from_image.ok()) << from_image.status().message();
  EXPECT_EQ(ProfileFileLoads(), loads) << "the profile was imported, not read from its image";
  EXPECT_GT(imported->body.size(), 10000u);
  EXPECT_TRUE(imported->body == from_image->body);
  EXPECT_TRUE(s.lines.empty());
}

TEST(ModelImageFile, ASmallXPlaneGetsASummaryButNoImage) {
  ImageScratch s;
  const std::string xplane = s.Copy("xplane/jax_rocm_mi300_gemm/tw003.xplane.pb");
  ASSERT_TRUE(SummarizeProfileFile(xplane, xplane + kSummarySuffix).ok());
  EXPECT_TRUE(fs::exists(xplane + kSummarySuffix));
  EXPECT_FALSE(fs::exists(xplane + kModelImageSuffix));
}

// The trace viewer's answer from a model read from its image is the answer
// from the import, byte for byte.
TEST(ModelImageFile, TheTraceViewerAnswersTheSameFromTheImage) {
  ImageScratch s;
  const std::string trace = s.Copy(kBert);
  auto imported = TraceViewerAnswer(trace);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  ASSERT_TRUE(SummarizeProfileFile(trace, trace + kSummarySuffix).ok());
  auto from_image = TraceViewerAnswer(trace);
  ASSERT_TRUE(from_image.ok()) << from_image.status().message();
  EXPECT_GT(imported->body.size(), 100000u);
  EXPECT_TRUE(imported->body == from_image->body);
  EXPECT_TRUE(s.lines.empty());
}

// Op statistics read the model from its image too: an image holding another
// trace's model, under this trace's identity, gives that trace's overview.
TEST(ModelImageFile, OpStatisticsAreComputedFromTheImage) {
  ImageScratch s;
  const std::string trace = s.Copy(kBert);
  const std::string other = s.Copy(kQwen);
  const ToolSpec* tool = FindProfileTool("overview_page");
  ASSERT_NE(tool, nullptr);
  auto overview_of = [&](const std::string& path) {
    ToolInput in;
    in.hosts = {"host"};
    in.profile_paths = {path};
    auto out = tool->run(in);
    EXPECT_TRUE(out.ok()) << out.status().message();
    return out.ok() ? out->body : std::string();
  };
  const std::string imported = overview_of(trace), other_overview = overview_of(other);
  ASSERT_NE(imported, other_overview);
  auto other_model = LoadProfileFile(other);
  auto identity = IdentityOfProfile(trace);
  ASSERT_TRUE(other_model.ok() && identity.ok());
  ASSERT_TRUE(WriteModelImageFile(trace + kModelImageSuffix, *identity, **other_model).ok());
  EXPECT_EQ(overview_of(trace), other_overview);
  // Its own image gives its own overview, the same bytes as the import.
  ASSERT_TRUE(fs::remove(trace + kModelImageSuffix));
  ASSERT_TRUE(SummarizeProfileFile(trace, trace + kSummarySuffix).ok());
  ASSERT_TRUE(fs::remove(trace + kSummarySuffix));
  EXPECT_EQ(overview_of(trace), imported);
  EXPECT_TRUE(s.lines.empty());
}

}  // namespace
}  // namespace tbprof
