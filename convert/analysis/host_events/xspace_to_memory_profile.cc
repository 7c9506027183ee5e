#include "convert/analysis/host_events/xspace_to_memory_profile.h"
#include "convert/model/kineto_names.h"
#include "convert/model/schema.h"
#include "convert/base/json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace tbprof {

namespace {

constexpr int64_t kInvalidStepId = -1;
// Byte counts an event did not carry, until FillDeallocations settles them.
constexpr int64_t kUnrecordedBytes = -1;

// The stats the BFC allocator writes, resolved to this space's string ids.
struct MemoryStatIds {
  explicit MemoryStatIds(const XSpaceModel& m)
      : index_on_host(m.Find("index_on_host")), device_ordinal(m.Find("device_ordinal")),
        allocator_name(m.Find("allocator_name")), bytes_reserved(m.Find("bytes_reserved")),
        bytes_allocated(m.Find("bytes_allocated")), bytes_available(m.Find("bytes_available")),
        fragmentation(m.Find("fragmentation")), peak_bytes_in_use(m.Find("peak_bytes_in_use")),
        requested_bytes(m.Find("requested_bytes")), allocation_bytes(m.Find("allocation_bytes")),
        addr(m.Find("addr")), tf_op(m.Find("tf_op")), group_id(m.Find("group_id")),
        region_type(m.Find("region_type")), data_type(m.Find("data_type")), shape(m.Find("shape")) {}
  StrId index_on_host, device_ordinal, allocator_name, bytes_reserved, bytes_allocated, bytes_available,
      fragmentation, peak_bytes_in_use, requested_bytes, allocation_bytes, addr, tf_op, group_id, region_type,
      data_type, shape;
};

// UpdateProfileSummary: reaching or staying at the in-window peak moves it here.
void UpdateSummary(const MemoryAggregationStats& stats, int64_t time_offset_ps, MemoryProfileSummary& summary) {
  summary.peak_bytes_usage_lifetime = stats.peak_bytes_in_use;
  int64_t in_use = stats.stack_reserved_bytes + stats.heap_allocated_bytes;
  if (in_use >= summary.peak_stats.peak_bytes_in_use) {
    summary.peak_stats = stats;
    summary.peak_stats.peak_bytes_in_use = in_use;
    summary.peak_stats_time_ps = time_offset_ps;
    summary.memory_capacity = in_use + stats.free_memory_bytes;
  }
}

int64_t InUse(const MemoryProfileSnapshot& s) {
  return s.aggregation_stats.heap_allocated_bytes + s.aggregation_stats.stack_reserved_bytes;
}

// Snapshots with no step (-1) take the previous valid step + 1 (0 at the start).
void FixStepIds(std::vector<MemoryProfileSnapshot>& snapshots) {
  int64_t last_valid = -1;
  for (MemoryProfileSnapshot& s : snapshots) {
    if (s.activity_metadata.step_id == kInvalidStepId) {
      s.activity_metadata.step_id = last_valid + 1;
    } else {
      last_valid = s.activity_metadata.step_id;
    }
  }
}

// A deallocation inherits op, region, type and shape from the allocation at
// its address, and its sizes where it carries none: the TPU runtime's
// deallocation TraceMes name no sizes, and a free counted as 0 bytes would
// shrink the persistent memory of the peak's breakdown (xprof counts it so,
// and its rows then add up to less than the heap in use). Sizes no event gave
// stay 0, as in xprof.
void FillDeallocations(std::vector<MemoryProfileSnapshot>& snapshots) {
  std::unordered_map<uint64_t, size_t> open;  // address -> allocation snapshot index
  for (size_t i = 0; i < snapshots.size(); ++i) {
    MemoryActivityMetadata& m = snapshots[i].activity_metadata;
    if (m.memory_activity == MemoryActivity::kDeallocation) {
      auto it = open.find(m.address);
      if (it != open.end()) {
        const MemoryActivityMetadata& a = snapshots[it->second].activity_metadata;
        m.tf_op_name = a.tf_op_name;
        m.region_type = a.region_type;
        m.data_type = a.data_type;
        m.tensor_shape = a.tensor_shape;
        if (m.requested_bytes == kUnrecordedBytes) m.requested_bytes = a.requested_bytes;
        if (m.allocation_bytes == kUnrecordedBytes) m.allocation_bytes = a.allocation_bytes;
        open.erase(it);
      }
    } else {
      open.try_emplace(m.address, i);  // a second allocation at a live address keeps the first
    }
    m.requested_bytes = std::max<int64_t>(m.requested_bytes, 0);
    m.allocation_bytes = std::max<int64_t>(m.allocation_bytes, 0);
  }
}

// Max-box filter down to `max_points`: boxes of width w then w+1 covering all snapshots.
std::vector<MemoryProfileSnapshot> SampleTimeline(const std::vector<MemoryProfileSnapshot>& snapshots,
                                                  int64_t max_points) {
  int64_t n = static_cast<int64_t>(snapshots.size());
  if (max_points <= 0 || n <= max_points) return snapshots;
  std::vector<MemoryProfileSnapshot> out;
  out.reserve(max_points);
  auto boxes = [&](int64_t width, int64_t count, int64_t start) {
    for (int64_t i = 0; i < count; ++i) {
      int64_t best = start + width * i;
      for (int64_t k = best + 1; k < start + width * (i + 1); ++k) {
        if (InUse(snapshots[k]) > InUse(snapshots[best])) best = k;  // first of equals wins
      }
      out.push_back(snapshots[best]);
    }
  };
  int64_t width = n / max_points;
  int64_t count1 = max_points * (width + 1) - n;
  int64_t count2 = max_points - count1;
  boxes(width, count1, 0);
  boxes(width + 1, count2, width * count1);
  return out;
}

using IndexedMetadata = std::pair<int64_t, const MemoryActivityMetadata*>;

auto MetadataSortKey(const MemoryActivityMetadata& m) {
  return std::make_tuple(-m.allocation_bytes, -m.requested_bytes, std::string_view(m.tf_op_name),
                         std::string_view(m.region_type), std::string_view(m.data_type),
                         std::string_view(m.tensor_shape));
}

MemoryActivityMetadata SpecialAllocation(int64_t bytes, const char* op, const char* region, int64_t step_id) {
  MemoryActivityMetadata m;
  m.memory_activity = MemoryActivity::kAllocation;
  m.requested_bytes = bytes;
  m.allocation_bytes = bytes;
  m.address = 0;
  m.tf_op_name = op;
  m.step_id = step_id;
  m.region_type = region;
  m.data_type = TensorflowDataTypeString(0);
  m.tensor_shape = "unknown";
  return m;
}

// The breakdown table at the peak (ProcessActiveAllocations), then only the
// snapshots it references are kept (SaveActiveAllocationSnapshots).
// `unmapped_label` names the heap the peak's step did not allocate.
void BreakDownPeak(int64_t peak_step_id, const char* unmapped_label, PerAllocatorMemoryProfile& p) {
  const std::vector<MemoryProfileSnapshot>& snapshots = p.memory_profile_snapshots;
  int64_t unmapped = p.profile_summary.peak_stats.heap_allocated_bytes;
  int64_t unmapped_deallocation = 0;
  std::unordered_map<uint64_t, int64_t> active;  // address -> snapshot index
  for (size_t i = 0; i < snapshots.size(); ++i) {
    const MemoryProfileSnapshot& s = snapshots[i];
    if (s.time_offset_ps > p.profile_summary.peak_stats_time_ps) break;
    const MemoryActivityMetadata& m = s.activity_metadata;
    if (m.step_id != peak_step_id) continue;
    if (m.memory_activity == MemoryActivity::kAllocation) {
      active[m.address] = static_cast<int64_t>(i);
      unmapped -= m.allocation_bytes;
    } else {
      if (active.erase(m.address) == 0) unmapped_deallocation += m.allocation_bytes;
      unmapped += m.allocation_bytes;
    }
  }
  // Frees of the previous step's allocations are not persistent memory.
  unmapped -= unmapped_deallocation;

  std::vector<IndexedMetadata> rows;
  for (const auto& [address, index] : active) rows.emplace_back(index, &snapshots[index].activity_metadata);
  // Ties merge into one row led by the earliest snapshot (xprof leaves this to hash order).
  std::sort(rows.begin(), rows.end(), [](const IndexedMetadata& a, const IndexedMetadata& b) { return a.first < b.first; });
  if (unmapped > 0) {
    p.special_allocations.push_back(
        SpecialAllocation(unmapped, unmapped_label, "persist/dynamic", peak_step_id));
  }
  if (int64_t stack = p.profile_summary.peak_stats.stack_reserved_bytes; stack > 0) {
    p.special_allocations.push_back(SpecialAllocation(stack, "stack", "stack", peak_step_id));
  }
  for (size_t k = 0; k < p.special_allocations.size(); ++k) {
    rows.emplace_back(-static_cast<int64_t>(k) - 1, &p.special_allocations[k]);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const IndexedMetadata& a, const IndexedMetadata& b) {
    return MetadataSortKey(*a.second) < MetadataSortKey(*b.second);
  });

