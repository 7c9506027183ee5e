// trace_analysis' sections on a tiny PyTorch trace written by our writer,
// every figure computed by hand (times in µs):
//   stream 7:  gemm [20,50] launched at [0,10]; gemm [60,80] launched at [12,14];
//              gemm [110,130] launched at [100,105]; a copy [170,171] by
//              cudaMemcpyAsync at [106,108];
//   stream 20: an NCCL all-reduce [40,70] launched at [15,16].
#include <gtest/gtest.h>

#include <cmath>

#include "convert/analysis/trace_analysis/comm_comp_overlap.h"
#include "convert/analysis/trace_analysis/idle_time_breakdown.h"
#include "convert/analysis/trace_analysis/kernel_breakdown.h"
#include "convert/analysis/trace_analysis/kernel_launch.h"
#include "convert/analysis/trace_analysis/queue_length.h"
#include "convert/analysis/trace_analysis/temporal_breakdown.h"
#include "convert/kineto/kineto_reader.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"
#include "tests/convert/kineto/kineto_trace_writer.h"

namespace tbprof::trace_analysis {
namespace {

using testing_kineto::TraceWriter;

constexpr int64_t kUs = 1000;       // ns per µs, as the writer takes times
constexpr int64_t kPsPerUs = 1'000'000;  // the model's unit

std::string TinyTrace() {
  TraceWriter w;
  w.Launch(0, 10 * kUs, 20 * kUs, 30 * kUs, "gemm", 1, 1);
  w.Launch(12 * kUs, 2 * kUs, 60 * kUs, 20 * kUs, "gemm", 2, 2);
  w.Launch(15 * kUs, 1 * kUs, 40 * kUs, 30 * kUs, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 5, 5, "", 20);
  w.Launch(100 * kUs, 5 * kUs, 110 * kUs, 20 * kUs, "gemm", 3, 3);
  w.Launch(106 * kUs, 2 * kUs, 170 * kUs, 1 * kUs, "Memcpy HtoD (Pageable -> Device)", 4, 4, "", 7, "cudaMemcpyAsync",
           "gpu_memcpy");
  return w.Json();
}

struct Loaded {
  std::unique_ptr<XSpaceModel> model;
  RankKernels rank;
  MergedKernels merged;
};

Loaded Load(const std::string& json) {
  Loaded l;
  auto m = ParseKinetoTrace(json, "tiny");
  EXPECT_TRUE(m.ok()) << m.status().message();
  l.model = std::move(*m);
  l.rank = ExtractRankKernels(*l.model, RankOfModel(*l.model, 0), "tiny");
  l.merged = MergeKernelIntervals(l.rank);
  return l;
}

TEST(TraceAnalysisHand, KernelsByStreamAndType) {
  Loaded l = Load(TinyTrace());
  ASSERT_EQ(l.rank.streams.size(), 2u);
  EXPECT_EQ(l.rank.streams[0].stream, 7);
  EXPECT_EQ(l.rank.streams[0].kernels.size(), 4u);
  EXPECT_EQ(l.rank.streams[1].stream, 20);
  EXPECT_EQ(l.rank.launches.size(), 5u);
  EXPECT_EQ(l.rank.names[l.rank.streams[1].kernels[0].name].type, KernelType::kCommunication);
  EXPECT_EQ(l.rank.names[l.rank.streams[0].kernels[3].name].type, KernelType::kMemory);
  EXPECT_EQ(l.rank.rank, 0);  // no distributedInfo: the fallback
}

TEST(TraceAnalysisHand, TemporalBreakdown) {
  Loaded l = Load(TinyTrace());
  const TemporalRow t = TemporalBreakdown(l.rank, l.merged);
  ASSERT_TRUE(t.has_kernels);
  // Busy: [20,80] ∪ [110,130] ∪ [170,171] = 81 over the span [20,171] = 151.
  EXPECT_EQ(t.kernel_ps, 151 * kPsPerUs);
  EXPECT_EQ(t.idle_ps, 70 * kPsPerUs);
  EXPECT_EQ(t.compute_ps, 70 * kPsPerUs);  // [20,50] ∪ [60,80] ∪ [110,130]
  EXPECT_EQ(t.non_compute_ps, 11 * kPsPerUs);
}

TEST(TraceAnalysisHand, KernelBreakdownOverlapClasses) {
  Loaded l = Load(TinyTrace());
  const KernelBreakdown b = ComputeKernelBreakdown(l.rank, l.merged);
  EXPECT_EQ(b.class_ps[1], 50 * kPsPerUs);  // computation alone: [20,40], [70,80], [110,130]
  EXPECT_EQ(b.class_ps[3], 20 * kPsPerUs);  // with communication: [40,50], [60,70]
  EXPECT_EQ(b.class_ps[2], 10 * kPsPerUs);  // communication alone: [50,60]
  EXPECT_EQ(b.class_ps[4], 1 * kPsPerUs);   // memory
  EXPECT_EQ(OverlapClassName(3), "COMPUTATION overlapping COMMUNICATION");
  EXPECT_EQ(OverlapClassName(7), "COMPUTATION overlapping COMMUNICATION overlapping MEMORY");
  const auto& comp = b.kernels[static_cast<int>(KernelType::kComputation)];
  ASSERT_EQ(comp.size(), 1u);
  EXPECT_EQ(comp[0].count, 3);
  EXPECT_EQ(comp[0].sum_ps, 70 * kPsPerUs);
  EXPECT_EQ(comp[0].max_ps, 30 * kPsPerUs);
  EXPECT_EQ(comp[0].min_ps, 20 * kPsPerUs);
  EXPECT_NEAR(comp[0].mean_us, 70.0 / 3, 1e-9);
  EXPECT_NEAR(comp[0].stddev_us, std::sqrt(100.0 / 3), 1e-9);  // deviations 20/3, -10/3, -10/3; n-1 = 2
}

TEST(TraceAnalysisHand, CommCompOverlap) {
  Loaded l = Load(TinyTrace());
  const CommCompOverlapRow o = CommCompOverlap(l.rank, l.merged);
  EXPECT_EQ(o.communication_ps, 30 * kPsPerUs);
  EXPECT_EQ(o.overlap_ps, 20 * kPsPerUs);
}

TEST(TraceAnalysisHand, IdleTimeBreakdown) {
  Loaded l = Load(TinyTrace());
  const std::vector<IdleStreamRow> rows = IdleTimeBreakdown(l.rank);
  ASSERT_EQ(rows.size(), 2u);
  // [60,80] was launched at 12, before [20,50] ended, and its gap is 10 < 30: kernel wait.
  EXPECT_EQ(rows[0].idle_ps[static_cast<int>(IdleCategory::kKernelWait)], 10 * kPsPerUs);
  // [110,130] was launched at 100, after 80: the host made the GPU wait 30.
  EXPECT_EQ(rows[0].idle_ps[static_cast<int>(IdleCategory::kHostWait)], 30 * kPsPerUs);
  // The copy was enqueued at 106 (before 130) and waited 40 ≥ 30: other.
  EXPECT_EQ(rows[0].idle_ps[static_cast<int>(IdleCategory::kOther)], 40 * kPsPerUs);
  for (int64_t v : rows[1].idle_ps) EXPECT_EQ(v, 0);  // one op: no gap
}

TEST(TraceAnalysisHand, QueueLength) {
  Loaded l = Load(TinyTrace());
  const std::vector<QueueStreamRow> rows = QueueLength(l.rank, 2);
  ASSERT_EQ(rows.size(), 2u);
  // Stream 7's changes: +0 +12 -20 -60 +100 +106 -110 -170 → 1 2 1 0 1 2 1 0.
  const QueueStreamRow& s = rows[0];
  EXPECT_EQ(s.count, 8);
  EXPECT_DOUBLE_EQ(s.mean, 1.0);
  EXPECT_NEAR(s.std, std::sqrt(4.0 / 7), 1e-12);
  EXPECT_DOUBLE_EQ(s.min, 0);
  EXPECT_DOUBLE_EQ(s.p25, 0.75);  // sorted 0 0 1 1 1 1 2 2 at 1.75
  EXPECT_DOUBLE_EQ(s.p50, 1);
  EXPECT_DOUBLE_EQ(s.p75, 1.25);  // at 5.25
  EXPECT_DOUBLE_EQ(s.max, 2);
  EXPECT_EQ(s.blocked_ps, 12 * kPsPerUs);  // at 2 over [12,20] and [106,110]
  EXPECT_EQ(s.series.size(), 8u);
  const QueueStreamRow& n = rows[1];  // 1 then 0
  EXPECT_EQ(n.count, 2);
  EXPECT_DOUBLE_EQ(n.p25, 0.25);
  EXPECT_NEAR(n.std, std::sqrt(0.5), 1e-12);
  EXPECT_EQ(n.blocked_ps, 0);
}

TEST(TraceAnalysisHand, KernelLaunch) {
  Loaded l = Load(TinyTrace());
  const KernelLaunchSummary s = KernelLaunchStats(l.rank);
  ASSERT_EQ(s.launches.size(), 5u);
  // By launch begin: delays 20-10, 60-14, 40-16, 110-105, 170-108.
  EXPECT_EQ(s.launches[0].delay_ps, 10 * kPsPerUs);
  EXPECT_EQ(s.launches[1].delay_ps, 46 * kPsPerUs);
  EXPECT_EQ(s.launches[2].delay_ps, 24 * kPsPerUs);
  EXPECT_EQ(s.launches[3].delay_ps, 5 * kPsPerUs);
  EXPECT_EQ(s.launches[4].delay_ps, 62 * kPsPerUs);
  EXPECT_EQ(s.launches[4].cpu_ps, 2 * kPsPerUs);
  EXPECT_EQ(s.launches[4].gpu_ps, 1 * kPsPerUs);
  EXPECT_EQ(s.short_kernels, 1);  // the copy: 1 µs on the GPU after a 2 µs call
  EXPECT_EQ(s.runtime_outliers, 0);
  EXPECT_EQ(s.launch_delay_outliers, 0);
  EXPECT_NEAR(s.mean_delay_us, 147.0 / 5, 1e-9);
  EXPECT_NEAR(s.p50_delay_us, 24, 1e-9);
  EXPECT_NEAR(s.p95_delay_us, 46 + 0.8 * 16, 1e-9);  // sorted 5 10 24 46 62 at 3.8
  EXPECT_EQ(s.delay_bins[4], 1);  // [10,20): 10
  EXPECT_EQ(s.delay_bins[3], 1);  // [5,10): 5
  EXPECT_EQ(s.delay_bins[5], 2);  // [20,50): 24, 46
  EXPECT_EQ(s.delay_bins[6], 1);  // [50,100): 62
}

TEST(TraceAnalysisHand, LaunchOutliers) {
  TraceWriter w;
  w.Launch(0, 60 * kUs, 210 * kUs, 10 * kUs, "gemm", 1, 1);  // a 60 µs call, then 150 µs until the kernel
  Loaded l = Load(w.Json());
  const KernelLaunchSummary s = KernelLaunchStats(l.rank);
  EXPECT_EQ(s.runtime_outliers, 1);
  EXPECT_EQ(s.launch_delay_outliers, 1);
  EXPECT_EQ(s.short_kernels, 0);  // the call is over the 50 µs cutoff
  EXPECT_EQ(s.delay_bins[7], 1);  // [100,200)
}

TEST(TraceAnalysisHand, NoCommunicationIsUnknownOverlap) {
  TraceWriter w;
  w.Launch(0, 1 * kUs, 5 * kUs, 10 * kUs, "gemm", 1, 1);
  Loaded l = Load(w.Json());
  std::string out;
  AppendCommCompOverlapJson(out, {CommCompOverlap(l.rank, l.merged)});
  EXPECT_NE(out.find("\"comp_comm_overlap_pctg\":null"), std::string::npos) << out;
}

// 1500 launches, each 5 µs before its 1 µs kernel: 3000 changes (1, 0, 1, 0, …)
// kept as 1500 points, each the larger of its two.
TEST(TraceAnalysisHand, QueueSeriesIsDownsampled) {
  TraceWriter w;
  for (int i = 0; i < 1500; ++i) w.Launch(i * 10 * kUs, 1 * kUs, (i * 10 + 5) * kUs, 1 * kUs, "k", i + 1, i + 1);
  Loaded l = Load(w.Json());
  const std::vector<QueueStreamRow> rows = QueueLength(l.rank);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].count, 3000);
  ASSERT_EQ(rows[0].series.size(), 1500u);
  for (const auto& [ts, length] : rows[0].series) EXPECT_EQ(length, 1);
  EXPECT_EQ(rows[0].series[1].first, 10 * kPsPerUs);
}

