// A running conversion's memory claims against what it was admitted with.
#include "convert/base/memory_grant.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "convert/base/run_both.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"

namespace tbprof {
namespace {

struct Asks {
  std::vector<uint64_t> more, total;
  Status answer;
};

std::shared_ptr<MemoryGrant> GrantWith(uint64_t reserved, Asks& asks) {
  return std::make_shared<MemoryGrant>(reserved, [&asks](uint64_t more, uint64_t total) {
    asks.more.push_back(more);
    asks.total.push_back(total);
    return asks.answer;
  });
}

TEST(MemoryGrant, ClaimsWithinTheReservationAskNobody) {
  Asks asks;
  auto grant = GrantWith(1000, asks);
  EXPECT_TRUE(grant->Claim(600, "a").ok());
  EXPECT_TRUE(grant->Claim(400, "b").ok());
  EXPECT_TRUE(asks.more.empty());
  EXPECT_EQ(grant->claimed(), 1000u);
  grant->Release(700);
  EXPECT_EQ(grant->claimed(), 300u);
  EXPECT_EQ(grant->peak_claimed(), 1000u);
  EXPECT_EQ(grant->reserved(), 1000u);
}

TEST(MemoryGrant, AClaimPastTheReservationAsksForAtLeastOneStep) {
  Asks asks;
  auto grant = GrantWith(1000, asks);
  ASSERT_TRUE(grant->Claim(1500, "the model").ok());
  ASSERT_EQ(asks.more.size(), 1u);
  // 500 were missing; the grant asks for a 16 MiB step so small claims do not each ask.
  EXPECT_EQ(asks.total[0], 1000u + (16u << 20));
  EXPECT_EQ(asks.more[0], 16u << 20);
  EXPECT_EQ(grant->reserved(), 1000u + (16u << 20));
  ASSERT_TRUE(grant->Claim(30u << 20, "the answer").ok());
  ASSERT_EQ(asks.more.size(), 2u);
  // 1500 + 30 MiB wanted, 1000 + 16 MiB reserved: another 16 MiB step covers it.
  EXPECT_EQ(asks.total[1], 1000u + (32u << 20));
  EXPECT_FALSE(grant->refused());
}

TEST(MemoryGrant, ARefusalKeepsTheOwnersCodeNamesTheWorkAndClaimsNothing) {
  Asks asks;
  asks.answer = ResourceExhausted("needs more than --memory_mb leaves");
  auto grant = GrantWith(100, asks);
  Status s = grant->Claim(200, "loading the profile");
  EXPECT_EQ(s.code(), ErrorCode::kResourceExhausted);
  EXPECT_EQ(s.message(), "loading the profile: needs more than --memory_mb leaves");
  EXPECT_EQ(grant->claimed(), 0u);
  EXPECT_EQ(grant->reserved(), 100u);
  EXPECT_TRUE(grant->refused());
}

TEST(MemoryGrant, WithoutAGrantEveryClaimSucceeds) {
  EXPECT_TRUE(ClaimMemory(uint64_t{1} << 50, "anything").ok());
  EXPECT_FALSE(MemoryRefused());
  std::string out;
  EXPECT_TRUE(GrowClaimed(out, 1000, "x").ok());
  EXPECT_GE(out.capacity(), 1000u);
}

TEST(MemoryGrant, GrowingAStringClaimsTheNewBufferAndReleasesTheOld) {
  Asks asks;
  auto grant = GrantWith(1u << 30, asks);
  MemoryGrantScope scope(grant);
  std::string out;
  ASSERT_TRUE(GrowClaimed(out, 1000, "x").ok());
  const size_t first = out.capacity();
  EXPECT_EQ(grant->claimed(), 1000u);  // what was asked for (the string may round it up)
  out.assign(first, 'a');
  ASSERT_TRUE(GrowClaimed(out, 10, "x").ok());
  // By half the capacity at least; both buffers were claimed while copying, the old one released after.
  EXPECT_GE(out.capacity(), first + first / 2);
  EXPECT_EQ(grant->peak_claimed(), 1000u + first + first / 2);
  EXPECT_EQ(grant->claimed(), first + first / 2);
  // Enough room: nothing claimed.
  EXPECT_TRUE(GrowClaimed(out, 1, "x").ok());
  EXPECT_EQ(grant->claimed(), first + first / 2);
}

TEST(MemoryGrant, TheSecondThreadOfRunBothClaimsFromTheSameGrant) {
  Asks asks;
  auto grant = GrantWith(1000, asks);
  MemoryGrantScope scope(grant);
  RunBoth([] { EXPECT_TRUE(ClaimMemory(100, "first").ok()); }, [] { EXPECT_TRUE(ClaimMemory(200, "second").ok()); });
  EXPECT_EQ(grant->claimed(), 300u);
}

// The decoder claims the model's event and stat arrays from its counts before
// sizing them: 3000 events with 2 stats each are 3000 * 24 + 6000 * 16 bytes
// (the model's packed sizes), whatever the file's size.
TEST(MemoryGrant, TheDecoderClaimsTheCountedEventsAndStatsAndStopsWhenRefused) {
  tensorflow::profiler::XSpace space;
  {
    XPlaneBuilder plane = AddPlane(space, "/host:CPU", 1);
    XLineBuilder line = plane.AddLine(1, "thread");
    for (int i = 0; i < 3000; ++i) line.AddEvent("op", i * 10, 5).Int("a", i).Int("b", 2 * i);
  }
  const std::string bytes = space.SerializeAsString();
  {
    Asks asks;
    auto grant = GrantWith(1u << 30, asks);
    MemoryGrantScope scope(grant);
    auto model = ParseXSpace(bytes, "tiny.xplane.pb");
    ASSERT_TRUE(model.ok()) << model.status().message();
    EXPECT_EQ(grant->claimed(), 3000u * 24 + 6000u * 16);
  }
  {
    Asks asks;
    asks.answer = ResourceExhausted("needs more than --memory_mb leaves");
    auto grant = GrantWith(1000, asks);
    MemoryGrantScope scope(grant);
    auto model = ParseXSpace(bytes, "tiny.xplane.pb");
    ASSERT_FALSE(model.ok());
    // A refusal, not a damaged file.
    EXPECT_EQ(model.status().code(), ErrorCode::kResourceExhausted);
    EXPECT_EQ(model.status().message(), "loading the profile: needs more than --memory_mb leaves");
  }
}

}  // namespace
}  // namespace tbprof
