// Memory profile on hand-built BFC allocator TraceMes. The expected peak,
// breakdown and sampling are worked out by hand in the comments.
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "convert/analysis/host_events/xspace_to_memory_profile.h"
#include "convert/kineto/kineto_reader.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/model_tools.h"
#include "convert/tools/tool_registry.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"
#include "tests/convert/analysis/host_events/golden_file.h"
#include "tests/convert/kineto/kineto_trace_writer.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

using tensorflow::profiler::XSpace;

struct Bfc {
  const char* allocator;
  int64_t stack, heap, available;
  double fragmentation;
  int64_t peak;
};
struct Chunk {
  int64_t requested, bytes;
  uint64_t addr;
  const char* op;  // nullptr: no tf_op / region / dtype / shape stats
  int64_t dtype;
  const char* shape;
  int64_t group;  // -1: no group_id stat
};

void AddMemoryEvent(XLineBuilder& line, bool alloc, int64_t offset_ps, const Bfc& s, const Chunk& c) {
  auto e = line.AddEvent(alloc ? "MemoryAllocation" : "MemoryDeallocation", offset_ps, 0);
  e.Str("allocator_name", s.allocator);
  e.Int("bytes_reserved", s.stack);
  e.Int("bytes_allocated", s.heap);
  e.Int("bytes_available", s.available);
  e.Double("fragmentation", s.fragmentation);
  e.Int("peak_bytes_in_use", s.peak);
  e.Int("requested_bytes", c.requested);
  e.Int("allocation_bytes", c.bytes);
  e.Uint("addr", c.addr);
  if (c.op != nullptr) {
    e.Str("tf_op", c.op);
    e.Str("region_type", "output");
    e.Int("data_type", c.dtype);
    e.Str("shape", c.shape);
  }
  if (c.group >= 0) e.Int("group_id", c.group);
}

