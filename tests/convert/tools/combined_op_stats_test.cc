// OpStatsForPaths over several hosts (ALL_HOSTS): hosts read from their
// summaries are folded into the combination one at a time and not cached,
// and the combination is the one the profiles themselves give.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "convert/analysis/op_stats/op_stats_combiner.h"
#include "convert/analysis/op_stats/op_stats_serial.h"
#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/load/profile_file.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/op_stats_summary.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;

class CombinedOpStats : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_);
    // 4, 5 and 6 steps of differently seeded hosts: the hosts' steps differ,
    // and the combination keeps those all of them share.
    for (int h = 0; h < 3; ++h) {
      const std::string path = (dir_ / ("host" + std::to_string(h) + ".xplane.pb")).string();
      test_files::WriteSyntheticFile(path, test_files::SynthShape(/*gpus=*/2, /*steps=*/4 + h, /*events=*/3000,
                                                                  /*seed=*/static_cast<uint64_t>(h + 1)));
      paths_.push_back(path);
    }
    SetSummaryPolicy(SummaryPolicy{});
  }
  void TearDown() override {
    SetSummaryPolicy(SummaryPolicy{});
    fs::remove_all(dir_);
  }

  // The hosts' OpStats computed from their profiles, combined all at once.
  std::string FromTheProfiles() const {
    std::vector<std::shared_ptr<const OpStats>> hosts;
    std::set<size_t> step_counts;
    for (const std::string& path : paths_) {
      auto model = LoadProfileFile(path, OpStatsLoadOptions());
      EXPECT_TRUE(model.ok()) << path;
      if (!model.ok()) return "";
      hosts.push_back(std::make_shared<const OpStats>(ConvertXSpaceToOpStats(**model)));
      for (const HostSteps& hs : hosts.back()->steps) step_counts.insert(hs.steps.size());
    }
    EXPECT_GT(step_counts.size(), 1u) << "the hosts' steps should differ";
    return SerializeOpStats(CombineOpStats(hosts));
  }

  const fs::path dir_ = test_files::TempPath("combined_op_stats");
  std::vector<std::string> paths_;
};

TEST_F(CombinedOpStats, HostsFromSummariesAreFoldedUncachedIntoTheProfilesCombination) {
  for (const std::string& path : paths_) {
    auto written = SummarizeProfileFile(path, path + kSummarySuffix);
    ASSERT_TRUE(written.ok()) << written.status().message();
  }
  const std::string expected = FromTheProfiles();
  ArtifactCache cache(size_t{1} << 30);
  auto combined = OpStatsForPaths(paths_, &cache);
  ASSERT_TRUE(combined.ok()) << combined.status().message();
  EXPECT_EQ(SerializeOpStats(**combined), expected);
  EXPECT_EQ(cache.entries(), 1u) << "the combination alone is kept, not each host's summary";
  auto again = OpStatsForPaths(paths_, &cache);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), combined->get()) << "the next page of the same hosts combines nothing again";

  auto uncached = OpStatsForPaths(paths_, nullptr);
  ASSERT_TRUE(uncached.ok()) << uncached.status().message();
  EXPECT_EQ(SerializeOpStats(**uncached), expected);
}

TEST_F(CombinedOpStats, HostsWithoutSummariesAreComputedCachedAndCombinedTheSame) {
  const std::string expected = FromTheProfiles();
  ArtifactCache cache(size_t{1} << 30);
  // One host's page first: its OpStats are cached and the combination takes them from there.
  auto first = LoadOpStatsCached(paths_[0], &cache);
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto combined = OpStatsForPaths(paths_, &cache);
  ASSERT_TRUE(combined.ok()) << combined.status().message();
  EXPECT_EQ(SerializeOpStats(**combined), expected);
  // Computing a host from its profile costs far more than decoding a summary: those are kept.
  for (const std::string& path : paths_) {
    auto key = FileIdentityKey(path);
    ASSERT_TRUE(key.ok());
    EXPECT_NE(cache.Peek<OpStats>("op_stats|" + *key), nullptr) << path;
  }
}

}  // namespace
}  // namespace tbprof
