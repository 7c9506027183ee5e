// kernel_stats' first step on its own: the launch a kernel_details text
// describes. Expected values are the numbers written in each text.
#include "convert/analysis/kernels/kernel_launch_params.h"

#include <gtest/gtest.h>

namespace tbprof {
namespace {

TEST(KernelLaunchParams, CudaDetailsGiveEveryFigure) {
  const KernelLaunchParams lp =
      ParseKernelDetails("regs:32 static_shared:48 dynamic_shared:1024 grid:4,2,1 block:256,1,1 occ_pct:62.5");
  ASSERT_TRUE(lp.regs && lp.static_shmem && lp.dynamic_shmem && lp.occupancy);
  EXPECT_EQ(*lp.regs, 32u);
  EXPECT_EQ(*lp.static_shmem, 48u);
  EXPECT_EQ(*lp.dynamic_shmem, 1024u);
  EXPECT_EQ(lp.grid[0], 4u);
  EXPECT_EQ(lp.grid[1], 2u);
  EXPECT_EQ(lp.grid[2], 1u);
  EXPECT_EQ(lp.block[0], 256u);
  EXPECT_DOUBLE_EQ(*lp.occupancy, 62.5);
}

TEST(KernelLaunchParams, RocmGroupMemoryIsSharedMemoryAndZeroOccupancyUnknown) {
  const KernelLaunchParams lp = ParseKernelDetails("grid:8,1,1 block:64,4,1 private_mem:16 group_mem:2048 occ_pct:0");
  EXPECT_FALSE(lp.regs.has_value());
  ASSERT_TRUE(lp.static_shmem.has_value());
  EXPECT_EQ(*lp.static_shmem, 2048u);
  EXPECT_FALSE(lp.dynamic_shmem.has_value());
  EXPECT_FALSE(lp.occupancy.has_value());
  EXPECT_EQ(lp.block[1], 4u);
}

TEST(KernelLaunchParams, MalformedWordsLeaveTheirFiguresUnknown) {
  // A negative count, two dimensions, a word with two colons, a word without one.
  const KernelLaunchParams lp = ParseKernelDetails("regs:-3 grid:7,7 block:a:b junk occ_pct:150");
  EXPECT_FALSE(lp.regs.has_value());
  EXPECT_EQ(lp.grid[0], 1u);
  EXPECT_EQ(lp.grid[1], 1u);
  EXPECT_EQ(lp.block[0], 1u);
  EXPECT_FALSE(lp.occupancy.has_value());
}

}  // namespace
}  // namespace tbprof