std::unique_ptr<XSpaceModel> Load(const XSpace& space) {
  auto m = ParseXSpace(space.SerializeAsString(), "test");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

// GPU_0_bfc, memory limit 1000 bytes, 100 bytes of stack (bytes_reserved):
//  t=10 alloc   0x1000 256 (req 250) opA float [8,8]   step 1  heap 256
//  t=20 alloc   0x2000 512 (req 500) opB bfloat16      step 1  heap 768  in use 868
//  t=30 dealloc 0x1000 256                             step 1  heap 512
//  t=40 alloc   0x3000 128 opC int32 [32]              step 1  heap 640
//  t=50 alloc   0x4000 128 opC int32 [32]              step 1  heap 768  in use 868 again: the peak
//  t=60 dealloc 0x2000 512                             no step heap 256
//  t=70 alloc   0x5000 64 (req 60) opD                 no step heap 320
// Allocator "3" (allocator_name then index_on_host: the last wins):
//  t=5  alloc 0x10 1000 op big step 4, heap 5000 (4000 from before the window): the peak
//  t=15 dealloc 0x99 (never allocated) 2000, heap 3000
XSpace HandBuiltAllocations() {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder line = plane.AddLine(1, "tf_Compute", /*timestamp_ns=*/1000);
  AddMemoryEvent(line, true, 10, {"GPU_0_bfc", 100, 256, 644, 0.0, 256}, {250, 256, 0x1000, "opA", 1, "[8,8]", 1});
  AddMemoryEvent(line, true, 20, {"GPU_0_bfc", 100, 768, 132, 0.25, 768}, {500, 512, 0x2000, "opB", 14, "[16,16]", 1});
  AddMemoryEvent(line, false, 30, {"GPU_0_bfc", 100, 512, 388, 0.5, 768}, {256, 256, 0x1000, nullptr, 0, "", 1});
  AddMemoryEvent(line, true, 40, {"GPU_0_bfc", 100, 640, 260, 0.1, 768}, {128, 128, 0x3000, "opC", 3, "[32]", 1});
  AddMemoryEvent(line, true, 50, {"GPU_0_bfc", 100, 768, 132, 0.125, 768}, {128, 128, 0x4000, "opC", 3, "[32]", 1});
  AddMemoryEvent(line, false, 60, {"GPU_0_bfc", 100, 256, 644, 0.0, 768}, {512, 512, 0x2000, nullptr, 0, "", -1});
  AddMemoryEvent(line, true, 70, {"GPU_0_bfc", 100, 320, 580, 0.0, 768}, {60, 64, 0x5000, "opD", 1, "[4]", -1});
  XLineBuilder other = plane.AddLine(2, "tf_Compute2", 1000);
  {
    auto e = other.AddEvent("MemoryAllocation", 5, 0);
    e.Str("allocator_name", "cpu").Int("index_on_host", 3);
    e.Int("bytes_reserved", 0).Int("bytes_allocated", 5000).Int("bytes_available", 3000);
    e.Double("fragmentation", 0.0).Int("peak_bytes_in_use", 5000);
    e.Int("requested_bytes", 1000).Int("allocation_bytes", 1000).Int("addr", 0x10).Str("tf_op", "big");
    e.Int("group_id", 4);
  }
  {
    auto e = other.AddEvent("MemoryDeallocation", 15, 0);
    e.Str("allocator_name", "cpu").Int("index_on_host", 3);
    e.Int("bytes_reserved", 0).Int("bytes_allocated", 3000).Int("bytes_available", 5000);
    e.Double("fragmentation", 0.0).Int("peak_bytes_in_use", 5000);
    e.Int("requested_bytes", 2000).Int("allocation_bytes", 2000).Int("addr", 0x99);
  }
  // Not a memory event: ignored.
  other.AddEvent("ExecutorState::Process", 0, 100);
  return space;
}

TEST(MemoryProfile, PeakSummaryAndBreakdown) {
  XSpace space = HandBuiltAllocations();
  auto model = Load(space);
  auto profile = ComputeMemoryProfile(*model);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_EQ(profile->memory_ids, (std::vector<std::string>{"3", "GPU_0_bfc"}));
  EXPECT_EQ(profile->num_hosts, 1);
  EXPECT_EQ(profile->version, 1);
  const PerAllocatorMemoryProfile& gpu = profile->memory_profile_per_allocator.at("GPU_0_bfc");

  const MemoryProfileSummary& s = gpu.profile_summary;
  EXPECT_EQ(s.peak_bytes_usage_lifetime, 768);  // the last event's peak_bytes_in_use
  EXPECT_EQ(s.peak_stats.peak_bytes_in_use, 868);
  EXPECT_EQ(s.peak_stats_time_ps, 50);  // ties move the peak to the later event
  EXPECT_EQ(s.peak_stats.heap_allocated_bytes, 768);
  EXPECT_EQ(s.peak_stats.stack_reserved_bytes, 100);
  EXPECT_EQ(s.peak_stats.free_memory_bytes, 132);
  EXPECT_DOUBLE_EQ(s.peak_stats.fragmentation, 0.125);
  EXPECT_EQ(s.memory_capacity, 1000);
  // Counted from the event list above: allocations at t=10, 20, 40, 50, 70;
  // deallocations at t=30, 60.
  EXPECT_EQ(s.num_allocations, 5);
  EXPECT_EQ(s.num_deallocations, 2);

  // All 7 points fit in the timeline; steps filled in and deallocations named.
  ASSERT_EQ(gpu.sampled_timeline_snapshots.size(), 7u);
  const auto& t = gpu.sampled_timeline_snapshots;
  EXPECT_EQ(t[2].activity_metadata.memory_activity, MemoryActivity::kDeallocation);
  EXPECT_EQ(t[2].activity_metadata.tf_op_name, "opA");
  EXPECT_EQ(t[2].activity_metadata.data_type, "float");
  EXPECT_EQ(t[2].activity_metadata.tensor_shape, "[8,8]");
  EXPECT_EQ(t[5].activity_metadata.tf_op_name, "opB");
  EXPECT_EQ(t[5].activity_metadata.data_type, "bfloat16");
  EXPECT_EQ(t[5].activity_metadata.step_id, 2);  // previous valid step 1, + 1
  EXPECT_EQ(t[6].activity_metadata.step_id, 2);
  EXPECT_EQ(t[0].activity_metadata.address, 0x1000u);
  EXPECT_EQ(t[3].activity_metadata.data_type, "int32");

  // Live at the peak (step 1, t <= 50): 0x2000 (512) and 0x3000, 0x4000 (128 each,
  // identical, merged); heap 768 = 512 + 256 so nothing is unmapped; stack 100.
  ASSERT_EQ(gpu.active_allocations.size(), 3u);
  EXPECT_EQ(gpu.active_allocations[0].snapshot_index, 0);
  EXPECT_EQ(gpu.active_allocations[0].special_index, -1);
  EXPECT_EQ(gpu.active_allocations[0].num_occurrences, 1);
  EXPECT_EQ(gpu.active_allocations[1].snapshot_index, 1);
  EXPECT_EQ(gpu.active_allocations[1].num_occurrences, 2);
  EXPECT_EQ(gpu.active_allocations[2].snapshot_index, -1);
  EXPECT_EQ(gpu.active_allocations[2].special_index, 0);
  ASSERT_EQ(gpu.special_allocations.size(), 1u);
  EXPECT_EQ(gpu.special_allocations[0].tf_op_name, "stack");
  EXPECT_EQ(gpu.special_allocations[0].region_type, "stack");
  EXPECT_EQ(gpu.special_allocations[0].allocation_bytes, 100);
  EXPECT_EQ(gpu.special_allocations[0].step_id, 1);
  EXPECT_EQ(gpu.special_allocations[0].data_type, "INVALID");
  EXPECT_EQ(gpu.special_allocations[0].tensor_shape, "unknown");
  ASSERT_EQ(gpu.memory_profile_snapshots.size(), 2u);
  EXPECT_EQ(gpu.memory_profile_snapshots[0].activity_metadata.tf_op_name, "opB");
  EXPECT_EQ(gpu.memory_profile_snapshots[0].time_offset_ps, 20);
  EXPECT_EQ(gpu.memory_profile_snapshots[1].activity_metadata.tf_op_name, "opC");
  EXPECT_EQ(gpu.memory_profile_snapshots[1].time_offset_ps, 40);

  // Allocator "3": 4000 of the 5000 heap bytes at the peak were allocated
  // before the window -> "unused preallocated device memory"; no stack.
  const PerAllocatorMemoryProfile& cpu = profile->memory_profile_per_allocator.at("3");
  EXPECT_EQ(cpu.profile_summary.peak_stats_time_ps, 5);
  EXPECT_EQ(cpu.profile_summary.peak_stats.peak_bytes_in_use, 5000);
  EXPECT_EQ(cpu.profile_summary.memory_capacity, 8000);
  // One allocation (t=5) and one deallocation (t=15), though 0x99 was never allocated.
  EXPECT_EQ(cpu.profile_summary.num_allocations, 1);
  EXPECT_EQ(cpu.profile_summary.num_deallocations, 1);
  ASSERT_EQ(cpu.special_allocations.size(), 1u);
  EXPECT_EQ(cpu.special_allocations[0].tf_op_name, "unused preallocated device memory");
  EXPECT_EQ(cpu.special_allocations[0].region_type, "persist/dynamic");
  EXPECT_EQ(cpu.special_allocations[0].allocation_bytes, 4000);
  EXPECT_EQ(cpu.special_allocations[0].step_id, 4);
  ASSERT_EQ(cpu.active_allocations.size(), 2u);
  EXPECT_EQ(cpu.active_allocations[0].snapshot_index, -1);  // 4000 sorts before 1000
  EXPECT_EQ(cpu.active_allocations[1].snapshot_index, 0);
  EXPECT_EQ(cpu.sampled_timeline_snapshots[1].activity_metadata.step_id, 5);  // after step 4
}

TEST(MemoryProfile, JsonIsProtobufJson) {
  XSpace space = HandBuiltAllocations();
  auto model = Load(space);
  auto profile = ComputeMemoryProfile(*model);
  ASSERT_TRUE(profile.ok());
  std::string json = MemoryProfileToJson(*profile);
  boost::json::object v = boost::json::parse(json).as_object();
  EXPECT_EQ(v.at("numHosts").as_int64(), 1);
  EXPECT_EQ(v.at("version").as_int64(), 1);
  EXPECT_EQ(v.at("memoryIds").as_array().size(), 2u);
  const auto& gpu = v.at("memoryProfilePerAllocator").as_object().at("GPU_0_bfc").as_object();
  const auto& summary = gpu.at("profileSummary").as_object();
  EXPECT_EQ(summary.at("peakStatsTimePs").as_string(), "50");  // int64 as a string
  EXPECT_EQ(summary.at("memoryCapacity").as_string(), "1000");
  EXPECT_EQ(summary.at("numAllocations").as_string(), "5");
  EXPECT_EQ(summary.at("numDeallocations").as_string(), "2");
  EXPECT_EQ(summary.at("peakStats").as_object().at("fragmentation").as_double(), 0.125);
  const auto& first = gpu.at("sampledTimelineSnapshots").as_array()[0].as_object();
  EXPECT_EQ(first.at("activityMetadata").as_object().at("memoryActivity").as_string(), "ALLOCATION");
  EXPECT_EQ(first.at("activityMetadata").as_object().at("address").as_string(), "4096");
  EXPECT_EQ(first.at("aggregationStats").as_object().at("fragmentation").as_int64(), 0);  // printed as 0
  EXPECT_NE(json.find("\"fragmentation\":0.25,"), std::string::npos);
  EXPECT_EQ(gpu.at("activeAllocations").as_array()[2].as_object().at("specialIndex").as_string(), "0");
  testing_golden::ExpectMatchesGolden("memory/hand_built.json", json);
}

// Three events without group ids (all become step 0). By hand: in use 5000,
// 4744, then 7000 at t=70000 (the peak). At the peak 5000 heap bytes less
// the live 300 = 4700 are unmapped; 2000 of stack.
TEST(MemoryProfile, UngroupedEventsFallToStepZero) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder line = plane.AddLine(0, "tf_executor");
  AddMemoryEvent(line, true, 40000, {"GPU_0_bfc", 2000, 3000, 5000, 0.0, 8500},
                 {200, 256, 222333, "foo/bar", 1, "[3, 3, 512, 512]", -1});
  AddMemoryEvent(line, false, 50000, {"GPU_0_bfc", 2000, 2744, 5256, 0.0, 8500}, {200, 256, 222333, nullptr, 0, "", -1});
  AddMemoryEvent(line, true, 70000, {"GPU_0_bfc", 2000, 5000, 3000, 0.0, 9500},
                 {300, 300, 345678, "mul_grad/Sum", 9, "[1, 2]", -1});
  auto model = Load(space);
  auto profile = ComputeMemoryProfile(*model);
  ASSERT_TRUE(profile.ok());
  const PerAllocatorMemoryProfile& p = profile->memory_profile_per_allocator.at("GPU_0_bfc");
  EXPECT_EQ(p.profile_summary.peak_bytes_usage_lifetime, 9500);
  EXPECT_EQ(p.profile_summary.peak_stats.peak_bytes_in_use, 7000);
  EXPECT_EQ(p.profile_summary.peak_stats_time_ps, 70000);
  EXPECT_EQ(p.sampled_timeline_snapshots.size(), 3u);
  EXPECT_EQ(p.sampled_timeline_snapshots[1].activity_metadata.tf_op_name, "foo/bar");  // copied from its allocation
  ASSERT_EQ(p.memory_profile_snapshots.size(), 1u);
  EXPECT_EQ(p.memory_profile_snapshots[0].activity_metadata.tf_op_name, "mul_grad/Sum");
  EXPECT_EQ(p.memory_profile_snapshots[0].activity_metadata.data_type, "int64");
  ASSERT_EQ(p.active_allocations.size(), 3u);
  EXPECT_EQ(p.active_allocations[0].snapshot_index, -1);
  EXPECT_EQ(p.active_allocations[1].snapshot_index, -2);
  EXPECT_EQ(p.active_allocations[1].special_index, 1);
  EXPECT_EQ(p.active_allocations[2].snapshot_index, 0);
  ASSERT_EQ(p.special_allocations.size(), 2u);
  EXPECT_EQ(p.special_allocations[0].allocation_bytes, 4700);
  EXPECT_EQ(p.special_allocations[0].step_id, 0);
  EXPECT_EQ(p.special_allocations[1].tf_op_name, "stack");
  EXPECT_EQ(p.special_allocations[1].allocation_bytes, 2000);
}

