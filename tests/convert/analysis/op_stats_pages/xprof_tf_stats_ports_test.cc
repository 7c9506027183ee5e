// xprof's framework_op_stats test (openxla/xprof), rebuilt with our XSpace
// builder and read in our TfStatsDatabase; expected values are the test's.
//
// Ported scenarios (file :: test — status — result):
// xprof/convert/op_stats_to_tf_stats_test.cc
//   OpStatsToTfStats.GpuTfStats  ported  pass (4 rows with IDLE: TfOp1 2 occurrences 36 µs, Conv2D 1 occurrence
//                                20 µs with TensorCore utilisation 0.5, TfOp2 1 occurrence 10 µs)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "convert/analysis/op_stats_pages/op_stats_to_tf_stats.h"
#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

using ops_test::OpStatsOf;
using tensorflow::profiler::XSpace;

// A kernel of framework op `op` ("name:type", held by reference as xprof's
// test holds it), on stream `line`, times in ns.
struct Kernel {
  int64_t line;
  const char* op;
  const char* name;
  int64_t start_ns, duration_ns;
  bool with_details;
};

TEST(XprofTfStatsPorts, GpuTfStats) {
  // TfOp1 runs kernel1 and kernel2 on both streams, TfOp2 kernel3; Conv2D runs
  // a TensorCore kernel and one that is not, of equal length.
  const std::vector<Kernel> kernels = {
      {10, "TfOp1:TfOp1", "kernel1", 100000, 8000, false},
      {10, "TfOp1:TfOp1", "kernel2", 110000, 10000, false},
      {20, "TfOp1:TfOp1", "kernel1", 100000, 8000, false},
      {20, "TfOp1:TfOp1", "kernel2", 110000, 10000, false},
      {20, "TfOp2:TfOp2", "kernel3", 120000, 10000, false},
      {20, "Conv2D:Conv2D", "volta_fp16_s884gemm", 130000, 10000, true},
      {20, "Conv2D:Conv2D", "kernel5", 150000, 10000, true},
  };
  XSpace space;
  XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 0);
  std::vector<XLineBuilder> streams = {gpu.AddLine(10, "stream 10"), gpu.AddLine(20, "stream 20")};
  for (const Kernel& k : kernels) {
    XEventBuilder e = streams[k.line == 10 ? 0 : 1].AddEvent(k.name, k.start_ns * 1000, k.duration_ns * 1000);
    e.Ref("tf_op", k.op);
    if (k.with_details) {
      e.Str("kernel_details", "regs:32\nstatic_shared:0\ndynamic_shared:16384\ngrid:2,1,1\nblock:32,1,1\nocc_pct:100");
    }
  }
  OpStats op_stats = OpStatsOf(space);
  tensorflow::profiler::TfStatsDatabase db = ConvertOpStatsToTfStats(op_stats);
  EXPECT_EQ(db.device_type(), op_stats.run_environment.device_type);
  const auto& records = db.with_idle().tf_stats_record();
  ASSERT_EQ(records.size(), 4);  // TfOp1, Conv2D, TfOp2, IDLE
  struct Expected {
    const char* name;
    int64_t occurrences;
    double self_us;
  };
  const Expected expected[] = {{"TfOp1", 2, 36}, {"Conv2D", 1, 20}, {"TfOp2", 1, 10}};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(expected[i].name);
    EXPECT_EQ(records[i].op_name(), expected[i].name);
    EXPECT_EQ(records[i].op_type(), expected[i].name);
    EXPECT_EQ(records[i].occurrences(), expected[i].occurrences);
    EXPECT_DOUBLE_EQ(records[i].total_self_time_in_us(), expected[i].self_us);
  }
  EXPECT_DOUBLE_EQ(records[1].gpu_tensorcore_utilization(), 0.5);
}

// xprof states an op's measured memory bandwidth in GiB/s (its
// GibiBytesPerSecondPerCore) under the label "GBytes/Sec": in the responses
// of a real xprof server, flop rate / operational intensity / bandwidth is
// 2^30 / 10^9 on every device row. One GiB in one second is 1.
TEST(XprofTfStatsPorts, MemoryBandwidthIsInGibibytesPerSecond) {
  OpStats op_stats;
  OpMetrics& op = op_stats.device_tf_op_metrics_db.ops["model/dense/MatMul"];
  op.name = "model/dense/MatMul";
  op.category = "MatMul";
  op.occurrences = 1;
  op.time_ps = op.self_time_ps = 1'000'000'000'000;  // 1 s
  op.bytes_accessed = 1024ull * 1024 * 1024;
  op.flops = 2e9;
  op_stats.device_tf_op_metrics_db.total_time_ps = op.time_ps;
  op_stats.device_tf_op_metrics_db.total_op_time_ps = op.time_ps;
  const auto db = ConvertOpStatsToTfStats(op_stats);
  ASSERT_EQ(db.without_idle().tf_stats_record_size(), 1);
  const auto& r = db.without_idle().tf_stats_record(0);
  EXPECT_DOUBLE_EQ(r.measured_memory_bw(), 1.0);
  EXPECT_DOUBLE_EQ(r.measured_flop_rate(), 2.0);  // GFLOP/s
  EXPECT_DOUBLE_EQ(r.measured_flop_rate() / r.operational_intensity() / r.measured_memory_bw(), 1.073741824);
}

}  // namespace
}  // namespace tbprof
