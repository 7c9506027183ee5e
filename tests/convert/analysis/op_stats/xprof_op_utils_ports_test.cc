// xprof's device op metrics builder tests (openxla/xprof), reached the way a
// profile reaches them: XLA ops on a TPU's "XLA Ops" line read into OpStats'
// device op table. xprof's test hands the builder (occurrences, time, time of
// children, FLOPs and bytes per occurrence); here each occurrence is an op
// event with a child op nested in it, and the figures are those the test
// asserts.
//
// Ported scenarios (file :: test — status — result):
// xprof/utils/op_utils_test.cc
//   DeviceOpMetricsDbBuilderTest.EnterOpAccumulatesBasicMetrics       ported  pass (2 × (500 ps, child 50 ps),
//                                          10 FLOPs, 20 B each: time 1000, self 900, 20 FLOPs, 40 B)
//   DeviceOpMetricsDbBuilderTest.EnterOpAccumulatesMultipleOccurrences  ported  pass (+ 500 ps, child 50,
//                                          5 FLOPs, 10 B: 3 occurrences, 1500, 1350, 25 FLOPs, 50 B)
//   DeviceOpMetricsDbBuilderTest.EnterOpMetadataDoesNotOverwriteIfOccurrencesExist  ported  pass (the first
//                                          occurrence's category and provenance are kept)
//   EnterOpPreservesEagerFromFirstOccurrence  left out: device ops of a TPU have no eager flag in our table
//   EnterOpHandlesModelFlops, *SourceInfo, *MemoryAccessedBreakdown, *GPUFields, *GPUNegativeBytesFallback,
//   *VddEnergy, DeviceFlatOpMetricsDbBuilderTest.*
//                                          left out: our op table keeps no model FLOPs, source info, memory
//                                          breakdown, DMA stall, energy, nor a flat op table
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

using ops_test::OpStatsOf;
using tensorflow::profiler::XSpace;

// One occurrence of "test_op" with a child op inside it; stats on the event
// (the per-occurrence values of xprof's OpData).
struct Occurrence {
  int64_t begin_ps, duration_ps, child_ps;
  int64_t flops, bytes;
  const char* category;
  const char* provenance;
};

OpMetrics TestOp(const std::vector<Occurrence>& occurrences) {
  XSpace space;
  XPlaneBuilder tpu = AddPlane(space, "/device:TPU:0", 0);
  tpu.Str("device_type_string", "TPU V4");
  XLineBuilder ops = tpu.AddLine(1, "XLA Ops");
  for (const Occurrence& o : occurrences) {
    ops.AddEvent("test_op", o.begin_ps, o.duration_ps)
        .Int("flops", o.flops)
        .Int("bytes_accessed", o.bytes)
        .Str("hlo_category", o.category)
        .Str("tf_op", o.provenance);
    ops.AddEvent("child_op", o.begin_ps + 1, o.child_ps).Str("hlo_category", "child_cat");
  }
  OpStats s = OpStatsOf(space);
  EXPECT_TRUE(s.device_op_metrics_db.ops.count("test_op"));
  return s.device_op_metrics_db.ops["test_op"];
}

// The totals xprof's test asserts after its EnterOp calls.
struct Totals {
  uint64_t occurrences, time_ps, self_time_ps;
  double flops;
  uint64_t bytes_accessed;
};

TEST(XprofOpUtilsPorts, EnterOpAccumulates) {
  const Occurrence first = {0, 500, 50, 10, 20, "test_cat", "test_prov"};
  const Occurrence second = {1000, 500, 50, 10, 20, "test_cat", "test_prov"};
  const Occurrence third = {2000, 500, 50, 5, 10, "test_cat", "test_prov"};
  // EnterOpAccumulatesBasicMetrics, then EnterOpAccumulatesMultipleOccurrences.
  const std::vector<std::pair<std::vector<Occurrence>, Totals>> cases = {
      {{first, second}, {2, 1000, 900, 20, 40}},
      {{first, second, third}, {3, 1500, 1350, 25, 50}},
  };
  for (const auto& [occurrences, want] : cases) {
    SCOPED_TRACE(occurrences.size());
    OpMetrics m = TestOp(occurrences);
    EXPECT_EQ(m.name, "test_op");
    EXPECT_EQ(m.category, "test_cat");
    EXPECT_EQ(m.provenance, "test_prov");
    EXPECT_EQ(m.occurrences, want.occurrences);
    EXPECT_EQ(m.time_ps, want.time_ps);
    EXPECT_EQ(m.self_time_ps, want.self_time_ps);
    EXPECT_DOUBLE_EQ(m.flops, want.flops);
    EXPECT_EQ(m.bytes_accessed, want.bytes_accessed);
  }
}

TEST(XprofOpUtilsPorts, EnterOpMetadataDoesNotOverwriteIfOccurrencesExist) {
  OpMetrics m = TestOp({{0, 500, 50, 1, 1, "initial_cat", "initial_prov"},
                        {1000, 500, 50, 1, 1, "new_cat", "new_prov"}});
  EXPECT_EQ(m.category, "initial_cat");
  EXPECT_EQ(m.provenance, "initial_prov");
}

}  // namespace
}  // namespace tbprof