// The peak breakdown both tests below expect: the memory from before the
// window as the one special row, `unmapped_bytes` of it, and one live chunk
// (the first snapshot) beside it.
void ExpectUnmappedRowAndOneLiveChunk(const PerAllocatorMemoryProfile& p, int64_t unmapped_bytes) {
  ASSERT_EQ(p.special_allocations.size(), 1u);
  EXPECT_EQ(p.special_allocations[0].tf_op_name, "unused preallocated device memory");
  EXPECT_EQ(p.special_allocations[0].allocation_bytes, unmapped_bytes);
  ASSERT_EQ(p.active_allocations.size(), 2u);
  EXPECT_EQ(p.active_allocations[0].snapshot_index, -1);
  EXPECT_EQ(p.active_allocations[1].snapshot_index, 0);
}

// An allocation's step is the step it was made in, though the allocator's
// TraceMe has no group_id of its own: the space is grouped first. Two "train"
// steps (roots) of 100 ps, allocator "bfc" without stack, by hand:
//  t=10  alloc   0xA 1000 stepA_op  (step group 0)  heap 1000
//  t=110 alloc   0xB  200 stepB_op  (step group 1)  heap 1200: the peak
//  t=150 dealloc 0xA 1000           (step group 1)  heap  200
// The peak's step is 1, whose only allocation up to t=110 is 0xB: the other
// 1000 heap bytes were allocated before the step, so they are the
// "unused preallocated device memory" row (persistent memory), first by size.
TEST(MemoryProfile, StepsComeFromTheGrouping) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder line = plane.AddLine(0, "main");
  line.AddEvent("train", 0, 100).Int("_r", 1).Int("step_num", 1);
  AddMemoryEvent(line, true, 10, {"bfc", 0, 1000, 9000, 0.0, 1000}, {1000, 1000, 0xA, "stepA_op", 1, "[250]", -1});
  line.AddEvent("train", 100, 100).Int("_r", 1).Int("step_num", 2);
  AddMemoryEvent(line, true, 110, {"bfc", 0, 1200, 8800, 0.0, 1200}, {200, 200, 0xB, "stepB_op", 1, "[50]", -1});
  AddMemoryEvent(line, false, 150, {"bfc", 0, 200, 9800, 0.0, 1200}, {1000, 1000, 0xA, nullptr, 0, "", -1});
  auto model = Load(space);
  auto profile = ComputeMemoryProfile(*model);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  const PerAllocatorMemoryProfile& p = profile->memory_profile_per_allocator.at("bfc");
  ASSERT_EQ(p.sampled_timeline_snapshots.size(), 3u);
  EXPECT_EQ(p.sampled_timeline_snapshots[0].activity_metadata.step_id, 0);
  EXPECT_EQ(p.sampled_timeline_snapshots[1].activity_metadata.step_id, 1);
  EXPECT_EQ(p.sampled_timeline_snapshots[2].activity_metadata.step_id, 1);
  EXPECT_EQ(p.sampled_timeline_snapshots[2].activity_metadata.tf_op_name, "stepA_op");
  EXPECT_EQ(p.profile_summary.peak_stats_time_ps, 110);
  ASSERT_NO_FATAL_FAILURE(ExpectUnmappedRowAndOneLiveChunk(p, 1000));
  EXPECT_EQ(p.special_allocations[0].step_id, 1);
  ASSERT_EQ(p.memory_profile_snapshots.size(), 1u);
  EXPECT_EQ(p.memory_profile_snapshots[0].activity_metadata.tf_op_name, "stepB_op");

  // The tool takes the same grouping (here computed, then kept by the caller).
  std::shared_ptr<const EventGroups> groups;
  auto again = ComputeMemoryProfile(*model, {}, &groups);
  ASSERT_TRUE(again.ok());
  ASSERT_NE(groups, nullptr);
  EXPECT_EQ(groups->group_names.size(), 2u);
  EXPECT_EQ(MemoryProfileToJson(*again), MemoryProfileToJson(*profile));
}

