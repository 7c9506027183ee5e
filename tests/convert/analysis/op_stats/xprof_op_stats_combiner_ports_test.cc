// xprof's tests of combining hosts and cores (openxla/xprof), built as the
// tests build their OpStats / op tables and read in our combined OpStats.
//
// Ported scenarios (file :: test — status — result):
// xprof/convert/op_stats_combiner_test.cc
//   CombineRunEnvironmentWithUnknownDevice       ported   pass ("TPU" wins over the generic "Device", either order)
//   CombineRunEnvironmentWithMismatchHardwareType ported  pass (TPU wins over the CPU-only coordinator, either order)
//   CombineRunEnvironment (profile_duration_ms)  left out: our run environment keeps each host's session times
//                                                instead of one duration
//   CombinePerfEnvOrderZero, CombineRunEnvironmentPowerMetrics*  left out: no PerfEnv or power metrics in our OpStats
// xprof/convert/op_metrics_db_combiner_test.cc
//   ChildrenAreSummedAcrossCores                 in part  pass (one row, 36 × 4 occurrences); the SparseCore
//                                                children of an offloading op are not modeled in our op table
//   ParentWithoutChildrenHasNoChildren           in part  pass (two cores' same op: one row)
//   ChildrenWithDifferentNamesAreKeptSeparate, SingleSourceChildrenAreCopiedUnchanged
//                                                left out: child op tables (SparseCore offload) are not modeled
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "convert/analysis/op_stats/op_stats_combiner.h"

namespace tbprof {
namespace {

std::shared_ptr<const OpStats> Host(const std::string& device_type, const std::string& hardware_type) {
  auto s = std::make_shared<OpStats>();
  s->run_environment.device_type = device_type;
  s->run_environment.hardware_type = hardware_type;
  return s;
}

// xprof's test leaves the hardware type of the "Device" host unset; ours has
// no unset value, and a host without a known accelerator is CPU_ONLY.
TEST(XprofOpStatsCombinerPorts, CombineRunEnvironmentWithUnknownDeviceAndMismatchHardwareType) {
  const std::vector<std::shared_ptr<const OpStats>> pairs[] = {
      {Host("TPU", "TPU"), Host("Device", "CPU_ONLY")},  // CombineRunEnvironmentWithUnknownDevice
      {Host("CPU", "CPU_ONLY"), Host("TPU", "TPU")},     // CombineRunEnvironmentWithMismatchHardwareType
  };
  for (const auto& pair : pairs) {
    for (bool reversed : {false, true}) {
      SCOPED_TRACE(pair[0]->run_environment.device_type + (reversed ? " last" : " first"));
      auto hosts = pair;
      if (reversed) std::swap(hosts[0], hosts[1]);
      OpStats combined = CombineOpStats(hosts);
      EXPECT_EQ(combined.run_environment.device_type, "TPU");
      EXPECT_EQ(combined.run_environment.hardware_type, "TPU");
    }
  }
}

// One core's table: the TensorCore op that offloads a scatter, 36 times.
OpMetricsDb CoreDb() {
  OpMetricsDb db;
  db.total_time_ps = 1000000000;
  OpMetrics& m = db.ops["scatter_offload_async_start.95"];
  m.name = "scatter_offload_async_start.95";
  m.category = "async-start";
  m.occurrences = 36;
  m.time_ps = m.self_time_ps = 1000;
  return db;
}

TEST(XprofOpMetricsDbCombinerPorts, SameOpOfSeveralCoresIsOneRow) {
  for (int cores : {2, 4}) {  // ParentWithoutChildrenHasNoChildren, ChildrenAreSummedAcrossCores
    SCOPED_TRACE(cores);
    OpMetricsDb combined;
    for (int core = 0; core < cores; ++core) CombineOpMetricsDb(CoreDb(), combined);
    ASSERT_EQ(combined.ops.size(), 1u);
    EXPECT_EQ(combined.ops.begin()->second.occurrences, 36u * cores);
  }
}

}  // namespace
}  // namespace tbprof