  std::vector<MemoryProfileSnapshot> kept;
  for (size_t i = 0; i < rows.size(); ++i) {
    ActiveAllocation row;
    row.snapshot_index = rows[i].first;
    row.special_index = rows[i].first < 0 ? -rows[i].first - 1 : -1;
    while (i + 1 < rows.size() && MetadataSortKey(*rows[i].second) == MetadataSortKey(*rows[i + 1].second)) {
      ++row.num_occurrences;
      ++i;
    }
    if (row.snapshot_index >= 0) {
      kept.push_back(snapshots[row.snapshot_index]);
      row.snapshot_index = static_cast<int64_t>(kept.size()) - 1;
    }
    p.active_allocations.push_back(row);
  }
  p.memory_profile_snapshots = std::move(kept);
}

// --- JSON ---------------------------------------------------------------------

// Protobuf JSON: 64-bit integers are quoted.
void AppendInt64(std::string& out, int64_t v) {
  out += '"';
  out += std::to_string(v);
  out += '"';
}

// A member as AppendJsonStringMember writes one, its value a quoted int64.
void Int64Field(std::string& out, std::string_view key, int64_t v) {
  out += key;
  AppendInt64(out, v);
}

// Protobuf's SimpleDtoa: 15 significant digits when that round-trips, else 17.
void AppendDouble(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "\"NaN\"";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.15g", v);
  if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof(buf), "%.17g", v);
  out += buf;
}

