// xprof's duty-cycle combiner tests (openxla/xprof), rebuilt as TPU planes:
// a TensorCore's active interval is an XLA op, its present-but-idle one an
// off-duty (infeed) op; a SparseCore's active interval is one of its ops, its
// idle one its module. Cores of one chip are merged, chips summed; the answer
// is read in OpStats' device busy and idle time (what the overview's duty
// cycle shows). Expected values are xprof's.
//
// Ported scenarios (file :: test — status — result):
// xprof/convert/duty_cycle_combiner_test.cc
//   CombineMultiCoreChipTest      ported  pass (the cores take turns: active 20, idle 0)
//   CombineMultiChipTest          ported  pass (two chips, each half busy: active 20, idle 20)
//   CombineMultiChipAndCoreTest   ported  pass (active 30, idle 10)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

struct Interval {
  int64_t begin_ps, end_ps;
  bool active;
};
// One core: chip number, whether it is the chip's SparseCore, its intervals.
struct Core {
  int chip;
  bool sparse_core;
  std::vector<Interval> intervals;
};

OpStats OpStatsOfCores(const std::vector<Core>& cores) {
  tensorflow::profiler::XSpace space;
  int64_t plane_id = 0;
  for (const Core& core : cores) {
    std::string name = "/device:TPU:" + std::to_string(core.chip) + (core.sparse_core ? " SparseCore 0" : "");
    XPlaneBuilder plane = AddPlane(space, name, plane_id++);
    if (!core.sparse_core) plane.Str("device_type_string", "TPU v4");
    XLineBuilder ops = plane.AddLine(0, core.sparse_core ? "Sparse Core Ops" : "XLA Ops");
    XLineBuilder modules = plane.AddLine(1, core.sparse_core ? "Sparse Core Modules" : "XLA Modules");
    for (const Interval& i : core.intervals) {
      if (core.sparse_core) {
        (i.active ? ops : modules).AddEvent("sc", i.begin_ps, i.end_ps - i.begin_ps);
      } else {
        XEventBuilder op = ops.AddEvent(i.active ? "op" : "infeed", i.begin_ps, i.end_ps - i.begin_ps);
        if (!i.active) op.Str("hlo_category", "infeed");
      }
    }
  }
  return ops_test::OpStatsOf(space);
}

TEST(XprofDutyCycleCombinerPorts, Combine) {
  struct Case {
    const char* test;
    std::vector<Core> cores;
    uint64_t active_ps, idle_ps;
  };
  const Case cases[] = {
      {"CombineMultiCoreChipTest",
       {{0, false, {{10, 20, true}, {20, 30, false}}}, {0, true, {{10, 20, false}, {20, 30, true}}}},
       20, 0},
      {"CombineMultiChipTest",
       {{0, false, {{10, 20, true}, {20, 30, false}}}, {1, false, {{10, 20, true}, {20, 30, false}}}},
       20, 20},
      {"CombineMultiChipAndCoreTest",
       {{0, false, {{10, 20, false}, {20, 30, true}}},
        {0, true, {{10, 20, true}, {20, 30, false}}},
        {1, false, {{10, 30, false}, {15, 25, true}}}},
       30, 10},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.test);
    OpStats s = OpStatsOfCores(c.cores);
    EXPECT_EQ(s.device_op_metrics_db.busy_time_ps, c.active_ps);
    EXPECT_EQ(s.device_op_metrics_db.idle_time_ps, c.idle_ps);
  }
}

}  // namespace
}  // namespace tbprof
