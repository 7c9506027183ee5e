// xprof's op-table tests (openxla/xprof), rebuilt with our XSpace builder and
// read in OpStats' host and device op tables (what framework_op_stats and
// the overview show). Expected values are those of xprof's tests.
//
// Ported scenarios (file :: test — status — result):
// xprof/convert/xplane_to_op_metrics_db_test.cc
//   HostOpMetricsDb                    ported   pass (TfOp1 ×2 on two threads, TfOp2, IDLE 2 µs of 28 µs)
//   DeviceOpMetricsDb                  ported   pass (rows per framework op and kernel, IDLE 0: the GPU is
//                                      busy throughout; total = the kernels' time, 46 µs)
//   TensorCoreDeviceOpMetricsDb        ported   pass after a fix (an aggregated event of 2 occurrences:
//                                      2 occurrences, 68 FLOPs, 10 ns; tbprof counted it once, 34 FLOPs)
//   HostXPlaneWithXlaOps               ported   pass (XLA:CPU ops named by their tf_op, without a type;
//                                      IDLE 2 µs of 20 µs)
//   HostXPlaneWithInputPipelineTracemeOps  ported   pass (four rows, one per stage id as xprof keeps them,
//                                      20 µs of op time, IDLE 10 µs of 30 µs, the "preprocessing" type)
//   TensorCoreDeviceOpMetricsDbExtractsVddEnergy  left out: no energy in our op table
//   TensorCoreDeviceOpMetricsDbFindsSparseCoreOffload, SparseCoreDeviceOpMetricsDb, SparseCoreTecTileXPlane
//                                      left out: SparseCore ops as children of the TensorCore's offload op
//                                      are not modeled
//   DeviceOpMetricsDbWithNullPerformanceInfo and the other HLO-cost cases  left out: they need XLA's HLO
//                                      parser and cost analysis on GPU op rows, which our GPU table does not keep
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

using ops_test::OpStatsOf;
using tensorflow::profiler::XSpace;

constexpr int64_t kNs = 1000;  // ps

// One event: line, name, start and duration in ns; `tf_op` set: the event
// carries that stat (a kernel's or an XLA:CPU op's framework op).
struct Ev {
  int64_t line;
  std::string name;
  int64_t start_ns, duration_ns;
  std::string tf_op;
};

XSpace SpaceOf(const std::string& plane_name, const std::vector<Ev>& events) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, plane_name, 0);
  std::vector<std::pair<int64_t, XLineBuilder>> lines;
  for (const Ev& ev : events) {
    auto it = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == ev.line; });
    if (it == lines.end()) it = lines.insert(lines.end(), {ev.line, plane.AddLine(ev.line, "line")});
    XEventBuilder e = it->second.AddEvent(ev.name, ev.start_ns * kNs, ev.duration_ns * kNs);
    if (!ev.tf_op.empty()) e.Ref("tf_op", ev.tf_op);
  }
  return space;
}

// A row of xprof's expected table: name, category, occurrences, time and self time in ns.
struct Row {
  const char* name;
  const char* category;
  uint64_t occurrences, time_ns, self_ns;
};

void ExpectTable(const OpMetricsDb& db, const std::vector<Row>& rows, uint64_t total_ns, uint64_t op_ns) {
  EXPECT_EQ(db.ops.size(), rows.size());
  for (const Row& want : rows) {
    SCOPED_TRACE(want.name);
    auto it = db.ops.find(want.name);
    ASSERT_NE(it, db.ops.end());
    EXPECT_EQ(it->second.category, want.category);
    EXPECT_EQ(it->second.occurrences, want.occurrences);
    EXPECT_EQ(it->second.time_ps, want.time_ns * kNs);
    EXPECT_EQ(it->second.self_time_ps, want.self_ns * kNs);
  }
  EXPECT_EQ(db.total_time_ps, total_ns * kNs);
  EXPECT_EQ(db.total_op_time_ps, op_ns * kNs);
}

TEST(XprofOpMetricsDbPorts, HostOpMetricsDb) {
  OpStats s = OpStatsOf(SpaceOf("/host:CPU", {{10, "TfOp1:TfOp1", 100000, 8000, ""},
                                              {20, "TfOp1:TfOp1", 100000, 8000, ""},
                                              {20, "TfOp2:TfOp2", 110000, 10000, ""}}));
  // Each thread's span counts: 8 µs and 20 µs, of which 2 µs are idle.
  ExpectTable(s.host_op_metrics_db,
              {{"TfOp1", "TfOp1", 2, 16000, 16000}, {"TfOp2", "TfOp2", 1, 10000, 10000}, {"IDLE", "IDLE", 0, 2000, 2000}},
              28000, 26000);
}

TEST(XprofOpMetricsDbPorts, DeviceOpMetricsDb) {
  OpStats s = OpStatsOf(SpaceOf("/device:GPU:0", {{10, "kernel1", 100000, 8000, "TfOp1:TfOp1"},
                                                  {10, "kernel2", 110000, 10000, "TfOp1:TfOp1"},
                                                  {20, "kernel1", 100000, 8000, "TfOp1:TfOp1"},
                                                  {20, "kernel2", 110000, 10000, "TfOp1:TfOp1"},
                                                  {20, "kernel3", 120000, 10000, "TfOp2:TfOp2"}}));
  ExpectTable(s.device_op_metrics_db,
              {{"TfOp1/kernel1", "TfOp1", 2, 16000, 16000},
               {"TfOp1/kernel2", "TfOp1", 2, 20000, 20000},
               {"TfOp2/kernel3", "TfOp2", 1, 10000, 10000},
               {"IDLE", "IDLE", 0, 0, 0}},
              46000, 46000);
}