// The TPU runtime's deallocation TraceMes carry no requested or allocation
// bytes; the freed chunk's sizes are its allocation's. Allocator "0" (by
// index_on_host, as on TPU), 1000 heap bytes in use before the window, no
// step groups (all step 0), by hand:
//  t=10 alloc   0xA 500 opX  heap 1500
//  t=20 dealloc 0xA (no sizes) heap 1000
//  t=30 alloc   0xB 600 opY  heap 1600: the peak
//  t=40 dealloc 0xC (never allocated, no sizes) heap 1100
// Breakdown: 0xB live; unmapped = 1600 - 500 - 600 + 500 freed = 1000, the
// memory from before the window. With the free counted as 0 bytes it would be
// 500, and the rows (500 + 600) would not add up to the 1600 in use.
TEST(MemoryProfile, DeallocationWithoutSizesTakesItsAllocations) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder line = plane.AddLine(0, "tpu_runtime");
  auto event = [&](const char* name, int64_t at, int64_t heap, uint64_t addr) {
    auto e = line.AddEvent(name, at, 0);
    e.Int("bytes_reserved", 0).Int("bytes_allocated", heap).Int("bytes_available", 10000 - heap);
    e.Int("peak_bytes_in_use", 1600).Int("addr", static_cast<int64_t>(addr)).Int("index_on_host", 0);
    return e;
  };
  event("MemoryAllocation", 10, 1500, 0xA).Int("requested_bytes", 500).Int("allocation_bytes", 500).Str("tf_op", "opX");
  event("MemoryDeallocation", 20, 1000, 0xA);
  event("MemoryAllocation", 30, 1600, 0xB).Int("requested_bytes", 600).Int("allocation_bytes", 600).Str("tf_op", "opY");
  event("MemoryDeallocation", 40, 1100, 0xC);
  auto model = Load(space);
  auto profile = ComputeMemoryProfile(*model);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  const PerAllocatorMemoryProfile& p = profile->memory_profile_per_allocator.at("0");
  ASSERT_EQ(p.sampled_timeline_snapshots.size(), 4u);
  const MemoryActivityMetadata& freed = p.sampled_timeline_snapshots[1].activity_metadata;
  EXPECT_EQ(freed.memory_activity, MemoryActivity::kDeallocation);
  EXPECT_EQ(freed.allocation_bytes, 500);
  EXPECT_EQ(freed.requested_bytes, 500);
  EXPECT_EQ(freed.tf_op_name, "opX");
  ASSERT_NO_FATAL_FAILURE(ExpectUnmappedRowAndOneLiveChunk(p, 1000));
  ASSERT_EQ(p.memory_profile_snapshots.size(), 1u);
  EXPECT_EQ(p.memory_profile_snapshots[0].activity_metadata.tf_op_name, "opY");
  // A deallocation matching no allocation has no sizes to take: 0, as xprof prints them.
  EXPECT_EQ(p.sampled_timeline_snapshots[3].activity_metadata.allocation_bytes, 0);
  EXPECT_EQ(p.sampled_timeline_snapshots[3].activity_metadata.requested_bytes, 0);
}

