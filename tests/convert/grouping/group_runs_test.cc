// GroupRuns: values over event indices kept as runs.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "convert/grouping/group_runs.h"

namespace tbprof {
namespace {

TEST(GroupRuns, FindsTheRunHoldingAnEvent) {
  GroupRuns runs;
  EXPECT_EQ(runs.Find(0, -7), -7);  // no run yet
  runs.Add(2, 5);
  runs.Add(4, 5);  // the same value: extends the run from 2
  runs.Add(6, -1);
  runs.Add(9, 3);
  EXPECT_EQ(runs.Find(1, -7), -7);  // before the first run
  EXPECT_EQ(runs.Find(2, -7), 5);
  EXPECT_EQ(runs.Find(5, -7), 5);
  EXPECT_EQ(runs.Find(6, -7), -1);
  EXPECT_EQ(runs.Find(8, -7), -1);
  EXPECT_EQ(runs.Find(9, -7), 3);
  EXPECT_EQ(runs.Find(1000, -7), 3);
}

TEST(GroupRuns, OfPerEventValuesKeepsOneRunPerChange) {
  const std::vector<int32_t> groups = {-1, -1, 0, 0, 0, 1, 1, -1, 2};
  GroupRuns runs = GroupRuns::Of(groups);
  for (uint32_t e = 0; e < groups.size(); ++e) EXPECT_EQ(runs.Find(e, 99), groups[e]) << e;
  EXPECT_EQ(runs.MemoryBytes(), 5 * 2 * sizeof(int32_t));  // -1, 0, 1, -1, 2
  EXPECT_TRUE(GroupRuns::Of(std::vector<uint8_t>{}).empty());
}

}  // namespace
}  // namespace tbprof
