// xprof's memory_profile test (openxla/xprof), rebuilt with our XSpace
// builder; the expected values are those xprof's test asserts, read in our
// MemoryProfile.
//
// Ported scenarios (file :: test — status — result):
// xprof/convert/xplane_to_memory_profile_test.cc
//   OneAllocatorMultiActivitiesTest  ported  pass (1 allocator GPU_0_bfc; peak 7000 B at 70000 ps,
//                                    lifetime peak 9500 B; 3 timeline points, 1 snapshot at the peak;
//                                    3 breakdown rows, the last the snapshot; "stack" 2000 B)
// The test's events carry the BFC allocator's stats under their TSL names
// (the step stat `id` is ignored by the profile, which takes an event's step
// group). xprof's test groups the space first; ComputeMemoryProfile groups it
// itself, and with no step root here every event falls to step 0.
#include <gtest/gtest.h>

#include <memory>

#include "convert/analysis/host_events/xspace_to_memory_profile.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"

namespace tbprof {
namespace {

using tensorflow::profiler::XSpace;

// One BFC allocator TraceMe of the scenario; `op` empty: no tf_op stat.
struct BfcEvent {
  const char* name;
  int64_t offset_ps;
  int64_t reserved, allocated, available, peak, requested, bytes, addr, step, dtype;
  const char* op;
  const char* region;
  const char* shape;
};

XSpace OneAllocatorSpace() {
  const BfcEvent events[] = {
      {"MemoryAllocation", 40000, 2000, 3000, 5000, 8500, 200, 256, 222333, -93746, 1, "foo/bar", "output",
       "[3, 3, 512, 512]"},
      {"MemoryDeallocation", 50000, 2000, 2744, 5256, 8500, 200, 256, 222333, 0, 0, "", "", ""},
      {"MemoryAllocation", 70000, 2000, 5000, 3000, 9500, 300, 300, 345678, -93746, 9, "mul_grad/Sum", "temp",
       "[1, 2]"},
  };
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU");
  XLineBuilder thread = host.AddLine(0, "tf_executor");
  for (const BfcEvent& ev : events) {
    XEventBuilder e = thread.AddEvent(ev.name, ev.offset_ps, 1000);
    e.Int("bytes_reserved", ev.reserved).Int("bytes_allocated", ev.allocated).Int("bytes_available", ev.available);
    e.Int("peak_bytes_in_use", ev.peak).Int("requested_bytes", ev.requested).Int("allocation_bytes", ev.bytes);
    e.Int("addr", ev.addr).Int("id", ev.step).Int("data_type", ev.dtype).Str("allocator_name", "GPU_0_bfc");
    if (*ev.op != '\0') e.Str("tf_op", ev.op);
    e.Str("region_type", ev.region).Str("shape", ev.shape);
  }
  return space;
}

TEST(XprofMemoryProfilePorts, OneAllocatorMultiActivitiesTest) {
  auto model = ParseXSpace(OneAllocatorSpace().SerializeAsString(), "host");
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto profile = ComputeMemoryProfile(**model);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_EQ(profile->memory_profile_per_allocator.size(), 1u);
  EXPECT_EQ(profile->num_hosts, 1);
  EXPECT_EQ(profile->memory_ids.size(), 1u);
  EXPECT_EQ(profile->version, 1);
  ASSERT_EQ(profile->memory_profile_per_allocator.begin()->first, "GPU_0_bfc");
  const PerAllocatorMemoryProfile& a = profile->memory_profile_per_allocator.begin()->second;
  EXPECT_EQ(a.profile_summary.peak_bytes_usage_lifetime, 9500);
  EXPECT_EQ(a.profile_summary.peak_stats.peak_bytes_in_use, 7000);
  EXPECT_EQ(a.profile_summary.peak_stats_time_ps, 70000);
  EXPECT_EQ(a.sampled_timeline_snapshots.size(), 3u);
  ASSERT_EQ(a.memory_profile_snapshots.size(), 1u);
  EXPECT_EQ(a.memory_profile_snapshots[0].activity_metadata.tf_op_name, "mul_grad/Sum");
  ASSERT_EQ(a.active_allocations.size(), 3u);
  EXPECT_EQ(a.active_allocations[2].snapshot_index, 0);
  ASSERT_EQ(a.special_allocations.size(), 2u);
  EXPECT_EQ(a.special_allocations[1].tf_op_name, "stack");
  EXPECT_EQ(a.special_allocations[1].allocation_bytes, 2000);
}

}  // namespace
}  // namespace tbprof
