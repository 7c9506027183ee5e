// Memory profile: per allocator, the BFC allocator's
// MemoryAllocation/MemoryDeallocation TraceMes on /host:CPU become snapshots,
// a peak summary, a ≤1000-point timeline and the breakdown of the
// allocations live at the peak; JSON is xprof's MemoryProfile proto as
// MessageToJsonString prints it (camelCase, int64 as strings, all fields),
// plus the summary's allocation and deallocation counts.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "convert/base/status.h"
#include "convert/grouping/group_events.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

enum class MemoryActivity : int { kUnknown = 0, kAllocation = 1, kDeallocation = 2, kReservation = 3, kExpansion = 4 };

struct MemoryAggregationStats {
  int64_t stack_reserved_bytes = 0;
  int64_t heap_allocated_bytes = 0;
  int64_t free_memory_bytes = 0;
  double fragmentation = 0;  // BFC: 1 - largest free chunk / total free
  int64_t peak_bytes_in_use = 0;
};

struct MemoryActivityMetadata {
  MemoryActivity memory_activity = MemoryActivity::kUnknown;
  int64_t requested_bytes = 0;
  int64_t allocation_bytes = 0;
  uint64_t address = 0;
  std::string tf_op_name;
  int64_t step_id = 0;
  std::string region_type;
  std::string data_type;  // TensorFlow DataTypeString, e.g. "float", "INVALID"
  std::string tensor_shape;
};

struct MemoryProfileSnapshot {
  int64_t time_offset_ps = 0;  // the event's offset within its line
  MemoryAggregationStats aggregation_stats;
  MemoryActivityMetadata activity_metadata;
};

struct MemoryProfileSummary {
  int64_t peak_bytes_usage_lifetime = 0;
  MemoryAggregationStats peak_stats;  // peak_bytes_in_use = stack + heap at the peak
  int64_t peak_stats_time_ps = 0;
  int64_t memory_capacity = 0;
  // Activities of the profiling window; xprof's page counts them from the
  // snapshots it was sent (numAllocations/numDeallocations), which are only a
  // sample of them past max_num_snapshots, so the server counts them all.
  int64_t num_allocations = 0;
  int64_t num_deallocations = 0;
  // No record said how much was in use (a PyTorch 1.8 trace: `Bytes` without
  // `Total Allocated`): the curve is the allocations less the frees since the
  // trace started, raised so it never goes below 0; capacity unknown.
  bool in_use_from_allocation_sizes = false;
};

// One row of the breakdown table: a snapshot (index >= 0) or a special
// allocation (snapshot_index -1, -2 ↔ special_index 0, 1), merged with its
// identical neighbours.
struct ActiveAllocation {
  int64_t snapshot_index = 0;
  int64_t special_index = -1;
  int64_t num_occurrences = 1;
};

struct PerAllocatorMemoryProfile {
  std::vector<MemoryProfileSnapshot> memory_profile_snapshots;  // only those active at the peak
  MemoryProfileSummary profile_summary;
  std::vector<ActiveAllocation> active_allocations;
  std::vector<MemoryActivityMetadata> special_allocations;
  std::vector<MemoryProfileSnapshot> sampled_timeline_snapshots;
};

// One execution of an XLA module on a TPU (its "XLA Modules" line), for the timeline.
struct HloModuleRun {
  std::string name;
  int64_t start_time_ps = 0;  // offset within the line
  int64_t end_time_ps = 0;
  int64_t id = 0;          // running index over all TPU planes
  std::string plane_name;  // plane name without "/device:", e.g. "TPU:0"
};

struct MemoryProfile {
  std::map<std::string, PerAllocatorMemoryProfile> memory_profile_per_allocator;
  int32_t num_hosts = 1;
  std::vector<std::string> memory_ids;
  int32_t version = 1;
  std::vector<HloModuleRun> hlo_modules;
};

struct MemoryProfileOptions {
  int64_t max_num_snapshots = 1000;  // timeline points per allocator (xprof's default)
};

// Analyses `model`'s /host:CPU plane; a space without one gives an empty profile.
// A memory event's step is its step group: xprof groups the space before it
// reads the allocator's events, so an allocation made inside a step carries
// that step's group id. `groups`, when given: the space's GroupEvents result
// if already known; if empty, it receives the grouping made here (only a
// space with memory events is grouped).
StatusOr<MemoryProfile> ComputeMemoryProfile(const XSpaceModel& model, const MemoryProfileOptions& options = {},
                                             std::shared_ptr<const EventGroups>* groups = nullptr);

// Protobuf-JSON of the profile (field order as memory_profile.proto, map keys sorted).
std::string MemoryProfileToJson(const MemoryProfile& profile);

// TensorFlow's DataTypeString for a DataType enum value ("_ref" above 100).
std::string TensorflowDataTypeString(int64_t dtype);

}  // namespace tbprof