// Twelve kernel names of 1..12 µs: the top 10 listed, the 1 and 2 µs ones as "others".
TEST(TraceAnalysisHand, KernelsPastTheTopAreOthers) {
  TraceWriter w;
  for (int i = 1; i <= 12; ++i) {
    w.Launch(i * 100 * kUs, 1 * kUs, (i * 100 + 10) * kUs, i * kUs, "k" + std::to_string(i), i, i);
  }
  Loaded l = Load(w.Json());
  const KernelBreakdown b = ComputeKernelBreakdown(l.rank, l.merged);
  std::string out;
  AppendKernelBreakdownJson(out, {b}, 10);
  EXPECT_NE(out.find("\"name\":\"k12\",\"sum_us\":12"), std::string::npos) << out;
  EXPECT_EQ(out.find("\"name\":\"k2\""), std::string::npos) << out;
  // others: 1 and 2 µs, mean 1.5, sample std sqrt(0.5).
  const std::string others = "\"name\":\"others\",\"sum_us\":3,\"max_us\":2,\"min_us\":1,\"stddev_us\":";
  const size_t at = out.find(others);
  ASSERT_NE(at, std::string::npos) << out;
  EXPECT_NEAR(std::stod(out.substr(at + others.size())), std::sqrt(0.5), 1e-12);
  EXPECT_NE(out.find("\"mean_us\":1.5,\"count\":2}"), std::string::npos) << out;
}