// `count` allocations on one allocator with heap bytes given by `heap(i)`.
XSpace ManyAllocations(int count, int64_t (*heap)(int)) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder line = plane.AddLine(1, "t");
  for (int i = 0; i < count; ++i) {
    AddMemoryEvent(line, true, 1000 * i, {"bfc", 0, heap(i), 0, 0.0, 0},
                   {8, 8, static_cast<uint64_t>(0x100000 + 8 * i), "op", 1, "[2]", 1});
  }
  return space;
}

std::vector<int64_t> TimelineTimes(const XSpace& space, int64_t max_points) {
  auto model = Load(space);
  MemoryProfileOptions options;
  options.max_num_snapshots = max_points;
  auto profile = ComputeMemoryProfile(*model, options);
  EXPECT_TRUE(profile.ok());
  std::vector<int64_t> out;
  for (const auto& s : profile->memory_profile_per_allocator.at("bfc").sampled_timeline_snapshots) {
    out.push_back(s.time_offset_ps / 1000);
  }
  return out;
}

TEST(MemoryProfile, TimelineSamplingSmall) {
  // 10 points into 4: width 2, 4*3-10 = 2 boxes of 2 ([0,1] [2,3]) then 2 boxes of 3 ([4..6] [7..9]).
  XSpace rising = ManyAllocations(10, [](int i) { return int64_t{10} * i; });
  EXPECT_EQ(TimelineTimes(rising, 4), (std::vector<int64_t>{1, 3, 6, 9}));  // the box maximum
  XSpace flat = ManyAllocations(10, [](int) { return int64_t{5}; });
  EXPECT_EQ(TimelineTimes(flat, 4), (std::vector<int64_t>{0, 2, 4, 7}));  // first of equals
  // A bump inside a box wins that box.
  XSpace bump = ManyAllocations(10, [](int i) { return int64_t{i == 5 ? 100 : 1}; });
  EXPECT_EQ(TimelineTimes(bump, 4), (std::vector<int64_t>{0, 2, 5, 7}));
}

