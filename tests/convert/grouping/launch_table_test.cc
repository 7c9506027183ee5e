// LaunchTable: the first launch of a correlation id wins, in both layouts
// (a slot per id when the ids fill a range densely, open addressing when not).
#include <gtest/gtest.h>

#include <cstdint>

#include "convert/grouping/launch_table.h"

namespace tbprof::grouping {
namespace {

TEST(LaunchTable, DenseIdsFirstLaunchWins) {
  LaunchTable table(/*count=*/4, /*min_id=*/100, /*max_id=*/103);
  table.Insert(100, {0, 7});
  table.Insert(102, {0, 9});
  table.Insert(100, {1, 1});  // a second launch of id 100: ignored
  ASSERT_NE(table.Find(100), nullptr);
  EXPECT_EQ(table.Find(100)->event, 7u);
  EXPECT_EQ(table.Find(100)->plane, 0u);
  EXPECT_EQ(table.Find(102)->event, 9u);
  EXPECT_EQ(table.Find(101), nullptr);  // in range, never launched
  EXPECT_EQ(table.Find(99), nullptr);   // below the range
  EXPECT_EQ(table.Find(104), nullptr);  // above it
}

TEST(LaunchTable, SparseIdsAreHashed) {
  const int64_t ids[] = {5, 1000000007, -3, INT64_MAX, INT64_MIN, 77};
  LaunchTable table(/*count=*/6, /*min_id=*/INT64_MIN, /*max_id=*/INT64_MAX);
  for (uint32_t i = 0; i < 6; ++i) table.Insert(ids[i], {2, i});
  table.Insert(-3, {3, 99});  // ignored: -3 is taken
  for (uint32_t i = 0; i < 6; ++i) {
    table.Prefetch(ids[i]);
    const EdgeRef* ref = table.Find(ids[i]);
    ASSERT_NE(ref, nullptr) << ids[i];
    EXPECT_EQ(ref->plane, 2u);
    EXPECT_EQ(ref->event, i);
  }
  EXPECT_EQ(table.Find(6), nullptr);
  EXPECT_EQ(table.Find(0), nullptr);
}

TEST(LaunchTable, EmptyTableFindsNothing) {
  LaunchTable table(/*count=*/0, /*min_id=*/INT64_MAX, /*max_id=*/INT64_MIN);
  EXPECT_EQ(table.Find(0), nullptr);
  EXPECT_EQ(table.Find(INT64_MIN), nullptr);
}

}  // namespace
}  // namespace tbprof::grouping