TEST(TraceAnalysisHand, KernelTypesByName) {
  EXPECT_EQ(KernelTypeOfName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, ncclWork*)"),
            KernelType::kCommunication);
  EXPECT_EQ(KernelTypeOfName("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            KernelType::kCommunication);
  EXPECT_EQ(KernelTypeOfName("void at::native::ncclKernel_x()"), KernelType::kCommunication);
  EXPECT_EQ(KernelTypeOfName("Memcpy DtoH (Device -> Pinned)"), KernelType::kMemory);
  EXPECT_EQ(KernelTypeOfName("Memset (Device)"), KernelType::kMemory);
  EXPECT_EQ(KernelTypeOfName("MemcpyD2H"), KernelType::kMemory);  // xplane's CUPTI copies
  EXPECT_EQ(KernelTypeOfName("hipLaunchKernel"), KernelType::kComputation);  // not HTA's `^hip` communication
  EXPECT_EQ(KernelTypeOfName("sm90_xmma_gemm_bf16bf16_bf16f32"), KernelType::kComputation);
  EXPECT_TRUE(IsCollectiveHloOp("all-reduce.3"));
  EXPECT_TRUE(IsCollectiveHloOp("all-gather-start"));
  EXPECT_TRUE(IsCollectiveHloOp("reduce-scatter.1"));
  EXPECT_FALSE(IsCollectiveHloOp("fusion.12"));
  EXPECT_EQ(LaunchKindOfName("cudaLaunchKernelExC"), LaunchKind::kKernel);
  EXPECT_EQ(LaunchKindOfName("cudaMemsetAsync"), LaunchKind::kCopy);
  EXPECT_EQ(LaunchKindOfName("cuLaunchKernelEx"), LaunchKind::kDriver);
  EXPECT_EQ(LaunchKindOfName("cuMemcpyHtoDAsync_v2"), LaunchKind::kDriver);
  EXPECT_EQ(LaunchKindOfName("hipExtModuleLaunchKernel"), LaunchKind::kHip);
  EXPECT_EQ(LaunchKindOfName("cudaStreamSynchronize"), LaunchKind::kOther);
}

// On an XLA GPU profile a kernel of a collective HLO op is communication
// whatever its name; the same name elsewhere stays computation.
TEST(TraceAnalysisHand, XlaCollectiveKernelIsCommunication) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 1);
  XLineBuilder stream = gpu.AddLine(7, "Stream #7(Kernel)");
  stream.AddEvent("generic_collective_kernel", 0, 10 * kPsPerUs).Str("hlo_op", "all-reduce.1").Str("hlo_module", "m");
  stream.AddEvent("generic_collective_kernel", 20 * kPsPerUs, 10 * kPsPerUs).Str("hlo_op", "fusion.2");
  stream.AddEvent("fusion_kernel", 25 * kPsPerUs, 10 * kPsPerUs).Str("hlo_op", "fusion.3");
  std::string bytes;
  ASSERT_TRUE(space.SerializeToString(&bytes));
  auto model = ParseXSpace(bytes, "xla");
  ASSERT_TRUE(model.ok()) << model.status().message();
  const RankKernels r = ExtractRankKernels(**model, 0, "xla");
  ASSERT_EQ(r.streams.size(), 1u);
  ASSERT_EQ(r.streams[0].kernels.size(), 3u);
  EXPECT_EQ(r.names[r.streams[0].kernels[0].name].type, KernelType::kCommunication);
  EXPECT_EQ(r.names[r.streams[0].kernels[1].name].type, KernelType::kComputation);
  EXPECT_EQ(r.names[r.streams[0].kernels[2].name].type, KernelType::kComputation);
  const MergedKernels m = MergeKernelIntervals(r);
  EXPECT_EQ(CommCompOverlap(r, m).communication_ps, 10 * kPsPerUs);
  EXPECT_EQ(FrameworkOfModel(**model), "JAX");  // XLA ops, no TensorFlow op named
}

}  // namespace
}  // namespace tbprof::trace_analysis