TEST(MemoryProfile, TimelineSamplingAtMostThousand) {
  // 2500 into 1000: width 2; 500 boxes of 2 cover 0..999, 500 boxes of 3 cover 1000..2499.
  XSpace rising = ManyAllocations(2500, [](int i) { return int64_t{8} * i; });
  std::vector<int64_t> times = TimelineTimes(rising, 1000);
  ASSERT_EQ(times.size(), 1000u);
  for (int k = 0; k < 500; ++k) ASSERT_EQ(times[k], 2 * k + 1) << k;
  for (int k = 0; k < 500; ++k) ASSERT_EQ(times[500 + k], 1000 + 3 * k + 2) << k;
  // Exactly 1000: copied; 1001: 999 single boxes then one box of 2.
  XSpace thousand = ManyAllocations(1000, [](int i) { return int64_t{i}; });
  EXPECT_EQ(TimelineTimes(thousand, 1000).size(), 1000u);
  XSpace one_more = ManyAllocations(1001, [](int i) { return int64_t{i}; });
  std::vector<int64_t> t2 = TimelineTimes(one_more, 1000);
  ASSERT_EQ(t2.size(), 1000u);
  EXPECT_EQ(t2[998], 998);
  EXPECT_EQ(t2[999], 1000);
}

// The counts cover every event of the window, not the ≤1000 timeline points
// (xprof's page counts the points it was sent, so it undercounts here).
TEST(MemoryProfile, CountsCoverEveryEventNotTheSample) {
  XSpace rising = ManyAllocations(2500, [](int i) { return int64_t{8} * i; });
  auto model = Load(rising);
  auto profile = ComputeMemoryProfile(*model);
  ASSERT_TRUE(profile.ok());
  const PerAllocatorMemoryProfile& p = profile->memory_profile_per_allocator.at("bfc");
  EXPECT_EQ(p.sampled_timeline_snapshots.size(), 1000u);
  EXPECT_EQ(p.profile_summary.num_allocations, 2500);
  EXPECT_EQ(p.profile_summary.num_deallocations, 0);
}

// Two threads of one allocator: snapshots are put in time order, and the
// peak is the last event reaching it in encounter (line) order.
TEST(MemoryProfile, SnapshotsFromSeveralLinesAreTimeOrdered) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder a = plane.AddLine(1, "a");
  XLineBuilder b = plane.AddLine(2, "b");
  AddMemoryEvent(a, true, 30, {"bfc", 0, 300, 0, 0.0, 300}, {100, 100, 0x30, "late", 1, "[1]", 2});
  AddMemoryEvent(b, true, 10, {"bfc", 0, 100, 0, 0.0, 100}, {100, 100, 0x10, "early", 1, "[1]", 2});
  AddMemoryEvent(b, true, 20, {"bfc", 0, 200, 0, 0.0, 200}, {100, 100, 0x20, "middle", 1, "[1]", 2});
  auto model = Load(space);
  auto profile = ComputeMemoryProfile(*model);
  ASSERT_TRUE(profile.ok());
  const PerAllocatorMemoryProfile& p = profile->memory_profile_per_allocator.at("bfc");
  ASSERT_EQ(p.sampled_timeline_snapshots.size(), 3u);
  EXPECT_EQ(p.sampled_timeline_snapshots[0].activity_metadata.tf_op_name, "early");
  EXPECT_EQ(p.sampled_timeline_snapshots[2].activity_metadata.tf_op_name, "late");
  // Line a is read first: 300 becomes the peak; line b's 100 and 200 are below it.
  EXPECT_EQ(p.profile_summary.peak_stats_time_ps, 30);
  EXPECT_EQ(p.profile_summary.peak_bytes_usage_lifetime, 200);  // last event read (line b)
  // All three allocations of step 2 are live at t=30; heap 300 is fully mapped.
  ASSERT_EQ(p.active_allocations.size(), 3u);
  EXPECT_TRUE(p.special_allocations.empty());
  // Equal sizes: ordered by op name.
  EXPECT_EQ(p.memory_profile_snapshots[0].activity_metadata.tf_op_name, "early");
  EXPECT_EQ(p.memory_profile_snapshots[1].activity_metadata.tf_op_name, "late");
  EXPECT_EQ(p.memory_profile_snapshots[2].activity_metadata.tf_op_name, "middle");
}

