// The cache behind the server's tool results (convert/artifact_cache.h):
// single-flight, LRU under a byte budget, errors not cached.
#include "convert/tools/artifact_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace tbprof {
namespace {

ArtifactCache::Entry IntEntry(int v, size_t bytes) {
  return ArtifactCache::Entry{std::make_shared<const int>(v), bytes};
}

TEST(PluginArtifactCache, ConcurrentMissesComputeOnce) {
  ArtifactCache cache(1000);
  std::atomic<int> computations{0};
  std::vector<std::thread> threads;
  std::atomic<int> sum{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      auto r = cache.GetOrCompute("k", [&]() -> StatusOr<ArtifactCache::Entry> {
        ++computations;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return IntEntry(7, 10);
      });
      if (r.ok()) sum += *std::static_pointer_cast<const int>(*r);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(computations.load(), 1);
  EXPECT_EQ(sum.load(), 56);
  EXPECT_NE(cache.Peek<int>("k"), nullptr);
  EXPECT_EQ(cache.Peek<int>("other"), nullptr);
}

TEST(PluginArtifactCache, EvictsLeastRecentlyUsedOverBudget) {
  ArtifactCache cache(100);
  for (const char* k : {"a", "b"}) {
    ASSERT_TRUE(cache.GetOrCompute(k, [] { return StatusOr<ArtifactCache::Entry>(IntEntry(1, 40)); }).ok());
  }
  ASSERT_NE(cache.Peek("a"), nullptr);  // "a" is now the most recent
  ASSERT_TRUE(cache.GetOrCompute("c", [] { return StatusOr<ArtifactCache::Entry>(IntEntry(1, 40)); }).ok());
  EXPECT_NE(cache.Peek("a"), nullptr);
  EXPECT_EQ(cache.Peek("b"), nullptr);
  EXPECT_NE(cache.Peek("c"), nullptr);
  EXPECT_EQ(cache.bytes_used(), 80u);
  // Larger than the whole budget: returned, not kept.
  auto big = cache.GetOrCompute("big", [] { return StatusOr<ArtifactCache::Entry>(IntEntry(5, 1000)); });
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(cache.Peek("big"), nullptr);
}

TEST(PluginArtifactCache, ErrorsAndExceptionsAreReturnedNotCached) {
  ArtifactCache cache(100);
  auto err = cache.GetOrCompute("k", [] { return StatusOr<ArtifactCache::Entry>(DataLoss("bad file")); });
  EXPECT_EQ(err.status().code(), ErrorCode::kDataLoss);
  auto thrown = cache.GetOrCompute("k", []() -> StatusOr<ArtifactCache::Entry> { throw std::runtime_error("boom"); });
  EXPECT_EQ(thrown.status().code(), ErrorCode::kInternal);
  EXPECT_NE(thrown.status().message().find("boom"), std::string::npos);
  // The key is free again: a later computation runs and is cached.
  auto ok = cache.GetOrCompute("k", [] { return StatusOr<ArtifactCache::Entry>(IntEntry(3, 10)); });
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*cache.Peek<int>("k"), 3);
}

}  // namespace
}  // namespace tbprof