const char* ActivityName(MemoryActivity a) {
  switch (a) {
    case MemoryActivity::kAllocation: return "ALLOCATION";
    case MemoryActivity::kDeallocation: return "DEALLOCATION";
    case MemoryActivity::kReservation: return "RESERVATION";
    case MemoryActivity::kExpansion: return "EXPANSION";
    case MemoryActivity::kUnknown: break;
  }
  return "UNKNOWN_ACTIVITY";
}

void AppendStats(std::string& out, const MemoryAggregationStats& s) {
  Int64Field(out, "{\"stackReservedBytes\":", s.stack_reserved_bytes);
  Int64Field(out, ",\"heapAllocatedBytes\":", s.heap_allocated_bytes);
  Int64Field(out, ",\"freeMemoryBytes\":", s.free_memory_bytes);
  out += ",\"fragmentation\":";
  AppendDouble(out, s.fragmentation);
  Int64Field(out, ",\"peakBytesInUse\":", s.peak_bytes_in_use);
  out += '}';
}

void AppendMetadata(std::string& out, const MemoryActivityMetadata& m) {
  out += "{\"memoryActivity\":\"";
  out += ActivityName(m.memory_activity);
  Int64Field(out, "\",\"requestedBytes\":", m.requested_bytes);
  Int64Field(out, ",\"allocationBytes\":", m.allocation_bytes);
  out += ",\"address\":\"";
  out += std::to_string(m.address);
  AppendJsonStringMember(out, "\",\"tfOpName\":", m.tf_op_name);
  Int64Field(out, ",\"stepId\":", m.step_id);
  AppendJsonStringMember(out, ",\"regionType\":", m.region_type);
  AppendJsonStringMember(out, ",\"dataType\":", m.data_type);
  AppendJsonStringMember(out, ",\"tensorShape\":", m.tensor_shape);
  out += '}';
}

// A JSON array: `append_one` writes each item.
template <typename T, typename Fn>
void AppendArray(std::string& out, const std::vector<T>& items, Fn append_one) {
  out += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    append_one(items[i]);
  }
  out += ']';
}

