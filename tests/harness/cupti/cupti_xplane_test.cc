// XPlane conversion of recorded CUPTI-like activity; checked on the proto
// with libprotobuf's generated classes, expected values written by hand.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "harness/cupti/cupti_xplane.h"

namespace tbprof::gpu {
namespace {

using tensorflow::profiler::XEvent;
using tensorflow::profiler::XPlane;
using tensorflow::profiler::XSpace;
using tensorflow::profiler::XStat;

const XPlane* FindPlane(const XSpace& s, const std::string& name) {
  for (const XPlane& p : s.planes())
    if (p.name() == name) return &p;
  return nullptr;
}

std::string StatName(const XPlane& p, const XStat& s) {
  auto it = p.stat_metadata().find(static_cast<int64_t>(s.metadata_id()));
  return it == p.stat_metadata().end() ? "?" : it->second.name();
}

// Stat value as text: refs resolved through stat metadata, ints in decimal.
std::map<std::string, std::string> Stats(const XPlane& p,
                                         const google::protobuf::RepeatedPtrField<XStat>& stats) {
  std::map<std::string, std::string> out;
  for (const XStat& s : stats) {
    std::string v;
    switch (s.value_case()) {
      case XStat::kInt64Value: v = "i" + std::to_string(s.int64_value()); break;
      case XStat::kUint64Value: v = "u" + std::to_string(s.uint64_value()); break;
      case XStat::kDoubleValue: v = "d" + std::to_string(s.double_value()); break;
      case XStat::kStrValue: v = "s" + s.str_value(); break;
      case XStat::kRefValue: v = "r" + p.stat_metadata().at(static_cast<int64_t>(s.ref_value())).name(); break;
      default: v = "?";
    }
    out[StatName(p, s)] = v;
  }
  return out;
}

std::string EventName(const XPlane& p, const XEvent& e) { return p.event_metadata().at(e.metadata_id()).name(); }

GpuTrace SampleTrace() {
  GpuTrace t;
  t.start_walltime_ns = 1'700'000'000'000'000'000ull;
  t.start_gpu_ns = 5'000'000;
  DeviceInfo d;
  d.ordinal = 0;
  d.compute_cap_major = 9;
  d.compute_cap_minor = 0;
  d.core_count = 132;
  d.clock_rate_khz = 1'980'000;
  d.memory_size = 150'000'000'000ull;
  d.memory_bandwidth = 4'800'000'000'000ull;
  t.devices.push_back(d);

  KernelRecord k;
  k.name = "void tbprof_hmma_gemm<__half>(int, int, int)";
  k.start_ns = 5'001'000;
  k.end_ns = 5'003'500;
  k.stream_id = 7;
  k.context_id = 1;
  k.correlation_id = 42;
  k.grid[0] = 16, k.grid[1] = 8, k.grid[2] = 1;
  k.block[0] = 128, k.block[1] = 1, k.block[2] = 1;
  k.registers_per_thread = 96;
  k.static_shared = 16384;
  k.dynamic_shared = 0;
  k.occupancy_pct = 37.5;
  t.kernels.push_back(k);

  MemcpyRecord m;
  m.direction = CopyDirection::kHtoD;
  m.src_kind = MemoryKind::kPinned;
  m.dst_kind = MemoryKind::kDevice;
  m.bytes = 1 << 20;
  m.start_ns = 5'000'500;
  m.end_ns = 5'000'900;
  m.stream_id = 7;
  m.context_id = 1;
  m.correlation_id = 41;
  m.async = true;
  t.memcpys.push_back(m);

  MemcpyRecord back = m;
  back.direction = CopyDirection::kDtoH;
  back.src_kind = MemoryKind::kDevice;
  back.dst_kind = MemoryKind::kPageable;
  back.stream_id = 8;
  back.async = false;
  back.correlation_id = 43;
  back.start_ns = 5'004'000;
  back.end_ns = 5'004'300;
  t.memcpys.push_back(back);

  ApiCallRecord launch;
  launch.name = "cuLaunchKernel";
  launch.start_ns = 5'000'950;
  launch.end_ns = 5'000'990;
  launch.thread_id = 1234;
  launch.correlation_id = 42;
  launch.annotation = "model/dense/MatMul:MatMul";
  t.api_calls.push_back(launch);

  AnnotationRecord op;
  op.name = "model/dense/MatMul:MatMul";
  op.start_ns = 5'000'940;
  op.end_ns = 5'001'000;
  op.thread_id = 1234;
  t.annotations.push_back(op);
  return t;
}

TEST(GpuXPlane, KernelDetailsTextMatchesCuptiCollectorFormat) {
  KernelRecord k;
  k.registers_per_thread = 32;
  k.static_shared = 0;
  k.dynamic_shared = 4096;
  k.grid[0] = 10, k.grid[1] = 2, k.grid[2] = 1;
  k.block[0] = 256, k.block[1] = 1, k.block[2] = 1;
  k.occupancy_pct = 100;
  EXPECT_EQ(KernelDetailsText(k), "regs:32 static_shared:0 dynamic_shared:4096 grid:10,2,1 block:256,1,1 occ_pct:100");
  k.occupancy_pct = 200.0 / 3;  // six significant digits, like absl::StrCat
  EXPECT_EQ(KernelDetailsText(k), "regs:32 static_shared:0 dynamic_shared:4096 grid:10,2,1 block:256,1,1 occ_pct:66.6667");
}

TEST(GpuXPlane, MemcpyAndMemsetDetails) {
  MemcpyRecord m;
  m.src_kind = MemoryKind::kPageable;
  m.dst_kind = MemoryKind::kDevice;
  m.bytes = 8;
  m.destination_device = 0;
  m.async = false;
  EXPECT_EQ(MemcpyDetailsText(m), "kind_src:pageable kind_dst:device size:8 dest:0 async:0");
  MemsetRecord s;
  s.kind = MemoryKind::kDevice;
  s.bytes = 1024;
  s.async = true;
  EXPECT_EQ(MemsetDetailsText(s), "kind:device num_bytes:1024 async:1");
  EXPECT_EQ(MemoryKindName(static_cast<MemoryKind>(2)), "pinned");
  EXPECT_EQ(MemoryKindName(static_cast<MemoryKind>(99)), "unknown");
}

TEST(GpuXPlane, StreamLineNames) {
  EXPECT_EQ(StreamLineName(7, kStreamCompute), "Stream #7(Compute)");
  EXPECT_EQ(StreamLineName(7, kStreamMemcpyH2D | kStreamCompute | kStreamMemset), "Stream #7(Compute,MemcpyH2D,Memset)");
  EXPECT_EQ(StreamLineName(3, 0), "Stream #3");
}

TEST(GpuXPlane, DevicePlaneLinesEventsAndStats) {
  XSpace space;
  AddGpuTraceToXSpace(SampleTrace(), space);
  ASSERT_EQ(space.planes_size(), 2);
  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->id(), 0);