// TPU "XLA Modules" lines become hloModules (ids run across planes); other
// planes and lines are ignored.
TEST(MemoryProfile, TpuModuleRuns) {
  XSpace space = HandBuiltAllocations();
  {
    XPlaneBuilder tpu0 = AddPlane(space, "/device:TPU:0", 1);
    XLineBuilder modules = tpu0.AddLine(1, "XLA Modules", /*timestamp_ns=*/2);
    modules.AddEvent("jit_step(1)", 100, 50);
    modules.AddEvent("jit_step(2)", 300, 25);
    tpu0.AddLine(2, "XLA Ops", 2).AddEvent("fusion.1", 100, 10);
    XPlaneBuilder tpu1 = AddPlane(space, "/device:TPU:1", 2);
    tpu1.AddLine(1, "XLA Modules", 0).AddEvent("jit_init", 7, 3);
    XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 3);
    gpu.AddLine(1, "XLA Modules", 0).AddEvent("not_tpu", 0, 1);
  }
  auto model = Load(space);
  auto profile = ComputeMemoryProfile(*model);
  ASSERT_TRUE(profile.ok());
  ASSERT_EQ(profile->hlo_modules.size(), 3u);
  EXPECT_EQ(profile->hlo_modules[0].name, "jit_step(1)");
  EXPECT_EQ(profile->hlo_modules[0].start_time_ps, 100);  // offsets, not absolute times
  EXPECT_EQ(profile->hlo_modules[0].end_time_ps, 150);
  EXPECT_EQ(profile->hlo_modules[0].plane_name, "TPU:0");
  EXPECT_EQ(profile->hlo_modules[2].id, 2);
  EXPECT_EQ(profile->hlo_modules[2].plane_name, "TPU:1");
  std::string json = MemoryProfileToJson(*profile);
  EXPECT_NE(json.find("\"hloModules\":[{\"name\":\"jit_step(1)\",\"startTimePs\":\"100\",\"endTimePs\":\"150\","
                      "\"id\":\"0\",\"planeName\":\"TPU:0\"},"),
            std::string::npos)
      << json;
}

TEST(MemoryProfile, DataTypeNames) {
  EXPECT_EQ(TensorflowDataTypeString(0), "INVALID");
  EXPECT_EQ(TensorflowDataTypeString(1), "float");
  EXPECT_EQ(TensorflowDataTypeString(9), "int64");
  EXPECT_EQ(TensorflowDataTypeString(14), "bfloat16");
  EXPECT_EQ(TensorflowDataTypeString(19), "half");
  EXPECT_EQ(TensorflowDataTypeString(23), "uint64");
  EXPECT_EQ(TensorflowDataTypeString(101), "float_ref");
  EXPECT_EQ(TensorflowDataTypeString(77), "unknown dtype enum (77)");
  EXPECT_EQ(TensorflowDataTypeString(100), "unknown dtype enum (100)");  // 100 itself is no reference type
  EXPECT_EQ(TensorflowDataTypeString(130), "uint4_ref");
  EXPECT_EQ(TensorflowDataTypeString(131), "unknown dtype enum (31)_ref");  // int2 (31) is not in the list
  EXPECT_EQ(TensorflowDataTypeString(-1), "unknown dtype enum (-1)");
}

TEST(MemoryProfile, NoHostPlaneGivesEmptyProfile) {
  XSpace space;
  AddPlane(space, "/device:GPU:0");
  auto model = Load(space);
  auto profile = ComputeMemoryProfile(*model);
  ASSERT_TRUE(profile.ok());
  EXPECT_TRUE(profile->memory_ids.empty());
  EXPECT_EQ(MemoryProfileToJson(*profile),
            "{\"memoryProfilePerAllocator\":{},\"numHosts\":1,\"memoryIds\":[],\"version\":1,\"hloModules\":[]}");
}

// What libprotobuf's own XSpace decoder sees per allocator: the number of
// memory events and the largest stack + heap (independent of the model).
struct RealAllocator {
  size_t events = 0;
  int64_t allocations = 0, deallocations = 0;
  int64_t max_in_use = 0;
};
// Allocators by memory id, plus (key "") the number of TPU "XLA Modules" events.
std::map<std::string, RealAllocator> DecodeWithLibprotobuf(const std::string& path, size_t* tpu_module_runs) {
  const XSpace space = test_files::ParseWithLibprotobuf(path);
  std::map<std::string, RealAllocator> out;
  *tpu_module_runs = 0;
  for (const auto& plane : space.planes()) {
    if (plane.name().rfind("/device:TPU:", 0) == 0) {
      for (const auto& line : plane.lines()) {
        if (line.name() == "XLA Modules") *tpu_module_runs += line.events_size();
      }
    }
    if (plane.name() != "/host:CPU") continue;
    for (const auto& line : plane.lines()) {
      for (const auto& event : line.events()) {
        auto md = plane.event_metadata().find(event.metadata_id());
        if (md == plane.event_metadata().end()) continue;
        if (md->second.name() != "MemoryAllocation" && md->second.name() != "MemoryDeallocation") continue;
        std::string id;
        int64_t stack = 0, heap = 0;
        for (const auto& stat : event.stats()) {
          auto sm = plane.stat_metadata().find(stat.metadata_id());
          if (sm == plane.stat_metadata().end()) continue;
          const std::string& name = sm->second.name();
          int64_t value = stat.has_uint64_value() ? static_cast<int64_t>(stat.uint64_value()) : stat.int64_value();
          if (name == "allocator_name") {
            id = stat.has_ref_value() ? plane.stat_metadata().at(stat.ref_value()).name() : stat.str_value();
          } else if (name == "index_on_host" || name == "device_ordinal") {
            id = std::to_string(value);
          } else if (name == "bytes_reserved") {
            stack = value;
          } else if (name == "bytes_allocated") {
            heap = value;
          }
        }
        RealAllocator& a = out[id];
        ++a.events;
        ++(md->second.name() == "MemoryAllocation" ? a.allocations : a.deallocations);
        a.max_in_use = std::max(a.max_in_use, stack + heap);
      }
    }
  }
  return out;
}