void AppendSnapshots(std::string& out, const std::vector<MemoryProfileSnapshot>& snapshots) {
  AppendArray(out, snapshots, [&](const MemoryProfileSnapshot& s) {
    Int64Field(out, "{\"timeOffsetPs\":", s.time_offset_ps);
    out += ",\"aggregationStats\":";
    AppendStats(out, s.aggregation_stats);
    out += ",\"activityMetadata\":";
    AppendMetadata(out, s.activity_metadata);
    out += '}';
  });
}

}  // namespace

std::string TensorflowDataTypeString(int64_t dtype) {
  // types.proto DataType values; reference types are value + 100.
  static const char* const kNames[] = {
      "INVALID", "float",      "double",   "int32",  "uint8",   "int16",    "int8",          "string",
      "complex64", "int64",    "bool",     "qint8",  "quint8",  "qint32",   "bfloat16",      "qint16",
      "quint16", "uint16",     "complex128", "half", "resource", "variant", "uint32",        "uint64",
      "float8_e5m2", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2fnuz", "int4",
      "uint4"};
  constexpr int64_t kCount = static_cast<int64_t>(sizeof(kNames) / sizeof(kNames[0]));
  // Any value above 100 is read as a reference type, even one whose base type
  // is unknown: 131 is "unknown dtype enum (31)_ref", as xprof names it.
  const bool ref = dtype > 100;
  const int64_t base = ref ? dtype - 100 : dtype;
  std::string name = base >= 0 && base < kCount ? kNames[base] : "unknown dtype enum (" + std::to_string(base) + ")";
  return ref ? name + "_ref" : name;
}

namespace {

// GenerateHloModules: every event of every TPU plane's "XLA Modules" line.
std::vector<HloModuleRun> TpuModuleRuns(const XSpaceModel& model) {
  std::vector<HloModuleRun> runs;
  for (const XPlaneModel* plane : model.FindPlanesWithPrefix(schema::kTpuPlanePrefix)) {
    std::string_view plane_name = model.Str(plane->name);
    plane_name.remove_prefix(std::string_view("/device:").size());
    for (const LineModel& line : plane->lines) {
      if (model.Str(line.name) != schema::kXlaModuleLine) continue;
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
        HloModuleRun run;
        run.name = std::string(model.Str(plane->EventName(e)));
        run.start_time_ps = plane->events[e].begin_ps - line.timestamp_ns * 1000;
        run.end_time_ps = run.start_time_ps + plane->events[e].duration_ps;
        run.id = static_cast<int64_t>(runs.size());
        run.plane_name = std::string(plane_name);
        runs.push_back(std::move(run));
      }
    }
  }
  return runs;
}

// The in-use curve of an allocator whose records carry sizes but no totals:
// the running sum of allocations less frees, raised by its lowest point (the
// least memory alive at the start that the frees seen require).
void DeriveInUseFromAllocationSizes(PerAllocatorMemoryProfile& p) {
  std::vector<MemoryProfileSnapshot>& snapshots = p.memory_profile_snapshots;
  int64_t running = 0, lowest = 0;
  std::vector<int64_t> sums(snapshots.size());
  for (size_t i = 0; i < snapshots.size(); ++i) {
    const MemoryActivityMetadata& m = snapshots[i].activity_metadata;
    const int64_t bytes = m.allocation_bytes == kUnrecordedBytes ? 0 : m.allocation_bytes;
    running += m.memory_activity == MemoryActivity::kAllocation ? bytes : -bytes;
    lowest = std::min(lowest, running);
    sums[i] = running;
  }
  MemoryProfileSummary& summary = p.profile_summary;
  summary.peak_stats = MemoryAggregationStats();
  summary.in_use_from_allocation_sizes = true;
  int64_t peak = 0;
  for (size_t i = 0; i < snapshots.size(); ++i) {
    MemoryAggregationStats& stats = snapshots[i].aggregation_stats;
    stats.heap_allocated_bytes = sums[i] - lowest;
    peak = std::max(peak, stats.heap_allocated_bytes);
    stats.peak_bytes_in_use = peak;
    UpdateSummary(stats, snapshots[i].time_offset_ps, summary);
  }
  summary.memory_capacity = 0;  // not known: left out of the JSON
}

}  // namespace

