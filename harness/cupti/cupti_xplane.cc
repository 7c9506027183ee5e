#include "harness/cupti/cupti_xplane.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

#include "proto/xspace_builder.h"

namespace tbprof::gpu {
namespace {

// absl::StrCat prints a double with six significant digits (%g).
std::string SixDigits(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Offsets are taken against the CUPTI clock at start and every line starts at
// the wall-clock start, as NormalizeTimeStamps in TF's collector leaves them.
int64_t OffsetPs(const GpuTrace& t, uint64_t ns) {
  return (static_cast<int64_t>(ns) - static_cast<int64_t>(t.start_gpu_ns)) * 1000;
}
int64_t DurationPs(uint64_t start, uint64_t end) {
  return end > start ? static_cast<int64_t>(end - start) * 1000 : 0;
}

unsigned ContentOf(CopyDirection d) {
  switch (d) {
    case CopyDirection::kHtoD: return kStreamMemcpyH2D;
    case CopyDirection::kDtoH: return kStreamMemcpyD2H;
    case CopyDirection::kDtoD: return kStreamMemcpyD2D;
    case CopyDirection::kPtoP: return kStreamMemcpyP2P;
    case CopyDirection::kOther: return kStreamMemcpyOther;
  }
  return kStreamMemcpyOther;
}

// One device event before it is written: sorted by start per stream.
struct PendingEvent {
  uint64_t start_ns, end_ns;
  int kind;  // 0 kernel, 1 memcpy, 2 memset
  size_t index;
};

void WriteDevicePlane(const GpuTrace& t, uint32_t device, const DeviceInfo* info,
                      const std::unordered_map<uint32_t, const ApiCallRecord*>& by_correlation,
                      tensorflow::profiler::XSpace& space) {
  std::map<uint32_t, std::vector<PendingEvent>> streams;
  std::map<uint32_t, unsigned> content;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    const auto& k = t.kernels[i];
    if (k.device_id != device) continue;
    streams[k.stream_id].push_back({k.start_ns, k.end_ns, 0, i});
    content[k.stream_id] |= kStreamCompute;
  }
  for (size_t i = 0; i < t.memcpys.size(); ++i) {
    const auto& m = t.memcpys[i];
    if (m.device_id != device) continue;
    streams[m.stream_id].push_back({m.start_ns, m.end_ns, 1, i});
    content[m.stream_id] |= ContentOf(m.direction);
  }
  for (size_t i = 0; i < t.memsets.size(); ++i) {
    const auto& m = t.memsets[i];
    if (m.device_id != device) continue;
    streams[m.stream_id].push_back({m.start_ns, m.end_ns, 2, i});
    content[m.stream_id] |= kStreamMemset;
  }

  XPlaneBuilder plane = AddPlane(space, "/device:GPU:" + std::to_string(device), device);
  if (info != nullptr) {
    plane.Int("clock_rate", info->clock_rate_khz);
    plane.Int("core_count", info->core_count);
    plane.Uint("memory_bandwidth", info->memory_bandwidth);
    plane.Uint("memory_size", info->memory_size);
    plane.Int("compute_cap_major", info->compute_cap_major);
    plane.Int("compute_cap_minor", info->compute_cap_minor);
    plane.Str("device_vendor", "Nvidia");
  }
  auto add_common = [&](XEventBuilder& e, uint32_t correlation, uint32_t context) {
    e.Uint("correlation_id", correlation);
    e.Ref("context_id", "$$" + std::to_string(context));
    auto it = by_correlation.find(correlation);
    if (it != by_correlation.end() && !it->second->annotation.empty())
      e.Ref("tf_op", it->second->annotation);
  };
  for (auto& [stream, events] : streams) {
    std::stable_sort(events.begin(), events.end(),
                     [](const PendingEvent& a, const PendingEvent& b) { return a.start_ns < b.start_ns; });
    XLineBuilder line = plane.AddLine(stream, StreamLineName(stream, content[stream]),
                                      static_cast<int64_t>(t.start_walltime_ns));
    for (const PendingEvent& p : events) {
      if (p.kind == 0) {
        const KernelRecord& k = t.kernels[p.index];
        XEventBuilder e = line.AddEvent(k.name, OffsetPs(t, k.start_ns), DurationPs(k.start_ns, k.end_ns));
        add_common(e, k.correlation_id, k.context_id);
        e.Double("theoretical_occupancy_pct", k.occupancy_pct);
        e.Ref("kernel_details", KernelDetailsText(k));
      } else if (p.kind == 1) {
        const MemcpyRecord& m = t.memcpys[p.index];
        XEventBuilder e = line.AddEvent(MemcpyEventName(m.direction), OffsetPs(t, m.start_ns),
                                        DurationPs(m.start_ns, m.end_ns));
        add_common(e, m.correlation_id, m.context_id);
        e.Ref("memcpy_details", MemcpyDetailsText(m));
      } else {
        const MemsetRecord& m = t.memsets[p.index];
        XEventBuilder e = line.AddEvent("Memset", OffsetPs(t, m.start_ns), DurationPs(m.start_ns, m.end_ns));
        add_common(e, m.correlation_id, m.context_id);
        e.Ref("Memset_details", MemsetDetailsText(m));
      }
    }
  }
}

void WriteHostPlane(const GpuTrace& t, const GpuXSpaceOptions& options,
                    tensorflow::profiler::XSpace& space) {
  // Per thread: annotations and API calls, by start (an enclosing annotation
  // first when both start together, so nesting reads right).
  struct HostEvent {
    uint64_t start_ns;
    int order;  // 0 annotation, 1 api call
    size_t index;
  };
  std::map<uint64_t, std::vector<HostEvent>> threads;
  for (size_t i = 0; i < t.annotations.size(); ++i)
    threads[t.annotations[i].thread_id].push_back({t.annotations[i].start_ns, 0, i});
  for (size_t i = 0; i < t.api_calls.size(); ++i)
    threads[t.api_calls[i].thread_id].push_back({t.api_calls[i].start_ns, 1, i});
  if (threads.empty() && t.syncs.empty()) return;

  XPlaneBuilder plane = AddPlane(space, options.host_plane_name, 0);
  for (auto& [tid, events] : threads) {
    std::stable_sort(events.begin(), events.end(), [](const HostEvent& a, const HostEvent& b) {
      return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.order < b.order;
    });
    XLineBuilder line = plane.AddLine(static_cast<int64_t>(tid), "Host Threads/" + std::to_string(tid),
                                      static_cast<int64_t>(t.start_walltime_ns));
    for (const HostEvent& h : events) {
      if (h.order == 0) {
        const AnnotationRecord& a = t.annotations[h.index];
        line.AddEvent(a.name, OffsetPs(t, a.start_ns), DurationPs(a.start_ns, a.end_ns));
      } else {
        const ApiCallRecord& c = t.api_calls[h.index];
        XEventBuilder e = line.AddEvent(c.name, OffsetPs(t, c.start_ns), DurationPs(c.start_ns, c.end_ns));
        e.Uint("correlation_id", c.correlation_id);
        e.Uint("device_id", c.device_id);
      }
    }
  }
  if (!t.syncs.empty()) {
    std::vector<size_t> order(t.syncs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return t.syncs[a].start_ns < t.syncs[b].start_ns; });
    XLineBuilder line = plane.AddLine(kSyncLineId, "CUDA synchronization",
                                      static_cast<int64_t>(t.start_walltime_ns));
    for (size_t i : order) {
      const SyncRecord& s = t.syncs[i];
      XEventBuilder e = line.AddEvent(s.type, OffsetPs(t, s.start_ns), DurationPs(s.start_ns, s.end_ns));
      e.Int("stream_id", s.stream_id);
      e.Ref("context_id", "$$" + std::to_string(s.context_id));
    }
  }
}

}  // namespace

