// The HLO op table's steps on their own: a TPU op's memory breakdown read
// from bytes encoded by hand here (protobuf wire format), and the collector's
// op numbering and idle time.
#include "convert/analysis/hlo/hlo_op_collector.h"

#include <gtest/gtest.h>

#include <string>

namespace tbprof {
namespace {

// One MemoryAccessBreakdown entry: field 1 (length-delimited) holding
// operation_type (1), memory_space (2) and bytes_accessed (3) as varints < 128.
std::string Entry(char op, char space, char bytes) {
  return std::string{0x0A, 6, 0x08, op, 0x10, space, 0x18, bytes};
}

TEST(HloOpCollector, MemoryBreakdownSplitsBytesByMemoryAndDirection) {
  // HBM read 100, CMEM write 20, VMEM read 40, two runs.
  const std::string bytes = Entry(1, 1, 100) + Entry(2, 2, 20) + Entry(1, 3, 40);
  HloOpMetrics m;
  AddMemoryBreakdown(bytes, 2, m);
  EXPECT_TRUE(m.has_breakdown);
  EXPECT_DOUBLE_EQ(m.hbm_bytes, 200);
  EXPECT_DOUBLE_EQ(m.cmem_wr, 40);
  EXPECT_DOUBLE_EQ(m.cmem_rd, 0);
  EXPECT_DOUBLE_EQ(m.vmem_rd, 80);
  // On chip: everything but HBM.
  EXPECT_DOUBLE_EQ(m.onchip_rd, 80);
  EXPECT_DOUBLE_EQ(m.onchip_wr, 40);
}

TEST(HloOpCollector, MalformedBreakdownStopsWhereItBreaks) {
  // A whole HBM entry, then an entry that claims 6 bytes but has 2.
  const std::string bytes = Entry(1, 1, 10) + std::string{0x0A, 6, 0x08, 1};
  HloOpMetrics m;
  AddMemoryBreakdown(bytes, 1, m);
  EXPECT_DOUBLE_EQ(m.hbm_bytes, 10);
}

TEST(HloOpCollector, OpsNumberedOnFirstUseAndIdleLast) {
  XSpaceModel space;
  HloOpCollector ops(space);
  HloOpMetrics& a = ops.OpFor(7, "fusion.1");
  EXPECT_EQ(ops.IndexOf(a), 0u);
  EXPECT_EQ(ops.IndexOf(ops.OpFor(7, "copy.2")), 1u);
  EXPECT_EQ(ops.IndexOf(ops.OpFor(7, "fusion.1")), 0u);  // the same op again
  EXPECT_EQ(ops.IndexOf(ops.OpFor(8, "fusion.1")), 2u);  // another program's
  // A plane of 1000 ps in which ops ran 600: 400 idle; ops longer than the span count whole.
  EXPECT_EQ(ops.AddPlaneTime(600, 1000), 400u);
  EXPECT_EQ(ops.AddPlaneTime(500, 300), 0u);
  HloOpDb db = std::move(ops).Finish(400);
  EXPECT_EQ(db.total_time_ps, 1500u);
  ASSERT_EQ(db.ops.size(), 4u);
  EXPECT_TRUE(db.ops.back().is_idle);
  EXPECT_EQ(db.ops.back().time_ps, 400u);
  EXPECT_TRUE(db.has_device_ops);
}

}  // namespace
}  // namespace tbprof