StatusOr<MemoryProfile> ComputeMemoryProfile(const XSpaceModel& model, const MemoryProfileOptions& options,
                                             std::shared_ptr<const EventGroups>* groups) {
  MemoryProfile profile;
  const XPlaneModel* plane = model.FindPlane(schema::kHostPlane);
  if (plane == nullptr) return profile;
  profile.hlo_modules = TpuModuleRuns(model);
  StrId alloc_name = model.Find(schema::kMemoryAllocationEvent);
  StrId dealloc_name = model.Find(schema::kMemoryDeallocationEvent);
  if (alloc_name == kNoStr && dealloc_name == kNoStr) return profile;
  MemoryStatIds ids(model);
  std::shared_ptr<const EventGroups> local_groups;
  std::shared_ptr<const EventGroups>& shared_groups = groups != nullptr ? *groups : local_groups;
  if (!shared_groups) shared_groups = std::make_shared<const EventGroups>(GroupEvents(model));
  const EventGroups& step_groups = *shared_groups;
  const size_t plane_index = static_cast<size_t>(plane - model.planes.data());

  // A PyTorch trace's allocators may record sizes without totals (TensorFlow's always record both).
  const bool pytorch = model.Find(schema::kKinetoCategory) != kNoStr;
  std::set<std::string> with_totals;  // allocators some record of which said how much was in use
  for (const LineModel& line : plane->lines) {
    for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
      StrId name = plane->EventName(e);
      if (name == kNoStr || (name != alloc_name && name != dealloc_name)) continue;
      MemoryProfileSnapshot snapshot;
      MemoryAggregationStats& stats = snapshot.aggregation_stats;
      MemoryActivityMetadata& m = snapshot.activity_metadata;
      m.memory_activity = name == alloc_name ? MemoryActivity::kAllocation : MemoryActivity::kDeallocation;
      // A file grouped before it was written carries group_id stats, read
      // below; otherwise the grouping gives the event's step.
      const int32_t group = step_groups.Group(plane_index, e);
      m.step_id = group == kNoGroup ? kInvalidStepId : group;
      m.requested_bytes = m.allocation_bytes = kUnrecordedBytes;
      std::string memory_id;
      bool has_totals = false;
      auto [begin, end] = plane->StatsOf(e);
      for (const Stat* s = begin; s != end; ++s) {
        StrId n = s->name;
        if (n == kNoStr) continue;
        auto str = [&] { return s->kind == StatKind::kStr ? std::string(model.Str(s->str)) : std::string(); };
        if (n == ids.index_on_host || n == ids.device_ordinal) memory_id = std::to_string(s->IntValue());
        else if (n == ids.allocator_name) memory_id = str();
        else if (n == ids.bytes_reserved) stats.stack_reserved_bytes = s->IntValue();
        else if (n == ids.bytes_allocated) stats.heap_allocated_bytes = s->IntValue(), has_totals = true;
        else if (n == ids.bytes_available) stats.free_memory_bytes = s->IntValue();
        else if (n == ids.fragmentation) stats.fragmentation = s->DoubleValue();
        else if (n == ids.peak_bytes_in_use) stats.peak_bytes_in_use = s->IntValue();
        else if (n == ids.requested_bytes) m.requested_bytes = s->IntValue();
        else if (n == ids.allocation_bytes) m.allocation_bytes = s->IntValue();
        else if (n == ids.addr) m.address = s->UintValue();
        else if (n == ids.tf_op) m.tf_op_name = str();
        else if (n == ids.group_id) m.step_id = s->IntValue();
        else if (n == ids.region_type) m.region_type = str();
        else if (n == ids.data_type) m.data_type = TensorflowDataTypeString(s->IntValue());
        else if (n == ids.shape) m.tensor_shape = str();
      }
      // Offsets are relative to the line start, which every host line shares.
      snapshot.time_offset_ps = plane->events[e].begin_ps - line.timestamp_ns * 1000;
      PerAllocatorMemoryProfile& p = profile.memory_profile_per_allocator[memory_id];
      if (has_totals) with_totals.insert(memory_id);
      UpdateSummary(stats, snapshot.time_offset_ps, p.profile_summary);
      ++(m.memory_activity == MemoryActivity::kAllocation ? p.profile_summary.num_allocations
                                                          : p.profile_summary.num_deallocations);
      p.memory_profile_snapshots.push_back(std::move(snapshot));
    }
  }

  for (auto& [memory_id, p] : profile.memory_profile_per_allocator) {
    if (!p.memory_profile_snapshots.empty()) profile.memory_ids.push_back(memory_id);  // std::map: sorted
    std::vector<MemoryProfileSnapshot>& snapshots = p.memory_profile_snapshots;
    auto by_time = [](const MemoryProfileSnapshot& a, const MemoryProfileSnapshot& b) {
      return a.time_offset_ps < b.time_offset_ps;
    };
    // Usually already in time order (one allocator writes from one clock).
    if (!std::is_sorted(snapshots.begin(), snapshots.end(), by_time)) {
      std::stable_sort(snapshots.begin(), snapshots.end(), by_time);
    }
    FixStepIds(snapshots);
    FillDeallocations(snapshots);
    if (pytorch && !with_totals.count(memory_id)) DeriveInUseFromAllocationSizes(p);
    p.sampled_timeline_snapshots = SampleTimeline(snapshots, options.max_num_snapshots);
    // The peak's step: the last snapshot whose in-use bytes equal the peak.
    int64_t peak_step_id = 0;
    for (const MemoryProfileSnapshot& s : snapshots) {
      if (InUse(s) == p.profile_summary.peak_stats.peak_bytes_in_use) peak_step_id = s.activity_metadata.step_id;
    }
    // TensorFlow's BFC allocator reserves its region up front; PyTorch's
    // caching allocator has no such region: what the step did not allocate
    // was allocated earlier (before the step, or before the trace began).
    BreakDownPeak(peak_step_id,
                  schema::IsKinetoTrace(model) ? "allocated before the step" : "unused preallocated device memory", p);
  }
  return profile;
}