std::string_view MemoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kPageable: return "pageable";
    case MemoryKind::kPinned: return "pinned";
    case MemoryKind::kDevice: return "device";
    case MemoryKind::kArray: return "array";
    case MemoryKind::kManaged: return "managed";
    case MemoryKind::kDeviceStatic: return "device_static";
    case MemoryKind::kManagedStatic: return "managed_static";
    case MemoryKind::kUnknown: break;
  }
  return "unknown";
}

std::string_view MemcpyEventName(CopyDirection d) {
  switch (d) {
    case CopyDirection::kHtoD: return "MemcpyH2D";
    case CopyDirection::kDtoH: return "MemcpyD2H";
    case CopyDirection::kDtoD: return "MemcpyD2D";
    case CopyDirection::kPtoP: return "MemcpyP2P";
    case CopyDirection::kOther: break;
  }
  return "MemcpyOther";
}

std::string KernelDetailsText(const KernelRecord& k) {
  std::string s = "regs:" + std::to_string(k.registers_per_thread);
  s += " static_shared:" + std::to_string(k.static_shared);
  s += " dynamic_shared:" + std::to_string(k.dynamic_shared);
  s += " grid:" + std::to_string(k.grid[0]) + "," + std::to_string(k.grid[1]) + "," + std::to_string(k.grid[2]);
  s += " block:" + std::to_string(k.block[0]) + "," + std::to_string(k.block[1]) + "," +
       std::to_string(k.block[2]);
  s += " occ_pct:" + SixDigits(k.occupancy_pct);
  return s;
}

