// The cache behind the server's tool results (convert/artifact_cache.h):
// single-flight, typed, LRU under a byte budget that counts shared objects
// once, lasting failures cached and transient ones not.
#include "convert/tools/artifact_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace tbprof {
namespace {

ArtifactCache::Compute<int> IntValue(int v, size_t bytes) {
  return [v, bytes] { return StatusOr<CacheValue<int>>(CacheValue<int>{std::make_shared<const int>(v), bytes, {}}); };
}

TEST(PluginArtifactCache, ConcurrentMissesComputeOnce) {
  ArtifactCache cache(1000);
  std::atomic<int> computations{0};
  std::vector<std::thread> threads;
  std::atomic<int> sum{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      auto r = cache.Get<int>("k", ArtifactCache::Compute<int>([&]() -> StatusOr<CacheValue<int>> {
                                ++computations;
                                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                                return CacheValue<int>{std::make_shared<const int>(7), 10, {}};
                              }));
      if (r.ok()) sum += **r;
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
  for (const char* k : {"a", "b"}) ASSERT_TRUE(cache.Get<int>(k, IntValue(1, 40)).ok());
  ASSERT_NE(cache.Peek<int>("a"), nullptr);  // "a" is now the most recent
  ASSERT_TRUE(cache.Get<int>("c", IntValue(1, 40)).ok());
  EXPECT_NE(cache.Peek<int>("a"), nullptr);
  EXPECT_EQ(cache.Peek<int>("b"), nullptr);
  EXPECT_NE(cache.Peek<int>("c"), nullptr);
  EXPECT_EQ(cache.bytes_used(), 80u);
  // Larger than the whole budget: returned, not kept.
  auto big = cache.Get<int>("big", IntValue(5, 1000));
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(cache.Peek<int>("big"), nullptr);
}

TEST(PluginArtifactCache, TheTypeIsPartOfTheKey) {
  ArtifactCache cache(1000);
  ASSERT_TRUE(cache.Get<int>("k", IntValue(3, 10)).ok());
  // The same name asked for as another type is another entry, never the int reinterpreted.
  EXPECT_EQ(cache.Peek<std::string>("k"), nullptr);
  auto s = cache.Get<std::string>("k", ArtifactCache::Compute<std::string>([] {
    return StatusOr<CacheValue<std::string>>(
        CacheValue<std::string>{std::make_shared<const std::string>("text"), 20, {}});
  }));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(**s, "text");
  EXPECT_EQ(*cache.Peek<int>("k"), 3);
  EXPECT_EQ(cache.entries(), 2u);
  EXPECT_EQ(cache.bytes_used(), 30u);
}

TEST(PluginArtifactCache, SharedObjectsAreCountedOnceAndWhileHeld) {
  // Counted by hand: model 60 + index 10; the model stays counted while the
  // index holds it, after its own entry is evicted.
  ArtifactCache cache(100);
  auto model = std::make_shared<const std::string>("model");
  ASSERT_TRUE(cache
                  .Get<std::string>("model", ArtifactCache::Compute<std::string>([&] {
                    return StatusOr<CacheValue<std::string>>(CacheValue<std::string>{model, 60, {}});
                  }))
                  .ok());
  ASSERT_TRUE(cache
                  .Get<int>("index", ArtifactCache::Compute<int>([&] {
                    return StatusOr<CacheValue<int>>(
                        CacheValue<int>{std::make_shared<const int>(1), 10, {SharedCharge{model, 60}}});
                  }))
                  .ok());
  EXPECT_EQ(cache.bytes_used(), 70u);  // not 130: the model once
  // 40 more bytes: over budget, so the least recent entry (the model's own) goes...
  ASSERT_TRUE(cache.Get<int>("other", IntValue(2, 40)).ok());
  EXPECT_EQ(cache.Peek<std::string>("model"), nullptr);
  // ...but the index still holds the model, so it is still counted; and as that is still over
  // budget, the index went too (LRU order: model, index, other).
  EXPECT_LE(cache.bytes_used(), 100u);
  EXPECT_EQ(cache.Peek<int>("index"), nullptr);
  EXPECT_EQ(cache.bytes_used(), 40u);
}

TEST(PluginArtifactCache, LastingFailuresAreCachedTransientOnesAndExceptionsAreNot) {
  ArtifactCache cache(1000);
  int runs = 0;
  auto corrupt = ArtifactCache::Compute<int>([&]() -> StatusOr<CacheValue<int>> {
    ++runs;
    return DataLoss("bad file");
  });
  EXPECT_EQ(cache.Get<int>("k", corrupt).status().code(), ErrorCode::kDataLoss);
  EXPECT_EQ(cache.Get<int>("k", corrupt).status().code(), ErrorCode::kDataLoss);
  EXPECT_EQ(runs, 1);  // the second answer came from the cache
  std::shared_ptr<const int> value;
  Status failure;
  EXPECT_TRUE(cache.Peek<int>("k", &value, &failure));
  EXPECT_EQ(value, nullptr);
  EXPECT_EQ(failure.message(), "bad file");
  EXPECT_GT(cache.bytes_used(), 0u);

  auto changing = ArtifactCache::Compute<int>([&]() -> StatusOr<CacheValue<int>> {
    ++runs;
    return Unavailable("file changed while read");
  });
  EXPECT_EQ(cache.Get<int>("t", changing).status().code(), ErrorCode::kUnavailable);
  EXPECT_EQ(cache.Get<int>("t", changing).status().code(), ErrorCode::kUnavailable);
  EXPECT_EQ(runs, 3);
  auto thrown = cache.Get<int>("x", ArtifactCache::Compute<int>([]() -> StatusOr<CacheValue<int>> {
                                 throw std::runtime_error("boom");
                               }));
  EXPECT_EQ(thrown.status().code(), ErrorCode::kInternal);
  EXPECT_NE(thrown.status().message().find("boom"), std::string::npos);
  // The key is free again: a later computation runs and is cached.
  ASSERT_TRUE(cache.Get<int>("x", IntValue(3, 10)).ok());
  EXPECT_EQ(*cache.Peek<int>("x"), 3);
}

}  // namespace
}  // namespace tbprof