std::string MemoryProfileToJson(const MemoryProfile& profile) {
  std::string out = "{\"memoryProfilePerAllocator\":{";
  bool first = true;
  for (const auto& [memory_id, p] : profile.memory_profile_per_allocator) {
    if (!first) out += ',';
    first = false;
    AppendJsonString(out, memory_id);
    out += ":{\"memoryProfileSnapshots\":";
    AppendSnapshots(out, p.memory_profile_snapshots);
    Int64Field(out, ",\"profileSummary\":{\"peakBytesUsageLifetime\":", p.profile_summary.peak_bytes_usage_lifetime);
    out += ",\"peakStats\":";
    AppendStats(out, p.profile_summary.peak_stats);
    Int64Field(out, ",\"peakStatsTimePs\":", p.profile_summary.peak_stats_time_ps);
    if (p.profile_summary.in_use_from_allocation_sizes) {
      out += ",\"inUseFromAllocationSizes\":true";
    } else {
      Int64Field(out, ",\"memoryCapacity\":", p.profile_summary.memory_capacity);
    }
    Int64Field(out, ",\"numAllocations\":", p.profile_summary.num_allocations);
    Int64Field(out, ",\"numDeallocations\":", p.profile_summary.num_deallocations);
    out += "},\"activeAllocations\":";
    AppendArray(out, p.active_allocations, [&](const ActiveAllocation& a) {
      Int64Field(out, "{\"snapshotIndex\":", a.snapshot_index);
      Int64Field(out, ",\"specialIndex\":", a.special_index);
      Int64Field(out, ",\"numOccurrences\":", a.num_occurrences);
      out += '}';
    });
    out += ",\"specialAllocations\":";
    AppendArray(out, p.special_allocations, [&](const MemoryActivityMetadata& m) { AppendMetadata(out, m); });
    out += ",\"sampledTimelineSnapshots\":";
    AppendSnapshots(out, p.sampled_timeline_snapshots);
    out += '}';
  }
  out += "},\"numHosts\":";
  out += std::to_string(profile.num_hosts);
  out += ",\"memoryIds\":";
  AppendArray(out, profile.memory_ids, [&](const std::string& id) { AppendJsonString(out, id); });
  out += ",\"version\":";
  out += std::to_string(profile.version);
  out += ",\"hloModules\":";
  AppendArray(out, profile.hlo_modules, [&](const HloModuleRun& m) {
    AppendJsonStringMember(out, "{\"name\":", m.name);
    Int64Field(out, ",\"startTimePs\":", m.start_time_ps);
    Int64Field(out, ",\"endTimePs\":", m.end_time_ps);
    Int64Field(out, ",\"id\":", m.id);
    AppendJsonStringMember(out, ",\"planeName\":", m.plane_name);
    out += '}';
  });
  out += '}';
  return out;
}

}  // namespace tbprof