  auto caps = Stats(*gpu, gpu->stats());
  EXPECT_EQ(caps["compute_cap_major"], "i9");
  EXPECT_EQ(caps["compute_cap_minor"], "i0");
  EXPECT_EQ(caps["core_count"], "i132");
  EXPECT_EQ(caps["clock_rate"], "i1980000");
  EXPECT_EQ(caps["memory_size"], "u150000000000");
  EXPECT_EQ(caps["memory_bandwidth"], "u4800000000000");
  EXPECT_EQ(caps["device_vendor"], "sNvidia");

  ASSERT_EQ(gpu->lines_size(), 2);
  const auto& s7 = gpu->lines(0);
  EXPECT_EQ(s7.id(), 7);
  EXPECT_EQ(s7.name(), "Stream #7(Compute,MemcpyH2D)");
  EXPECT_EQ(s7.timestamp_ns(), 1'700'000'000'000'000'000);
  ASSERT_EQ(s7.events_size(), 2);
  // The copy started first, so it comes first.
  const XEvent& copy = s7.events(0);
  EXPECT_EQ(EventName(*gpu, copy), "MemcpyH2D");
  EXPECT_EQ(copy.offset_ps(), 500'000);
  EXPECT_EQ(copy.duration_ps(), 400'000);
  auto cs = Stats(*gpu, copy.stats());
  EXPECT_EQ(cs["memcpy_details"], "rkind_src:pinned kind_dst:device size:1048576 dest:0 async:1");
  EXPECT_EQ(cs["correlation_id"], "u41");
  EXPECT_EQ(cs.count("tf_op"), 0u);  // no launch recorded for it

  const XEvent& kernel = s7.events(1);
  EXPECT_EQ(EventName(*gpu, kernel), "void tbprof_hmma_gemm<__half>(int, int, int)");
  EXPECT_EQ(kernel.offset_ps(), 1'000'000);
  EXPECT_EQ(kernel.duration_ps(), 2'500'000);
  auto ks = Stats(*gpu, kernel.stats());
  EXPECT_EQ(ks["kernel_details"], "rregs:96 static_shared:16384 dynamic_shared:0 grid:16,8,1 block:128,1,1 occ_pct:37.5");
  EXPECT_EQ(ks["correlation_id"], "u42");
  EXPECT_EQ(ks["context_id"], "r$$1");
  EXPECT_EQ(ks["tf_op"], "rmodel/dense/MatMul:MatMul");
  EXPECT_EQ(ks["theoretical_occupancy_pct"], "d37.500000");

  const auto& s8 = gpu->lines(1);
  EXPECT_EQ(s8.name(), "Stream #8(MemcpyD2H)");
  ASSERT_EQ(s8.events_size(), 1);
  EXPECT_EQ(Stats(*gpu, s8.events(0).stats())["memcpy_details"],
            "rkind_src:device kind_dst:pageable size:1048576 dest:0 async:0");
}

TEST(GpuXPlane, HostPlaneHasLaunchWithCorrelationAndOpScope) {
  XSpace space;
  AddGpuTraceToXSpace(SampleTrace(), space);
  const XPlane* host = FindPlane(space, "/host:CPU");
  ASSERT_NE(host, nullptr);
  ASSERT_EQ(host->lines_size(), 1);
  const auto& line = host->lines(0);
  EXPECT_EQ(line.id(), 1234);
  EXPECT_EQ(line.name(), "Host Threads/1234");
  ASSERT_EQ(line.events_size(), 2);
  EXPECT_EQ(EventName(*host, line.events(0)), "model/dense/MatMul:MatMul");
  EXPECT_EQ(line.events(0).offset_ps(), 940'000);
  EXPECT_EQ(line.events(0).duration_ps(), 60'000);
  EXPECT_EQ(EventName(*host, line.events(1)), "cuLaunchKernel");
  auto ls = Stats(*host, line.events(1).stats());
  EXPECT_EQ(ls["correlation_id"], "u42");
  EXPECT_EQ(ls["device_id"], "u0");
}

TEST(GpuXPlane, DeviceWithoutCapabilitiesAndSyncLine) {
  GpuTrace t;
  t.start_gpu_ns = 100;
  KernelRecord k;
  k.name = "k";
  k.device_id = 1;
  k.start_ns = 200;
  k.end_ns = 150;  // clock hiccup: never a negative duration
  t.kernels.push_back(k);
  SyncRecord s;
  s.type = "StreamSynchronize";
  s.start_ns = 300;
  s.end_ns = 310;
  s.stream_id = 3;
  t.syncs.push_back(s);
  XSpace space;
  AddGpuTraceToXSpace(t, space);
  const XPlane* gpu = FindPlane(space, "/device:GPU:1");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->id(), 1);
  EXPECT_EQ(gpu->stats_size(), 0);
  EXPECT_EQ(gpu->lines(0).events(0).duration_ps(), 0);
  const XPlane* host = FindPlane(space, "/host:CPU");
  ASSERT_NE(host, nullptr);
  ASSERT_EQ(host->lines_size(), 1);
  EXPECT_EQ(host->lines(0).id(), kSyncLineId);
  EXPECT_EQ(EventName(*host, host->lines(0).events(0)), "StreamSynchronize");
  EXPECT_EQ(host->lines(0).events(0).offset_ps(), 200'000);
  EXPECT_EQ(host->lines(0).events(0).duration_ps(), 10'000);
}

}  // namespace
}  // namespace tbprof::gpu