// An aggregated event (num_occurrences 2 instead of an offset) on a TPU's
// Framework Ops line: its FLOPs are per occurrence, its duration the total.
TEST(XprofOpMetricsDbPorts, TensorCoreDeviceOpMetricsDb) {
  XSpace space;
  XPlaneBuilder tpu = AddPlane(space, "/device:TPU:0", 0);
  tpu.Str("device_type_string", "TPU V4");
  for (auto [stat, value] : {std::pair{"tf_op", "while:MatMul"}, std::pair{"hlo_category", "MatMul"}}) {
    auto* s = tpu.EventMetadata("MatMul")->add_stats();
    s->set_metadata_id(tpu.StatMetadataId(stat));
    s->set_str_value(value);
  }
  auto* flops = tpu.EventMetadata("MatMul")->add_stats();
  flops->set_metadata_id(tpu.StatMetadataId("flops"));
  flops->set_uint64_value(34);
  tpu.AddLine(10, "Framework Ops").AddAggregatedEvent("MatMul", 2, 10 * kNs).Double("time_scale_multiplier", 2.0);
  OpStats s = OpStatsOf(space);
  ExpectTable(s.device_op_metrics_db, {{"MatMul", "MatMul", 2, 10, 10}, {"IDLE", "IDLE", 0, 0, 0}}, 10, 10);
  const OpMetrics& m = s.device_op_metrics_db.ops["MatMul"];
  EXPECT_EQ(m.provenance, "while:MatMul");
  EXPECT_DOUBLE_EQ(m.flops, 68);
  EXPECT_EQ(m.min_time_ps, 10 * kNs);
}

// xprof's rows: each XLA:CPU op counts as the op its tf_op stat names, and a
// name without ":type" has no type (empty), as xprof's ParseTfOpFullname gives.
TEST(XprofOpMetricsDbPorts, HostXPlaneWithXlaOps) {
  OpStats s = OpStatsOf(
      SpaceOf("/host:CPU", {{10, "xla_op", 100000, 8000, "tf_op"}, {10, "xla_op2", 110000, 10000, "tf_op2"}}));
  ExpectTable(s.host_op_metrics_db,
              {{"tf_op", "", 1, 8000, 8000}, {"tf_op2", "", 1, 10000, 10000}, {"IDLE", "IDLE", 0, 2000, 2000}},
              20000, 18000);
}

TEST(XprofOpMetricsDbPorts, HostXPlaneWithInputPipelineTracemeOps) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder line = host.AddLine(10, "line");
  const std::tuple<const char*, int64_t, int64_t> stages[] = {
      {"ShuffleMapDataset", 100, 10}, {"MapMapDataset", 100, 8}, {"ShuffleMapDataset", 120, 10}, {"MapMapDataset", 120, 8}};
  int64_t id = 0;
  for (const auto& [name, start_us, duration_us] : stages) {
    line.AddEvent(name, start_us * 1000 * kNs, duration_us * 1000 * kNs)
        .Int("_ipl_stage_id", ++id)
        .Str("_ipl_stage_cat", "preprocessing");
  }
  // As the tools load the file (keeping only the stats the op tables read),
  // and whole.
  auto loaded = LoadXSpaceFile(ops_test::WriteSpace(space, "stages"), OpStatsLoadOptions());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  // One row per stage id (xprof's hlo_module_id), named by the event.
  struct StageRow {
    std::string name, category;
    int64_t stage;
    uint64_t occurrences, time_ns, self_ns;
    bool operator==(const StageRow&) const = default;
  };
  for (const OpStats& s : {ConvertXSpaceToOpStats(**loaded), OpStatsOf(space)}) {
    std::vector<StageRow> rows;
    for (const auto& [key, m] : s.host_op_metrics_db.ops) {
      rows.push_back({m.name, m.category, m.hlo_module_id, m.occurrences, m.time_ps / kNs, m.self_time_ps / kNs});
    }
    std::sort(rows.begin(), rows.end(), [](const StageRow& a, const StageRow& b) { return a.stage < b.stage; });
    EXPECT_EQ(rows, (std::vector<StageRow>{{"IDLE", "IDLE", 0, 0, 10000, 10000},
                                           {"ShuffleMapDataset", "preprocessing", 1, 1, 10000, 2000},
                                           {"MapMapDataset", "preprocessing", 2, 1, 8000, 8000},
                                           {"ShuffleMapDataset", "preprocessing", 3, 1, 10000, 2000},
                                           {"MapMapDataset", "preprocessing", 4, 1, 8000, 8000}}));
    EXPECT_EQ(s.host_op_metrics_db.total_time_ps, 30000 * kNs);
    EXPECT_EQ(s.host_op_metrics_db.total_op_time_ps, 20000 * kNs);
  }
}

// A stage no event categorizes is no op, not even a TF op by its name.
TEST(XprofOpMetricsDbPorts, UncategorizedStageIsNoOp) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder line = host.AddLine(10, "line");
  line.AddEvent("ShuffleMapDataset", 100 * 1000 * kNs, 10 * 1000 * kNs)
      .Int("_ipl_stage_id", 1)
      .Str("_ipl_stage_cat", "preprocessing");
  line.AddEvent("model/dense/MatMul:MatMul", 140 * 1000 * kNs, 1000 * kNs).Int("_ipl_stage_id", 5);
  const OpMetricsDb& db = OpStatsOf(space).host_op_metrics_db;
  EXPECT_EQ(db.ops.size(), 2u);  // the stage and IDLE
  EXPECT_EQ(db.total_op_time_ps, 10000 * kNs);
}

}  // namespace
}  // namespace tbprof
