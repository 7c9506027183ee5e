// Model images (convert/model/model_image.h): a model read back from its image
// is the model written, array for array, on real PyTorch traces and a real
// xplane; a damaged or crafted image is an error, never a wild read.
#include "convert/model/model_image.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "convert/load/profile_file.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
const fs::path kTestdata = TBPROF_TESTDATA;

std::string ImageOf(const XSpaceModel& m) {
  std::string image;
  EXPECT_TRUE(WriteModelImage(m, [&](std::string_view bytes) {
                image.append(bytes);
                return Status::Ok();
              }).ok());
  return image;
}

StatusOr<std::unique_ptr<XSpaceModel>> ModelOf(const std::string& image) {
  size_t at = 0;
  return ReadModelImage(
      [&](void* dst, size_t n) {
        if (n > image.size() - at) return DataLoss("short");
        std::memcpy(dst, image.data() + at, n);
        at += n;
        return Status::Ok();
      },
      image.size());
}

bool SameStats(const std::vector<Stat>& a, const std::vector<Stat>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].kind != b[i].kind || a[i].u64 != b[i].u64) return false;
  }
  return true;
}

void ExpectSameModel(const XSpaceModel& a, const XSpaceModel& b) {
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (StrId id = 0; id < a.strings.size(); ++id) ASSERT_EQ(a.Str(id), b.Str(id)) << id;
  EXPECT_EQ(a.blobs, b.blobs);
  EXPECT_EQ(a.errors, b.errors);
  EXPECT_EQ(a.warnings, b.warnings);
  EXPECT_EQ(a.hostnames, b.hostnames);
  ASSERT_EQ(a.planes.size(), b.planes.size());
  for (size_t i = 0; i < a.planes.size(); ++i) {
    const XPlaneModel &p = a.planes[i], &q = b.planes[i];
    SCOPED_TRACE(std::string(a.Str(p.name)));
    EXPECT_EQ(p.id, q.id);
    EXPECT_EQ(p.name, q.name);
    ASSERT_EQ(p.lines.size(), q.lines.size());
    for (size_t l = 0; l < p.lines.size(); ++l) {
      EXPECT_EQ(std::memcmp(&p.lines[l], &q.lines[l], sizeof(LineModel)), 0) << "line " << l;
    }
    ASSERT_EQ(p.events.size(), q.events.size());
    EXPECT_EQ(std::memcmp(p.events.data(), q.events.data(), p.events.size() * sizeof(Event)), 0);
    EXPECT_TRUE(SameStats(p.event_stats, q.event_stats));
    EXPECT_TRUE(SameStats(p.metadata_stats, q.metadata_stats));
    EXPECT_TRUE(SameStats(p.plane_stats, q.plane_stats));
    ASSERT_EQ(p.event_metadata.size(), q.event_metadata.size());
    for (size_t m = 0; m < p.event_metadata.size(); ++m) {
      const EventMetadata &x = p.event_metadata[m], &y = q.event_metadata[m];
      EXPECT_TRUE(x.id == y.id && x.name == y.name && x.display_name == y.display_name &&
                  x.metadata_blob == y.metadata_blob && x.first_stat == y.first_stat && x.num_stats == y.num_stats &&
                  x.child_ids == y.child_ids)
          << "metadata " << m;
    }
    EXPECT_EQ(p.stat_metadata, q.stat_metadata);
    EXPECT_EQ(p.occurrences, q.occurrences);
  }
}

class ModelImageRoundTrip : public testing::TestWithParam<const char*> {};

TEST_P(ModelImageRoundTrip, TheModelReadBackIsTheModelWritten) {
  auto model = LoadProfileFile((kTestdata / GetParam()).string());
  ASSERT_TRUE(model.ok()) << model.status().message();
  ASSERT_GT((*model)->NumEvents(), 100u);
  const std::string image = ImageOf(**model);
  // Smaller than the model it holds (no slack, no hash index).
  EXPECT_LT(image.size(), (*model)->MemoryBytes());
  auto back = ModelOf(image);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectSameModel(**model, **back);
  // Written again, the same bytes: nothing in an image is left to chance.
  EXPECT_EQ(ImageOf(**back), image);
}

INSTANTIATE_TEST_SUITE_P(RealProfiles, ModelImageRoundTrip,
                         testing::Values("kineto_nvidia/h100_bert_small.pt.trace.json.gz",
                                         "kineto_hta/amd/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
                                         "xplane/jax_rocm_mi300_gemm/tw003.xplane.pb"));

std::unique_ptr<XSpaceModel> SmallModel() {
  auto model = LoadProfileFile((kTestdata / "kineto_nvidia/h100_bert_small.pt.trace.json.gz").string());
  EXPECT_TRUE(model.ok());
  return model.ok() ? std::move(*model) : nullptr;
}

TEST(ModelImage, AChangedByteOrACutImageIsDamaged) {
  auto model = SmallModel();
  ASSERT_NE(model, nullptr);
  const std::string image = ImageOf(*model);
  for (size_t at : {image.size() / 3, image.size() / 2, image.size() - 9}) {
    std::string changed = image;
    changed[at] = static_cast<char>(changed[at] ^ 0x20);
    auto back = ModelOf(changed);
    ASSERT_FALSE(back.ok()) << at;
    EXPECT_EQ(back.status().code(), ErrorCode::kDataLoss) << back.status().message();
  }
  for (size_t keep : {size_t{3}, image.size() / 2, image.size() - 1}) {
    auto back = ModelOf(image.substr(0, keep));
    ASSERT_FALSE(back.ok()) << keep;
    EXPECT_EQ(back.status().code(), ErrorCode::kDataLoss) << back.status().message();
  }
}

TEST(ModelImage, AnIndexOutsideTheImageIsRefusedEvenWithAGoodChecksum) {
  auto model = SmallModel();
  ASSERT_NE(model, nullptr);
  XPlaneModel& plane = model->planes.front();
  ASSERT_FALSE(plane.events.empty());
  plane.events.back().metadata = static_cast<uint32_t>(plane.event_metadata.size() + 7);
  auto back = ModelOf(ImageOf(*model));
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("points outside"), std::string::npos) << back.status().message();
}

TEST(ModelImage, ACountLargerThanTheImageAllocatesNothing) {
  // Version, layout, then a string count of 2^40: refused before any allocation.
  std::string image = ImageOf(*SmallModel()).substr(0, 8);
  const uint64_t huge = uint64_t{1} << 40;
  image.append(reinterpret_cast<const char*>(&huge), sizeof(huge));
  image.append(64, '\0');
  auto back = ModelOf(image);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("more than it holds"), std::string::npos) << back.status().message();
}

TEST(ModelImage, AnImageOfAnotherVersionIsNamedAsSuch) {
  std::string image = ImageOf(*SmallModel());
  image[0] = static_cast<char>(image[0] + 1);
  auto back = ModelOf(image);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(back.status().message().find("another version"), std::string::npos);
}

}  // namespace
}  // namespace tbprof