TEST(MemoryProfileTool, RegisteredAndRunsOnRealProfiles) {
  const ToolSpec* tool = FindProfileTool("memory_profile");
  ASSERT_NE(tool, nullptr);
  EXPECT_FALSE(tool->all_hosts);
  EXPECT_FALSE(tool->run(ToolInput{}).ok());
  ToolInput two;
  two.profile_paths = {"a.xplane.pb", "b.xplane.pb"};
  auto refused = tool->run(two);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "Memory profile tool expects only 1 XSpace path but gets 2");
  int checked = test_files::CheckToolOnRealProfiles(*tool, [](const std::string& path, const ToolOutput& out) {
    boost::json::object v = boost::json::parse(out.body).as_object();
    EXPECT_EQ(v.at("version").as_int64(), 1) << path;
    EXPECT_EQ(v.at("numHosts").as_int64(), 1) << path;
    EXPECT_EQ(v.at("memoryIds").as_array().size(), v.at("memoryProfilePerAllocator").as_object().size()) << path;
    size_t tpu_module_runs = 0;
    std::map<std::string, RealAllocator> expected = DecodeWithLibprotobuf(path, &tpu_module_runs);
    EXPECT_EQ(v.at("hloModules").as_array().size(), tpu_module_runs) << path;
    ASSERT_EQ(v.at("memoryIds").as_array().size(), expected.size()) << path;
    for (const auto& [id, allocator] : expected) {
      const auto& p = v.at("memoryProfilePerAllocator").as_object().at(id).as_object();
      EXPECT_EQ(p.at("sampledTimelineSnapshots").as_array().size(), std::min<size_t>(allocator.events, 1000))
          << path << " " << id;
      EXPECT_EQ(p.at("profileSummary").as_object().at("peakStats").as_object().at("peakBytesInUse").as_string(),
                std::to_string(allocator.max_in_use))
          << path << " " << id;
      EXPECT_FALSE(p.at("activeAllocations").as_array().empty()) << path << " " << id;
      const auto& summary = p.at("profileSummary").as_object();
      EXPECT_EQ(summary.at("numAllocations").as_string(), std::to_string(allocator.allocations)) << path << " " << id;
      EXPECT_EQ(summary.at("numDeallocations").as_string(), std::to_string(allocator.deallocations))
          << path << " " << id;
    }
    testing_golden::ExpectMatchesGolden(
        "memory/real_" + std::filesystem::path(path).parent_path().filename().string() + ".json", out.body);
  });
  EXPECT_GE(checked, 4);
}

// A PyTorch 1.8 trace's [memory] records carry `Bytes` but no `Total
// Allocated`: the curve is the allocations less the frees, raised by its
// lowest point. +100, +200, -100 (of memory from before: the running sum
// dips to 200), +50, -400: sums 100, 300, 200, 250, -150 → raised by 150:
// 250, 450, 350, 400, 0; peak 450; capacity unknown (it read peak 0 B).
TEST(MemoryProfile, PyTorchSizesWithoutTotalsGiveTheCurve) {
  testing_kineto::TraceWriter w;
  w.Host("cpu_op", "aten::empty", 0, 100'000);
  const int64_t bytes[] = {100, 200, -100, 50, -400};
  for (int i = 0; i < 5; ++i) {
    w.Instant("[memory]", 10'000 * (i + 1),
              "\"Addr\": " + std::to_string(4096 * (i + 1)) + ", \"Bytes\": " + std::to_string(bytes[i]) +
                  ", \"Device Type\": 1, \"Device Id\": 0");
  }
  auto model = ParseKinetoTrace(w.Json(), "memory_sizes");
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto profile = ComputeMemoryProfile(**model);
  ASSERT_TRUE(profile.ok());
  ASSERT_EQ(profile->memory_profile_per_allocator.size(), 1u);
  const PerAllocatorMemoryProfile& p = profile->memory_profile_per_allocator.begin()->second;
  std::vector<int64_t> curve;
  // The timeline (memory_profile_snapshots keeps only the allocations live at the peak).
  for (const MemoryProfileSnapshot& s : p.sampled_timeline_snapshots) curve.push_back(s.aggregation_stats.heap_allocated_bytes);
  EXPECT_EQ(curve, (std::vector<int64_t>{250, 450, 350, 400, 0}));
  EXPECT_EQ(p.profile_summary.peak_stats.peak_bytes_in_use, 450);
  EXPECT_TRUE(p.profile_summary.in_use_from_allocation_sizes);
  const std::string json = MemoryProfileToJson(*profile);
  EXPECT_EQ(json.find("memoryCapacity"), std::string::npos);
  EXPECT_NE(json.find("\"inUseFromAllocationSizes\":true"), std::string::npos);
}

}  // namespace
}  // namespace tbprof
