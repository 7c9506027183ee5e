// roofline_model's steps on their own, on a hand-made op table: the figures
// expected are sums and ranks counted by hand from the ops below.
#include "convert/analysis/hlo/roofline_steps.h"

#include <gtest/gtest.h>

namespace tbprof {
namespace {

HloOpMetrics Op(std::string name, std::string category, uint64_t time_ps, uint64_t self_ps, double flops,
                bool flops_known = true) {
  HloOpMetrics m;
  m.name = std::move(name);
  m.category = std::move(category);
  m.occurrences = 1;
  m.time_ps = time_ps;
  m.self_time_ps = self_ps;
  m.flops = m.model_flops = flops;
  m.bytes_accessed = 10;
  m.flops_known = flops_known;
  m.bytes_known = true;
  return m;
}

HloOpDb Table() {
  HloOpDb db;
  db.ops.push_back(Op("fusion.1", "loop fusion", 600, 600, 100));
  db.ops.push_back(Op("conv.2", "convolution", 300, 300, 50));
  db.ops.push_back(Op("infeed.3", "infeed", 100, 100, 0));
  db.ops.push_back(Op("while.4", "while", 900, 0, 7));  // holds the others: never summed
  HloOpMetrics idle;
  idle.name = idle.category = "IDLE";
  idle.is_idle = true;
  idle.time_ps = idle.self_time_ps = 200;
  db.ops.push_back(idle);
  db.total_time_ps = 1200;
  return db;
}

TEST(RooflineSteps, ProgramSumsTheInnermostOps) {
  const RooflineRecord with = ProgramRecord(Table(), /*include_infeed_outfeed=*/true);
  EXPECT_EQ(with.name, "Program");
  EXPECT_DOUBLE_EQ(with.flops, 150);  // 100 + 50 + 0
  EXPECT_DOUBLE_EQ(with.bytes, 30);   // three ops of 10 bytes
  EXPECT_EQ(with.time_ps, 1200u);
  EXPECT_TRUE(with.flops_known);

  const RooflineRecord without = ProgramRecord(Table(), /*include_infeed_outfeed=*/false);
  EXPECT_DOUBLE_EQ(without.bytes, 20);
  EXPECT_EQ(without.time_ps, 1100u);  // the infeed's 100 ps left out
}

TEST(RooflineSteps, OneUnknownOpMakesTheProgramsFlopsUnknown) {
  HloOpDb db = Table();
  db.ops[1].flops_known = false;
  EXPECT_FALSE(ProgramRecord(db, true).flops_known);
  EXPECT_TRUE(ProgramRecord(db, true).bytes_known);
}

TEST(RooflineSteps, OpsRankedBySelfTimeWithCumulativeFractions) {
  const std::vector<RooflineRecord> ops = OpRecords(Table(), /*include_infeed_outfeed=*/false, 1000);
  // By self time: fusion.1 600, conv.2 300, (infeed.3 dropped), while.4 0.
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].name, "fusion.1");
  EXPECT_EQ(ops[0].rank, 1);
  EXPECT_DOUBLE_EQ(ops[0].self_fraction, 0.6);
  EXPECT_EQ(ops[1].name, "conv.2");
  EXPECT_DOUBLE_EQ(ops[1].cumulative_fraction, 0.9);
  EXPECT_EQ(ops[2].name, "while.4");
  EXPECT_EQ(ops[2].rank, 3);
}

TEST(RooflineSteps, RowHasACellPerColumn) {
  for (const bool gpu : {true, false}) {
    DataTable t;
    AddRooflineColumns(gpu, t);
    DevicePeaks peaks;
    const std::vector<DataTable::Cell> row = RooflineRow(ProgramRecord(Table(), true), peaks, gpu, 1200, true);
    EXPECT_EQ(row.size(), t.columns().size()) << (gpu ? "gpu" : "tpu");
  }
}

}  // namespace
}  // namespace tbprof