std::string MemcpyDetailsText(const MemcpyRecord& m) {
  std::string s = "kind_src:";
  s += MemoryKindName(m.src_kind);
  s += " kind_dst:";
  s += MemoryKindName(m.dst_kind);
  s += " size:" + std::to_string(m.bytes) + " dest:" + std::to_string(m.destination_device);
  s += " async:" + std::to_string(m.async ? 1 : 0);
  return s;
}

std::string MemsetDetailsText(const MemsetRecord& m) {
  std::string s = "kind:";
  s += MemoryKindName(m.kind);
  s += " num_bytes:" + std::to_string(m.bytes) + " async:" + std::to_string(m.async ? 1 : 0);
  return s;
}

std::string StreamLineName(uint32_t stream_id, unsigned content) {
  static constexpr std::pair<unsigned, const char*> kNames[] = {
      {kStreamCompute, "Compute"},     {kStreamMemcpyH2D, "MemcpyH2D"}, {kStreamMemcpyD2H, "MemcpyD2H"},
      {kStreamMemcpyD2D, "MemcpyD2D"}, {kStreamMemcpyP2P, "MemcpyP2P"}, {kStreamMemcpyOther, "MemcpyOther"},
      {kStreamMemset, "Memset"},
  };
  std::string name = "Stream #" + std::to_string(stream_id);
  std::string types;
  for (const auto& [bit, label] : kNames) {
    if ((content & bit) == 0) continue;
    if (!types.empty()) types += ",";
    types += label;
  }
  return types.empty() ? name : name + "(" + types + ")";
}

void AddGpuTraceToXSpace(const GpuTrace& trace, tensorflow::profiler::XSpace& space,
                         const GpuXSpaceOptions& options) {
  std::unordered_map<uint32_t, const ApiCallRecord*> by_correlation;
  for (const ApiCallRecord& c : trace.api_calls) by_correlation.emplace(c.correlation_id, &c);

  std::set<uint32_t> devices;
  for (const DeviceInfo& d : trace.devices) devices.insert(d.ordinal);
  for (const auto& k : trace.kernels) devices.insert(k.device_id);
  for (const auto& m : trace.memcpys) devices.insert(m.device_id);
  for (const auto& m : trace.memsets) devices.insert(m.device_id);

  if (options.write_host_plane) WriteHostPlane(trace, options, space);
  for (uint32_t d : devices) {
    const DeviceInfo* info = nullptr;
    for (const DeviceInfo& di : trace.devices)
      if (di.ordinal == d) info = &di;
    WriteDevicePlane(trace, d, info, by_correlation, space);
  }
}

}  // namespace tbprof::gpu
