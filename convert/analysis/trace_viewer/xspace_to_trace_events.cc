#include "convert/analysis/trace_viewer/xspace_to_trace_events.h"
#include "convert/analysis/op_names/tf_op_utils.h"
#include "convert/model/schema.h"
#include "convert/base/cancellation.h"
#include "convert/base/json.h"
#include "convert/base/memory_grant.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>

namespace tbprof {
namespace {

constexpr std::string_view kHostPlaneName = schema::kHostPlane;
constexpr std::string_view kGpuPlanePrefix = schema::kGpuPlanePrefix;
constexpr std::string_view kTpuPlanePrefix = schema::kTpuPlanePrefix;
constexpr std::string_view kCustomPlanePrefix = schema::kCustomPlanePrefix;
constexpr std::string_view kCountersLine = schema::kCountersLine;

// IsInternalEvent (xla/tsl/profiler/utils/xplane_schema.cc).
constexpr std::string_view kInternalEventNames[] = {
    "MemoryAllocation",          "MemoryDeallocation",        "PrefetchProduce",
    "PrefetchConsume",           "ParallelInterleaveProduce", "ParallelInterleaveConsume",
    "ParallelInterleaveInitializeInput", "ParallelMapProduce", "ParallelMapConsume",
    "MapAndBatchProduce",        "MapAndBatchConsume",        "ParseExampleProduce",
    "ParseExampleConsume",
};
// IsInternalStat, plus `flow` which becomes the flow binding itself.
constexpr std::string_view kInternalStatNames[] = {
    "kernel_details", "_pt", "_p", "_ct", "_c", "_r", "flops", "bytes_accessed", "program_id", "symbol_id", "flow",
};

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

void AppendUint(uint64_t v, std::string& out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, r.ptr);
}

void AppendInt(int64_t v, std::string& out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, r.ptr);
}

// Picoseconds as microseconds, the unit of ts/dur.
void AppendPicosAsMicros(int64_t ps, std::string& out) { AppendJsonDouble(out, static_cast<double>(ps) / 1e6); }

// A metadata event ("ph":"M") naming or ordering a process, or a thread when
// `tid` is set: its args ({"name": …} or {"sort_index": …}, written by the
// caller after `args_key`), then the event's name and ids. The caller closes it.
template <typename WriteValue>
void AppendMetadataEvent(std::string& out, std::string_view args_key, WriteValue write_value, std::string_view event,
                         uint32_t pid, std::optional<uint32_t> tid = std::nullopt) {
  out.append("{\"args\":{\"");
  out.append(args_key);
  out.append("\":");
  write_value();
  out.append("},\"name\":\"");
  out.append(event);
  out.append("\",\"ph\":\"M\",\"pid\":");
  AppendUint(pid, out);
  if (tid) {
    out.append(",\"tid\":");
    AppendUint(*tid, out);
  }
}

}  // namespace

TraceLayout BuildTraceLayout(const XSpaceModel& space, const DerivedTimelines* derived) {
  // Which planes are shown and their pids (before the host offset).
  std::vector<std::pair<uint32_t, uint32_t>> shown;  // (plane index, pid)
  bool has_gpu = false;
  for (const XPlaneModel& p : space.planes) has_gpu |= StartsWith(space.Str(p.name), kGpuPlanePrefix);
  const std::string_view device_prefix = has_gpu ? kGpuPlanePrefix : kTpuPlanePrefix;
  // Host planes: the process's own and its sub-processes' ("/host:CPU [<pid>]"), by name.
  std::vector<uint32_t> host_planes;
  for (uint32_t i = 0; i < space.planes.size(); ++i) {
    if (StartsWith(space.Str(space.planes[i].name), kHostPlaneName)) host_planes.push_back(i);
  }
  std::stable_sort(host_planes.begin(), host_planes.end(), [&](uint32_t a, uint32_t b) {
    return space.Str(space.planes[a].name) < space.Str(space.planes[b].name);
  });
  std::vector<uint32_t> host_pid(space.planes.size(), 0);
  for (size_t k = 0; k < host_planes.size(); ++k) {
    host_pid[host_planes[k]] = std::min<uint32_t>(kTraceHostPid + static_cast<uint32_t>(k), kTraceLastHostPid);
  }
  // Rows follow the planes' order in the file.
  for (uint32_t i = 0; i < space.planes.size(); ++i) {
    const XPlaneModel& p = space.planes[i];
    std::string_view name = space.Str(p.name);
    if (host_pid[i] != 0) {
      shown.emplace_back(i, host_pid[i]);
    } else if (StartsWith(name, device_prefix)) {
      int64_t pid = kTraceFirstDevicePid + p.id;
      if (pid < kTraceFirstDevicePid || pid > kTraceLastDevicePid) pid = kTraceFirstDevicePid;
      shown.emplace_back(i, static_cast<uint32_t>(pid));
    } else if (StartsWith(name, kCustomPlanePrefix)) {
      int64_t pid = kTraceFirstCustomPid + std::max<int64_t>(p.id, 0);
      shown.emplace_back(i, static_cast<uint32_t>(std::min<int64_t>(pid, kTracePidsPerHost - 1)));
    }
  }
  // The derived planes of each file plane.
  std::vector<std::vector<uint32_t>> derived_of(space.planes.size());
  if (derived != nullptr) {
    for (uint32_t d = 0; d < derived->file_plane.size(); ++d) derived_of[derived->file_plane[d]].push_back(d);
  }

  TraceLayout layout;
  std::map<uint32_t, TraceProcess> processes;
  for (auto [plane_index, base_pid] : shown) {
    const uint32_t pid = base_pid;
    std::map<uint32_t, std::string> threads;
    std::vector<uint32_t> replaced;  // file lines a derived line stands in for
    for (uint32_t d : derived_of[plane_index]) {
      replaced.insert(replaced.end(), derived->replaced_file_lines[d].begin(), derived->replaced_file_lines[d].end());
    }
    auto add_lines = [&](const XSpaceModel& s, uint32_t plane, bool is_derived, const std::vector<int64_t>* display_ids) {
      const XPlaneModel& p = s.planes[plane];
      for (uint32_t l = 0; l < p.lines.size(); ++l) {
        const LineModel& line = p.lines[l];
        if (!is_derived && std::find(replaced.begin(), replaced.end(), l) != replaced.end()) continue;
        std::string_view line_name = s.Str(line.display_name != kNoStr ? line.display_name : line.name);
        if (line.num_events == 0 || line_name.starts_with("counters_")) continue;
        if (s.Str(line.name) == kCountersLine) {
          layout.rows.push_back(TraceRow{plane, l, pid, 0, /*counters=*/true, is_derived});
          continue;
        }
        int64_t display_id = line.display_id;
        if (display_ids != nullptr && l < display_ids->size() && (*display_ids)[l] != 0) display_id = (*display_ids)[l];
        const uint32_t tid = static_cast<uint32_t>(display_id != 0 ? display_id : line.id);
        layout.rows.push_back(TraceRow{plane, l, pid, tid, /*counters=*/false, is_derived});
        threads.emplace(tid, std::string(line_name));  // the first line of a tid names it
      }
    };
    const std::vector<int64_t>* display_ids = nullptr;
    for (uint32_t d : derived_of[plane_index]) display_ids = &derived->file_line_display_ids[d];
    add_lines(space, plane_index, false, display_ids);
    for (uint32_t d : derived_of[plane_index]) add_lines(derived->space, d, true, nullptr);
    if (threads.empty()) continue;  // like xprof, a plane without events adds no process
    TraceProcess& proc = processes[pid];
    proc.pid = pid;
    if (proc.name.empty()) proc.name = std::string(space.Str(space.planes[plane_index].name));
    for (auto& [tid, name] : threads) {
      auto at = std::lower_bound(proc.threads.begin(), proc.threads.end(), tid,
                                 [](const TraceThread& t, uint32_t id) { return t.tid < id; });
      if (at == proc.threads.end() || at->tid != tid) proc.threads.insert(at, TraceThread{tid, std::move(name)});
    }
  }
  for (auto& [pid, proc] : processes) layout.processes.push_back(std::move(proc));
  return layout;
}

void AppendTraceMetadataJson(const TraceLayout& layout, bool streaming, uint32_t pid_offset,
                             std::string_view host_name, std::string& out) {
  for (TraceProcess proc : layout.processes) {
    proc.pid += pid_offset;
    if (!host_name.empty()) proc.name = std::string(host_name) + " " + proc.name;
    AppendMetadataEvent(out, "name", [&] { AppendJsonString(out, proc.name); }, "process_name", proc.pid);
    if (streaming) {
      out.append(",\"thread_count\":");
      AppendUint(proc.threads.size(), out);
    }
    out.append("},");
    AppendMetadataEvent(out, "sort_index", [&] { AppendUint(proc.pid, out); }, "process_sort_index", proc.pid);
    out.append("},");
    for (const TraceThread& t : proc.threads) {
      AppendMetadataEvent(out, "name", [&] { AppendJsonString(out, t.name); }, "thread_name", proc.pid, t.tid);
      out.append("},");
      AppendMetadataEvent(out, "sort_index", [&] { AppendUint(t.tid, out); }, "thread_sort_index", proc.pid, t.tid);
      out.append("},");
    }
  }
}

TraceEventRenderer::Source TraceEventRenderer::Resolve(const XSpaceModel& space) {
  Source src;
  src.space = &space;
  for (std::string_view n : kInternalStatNames) {
    if (StrId id = space.Find(n); id != kNoStr) src.internal_stats.push_back(id);
  }
  src.step_name = space.Find(schema::kStepName);
  src.correlation_id = space.Find(schema::kCorrelationId);
  src.hidden.resize(space.planes.size());
  src.host_plane.resize(space.planes.size());
  for (size_t p = 0; p < space.planes.size(); ++p) {
    const XPlaneModel& plane = space.planes[p];
    src.host_plane[p] = StartsWith(space.Str(plane.name), kHostPlaneName);
    src.hidden[p].resize(plane.event_metadata.size());
    for (size_t m = 0; m < plane.event_metadata.size(); ++m) {
      std::string_view name = space.Str(plane.event_metadata[m].name);
      src.hidden[p][m] = std::find(std::begin(kInternalEventNames), std::end(kInternalEventNames), name) !=
                         std::end(kInternalEventNames);
    }
  }
  return src;
}

// A correlation id is a flow only when the file holds both its ends, a launch
// and what it started: runtime calls that start nothing on the device
// (cudaStreamSynchronize) carry one too, and a launch may fall outside the
// capture; their arrows would lead nowhere. The file decides for its derived
// lines too: their events are copies of its device events.
std::vector<uint64_t> TraceEventRenderer::OneEndedCorrelations(const Source& file) {
  std::vector<uint64_t> host_ids, device_ids;
  if (file.correlation_id == kNoStr) return {};
  const XSpaceModel& space = *file.space;
  for (size_t p = 0; p < space.planes.size(); ++p) {
    const XPlaneModel& plane = space.planes[p];
    std::vector<uint64_t>& ids = file.host_plane[p] ? host_ids : device_ids;
    for (uint32_t e = 0; e < plane.events.size(); ++e) {
      const Stat* c = plane.FindStat(e, file.correlation_id);
      if (c != nullptr && c->IsInteger()) ids.push_back(c->UintValue());
    }
  }
  for (auto* ids : {&host_ids, &device_ids}) {
    std::sort(ids->begin(), ids->end());
    ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  }
  std::vector<uint64_t> one_ended;
  std::set_symmetric_difference(host_ids.begin(), host_ids.end(), device_ids.begin(), device_ids.end(),
                                std::back_inserter(one_ended));
  return one_ended;
}

TraceEventRenderer::TraceEventRenderer(const XSpaceModel& space, const DerivedTimelines* derived) {
  sources_[0] = Resolve(space);
  if (derived != nullptr) sources_[1] = Resolve(derived->space);
  one_ended_correlations_ = OneEndedCorrelations(sources_[0]);
  derived_ = derived;
  if (FileGroups() == nullptr) return;
  Source& file = sources_[0];
  file.is_eager = space.Find(schema::kIsEager);
  file.tf_op_named.resize(space.planes.size());
  for (size_t p = 0; p < space.planes.size(); ++p) {
    const XPlaneModel& plane = space.planes[p];
    file.tf_op_named[p].resize(plane.event_metadata.size());
    for (size_t m = 0; m < plane.event_metadata.size(); ++m) {
      file.tf_op_named[p][m] =
          ParseTfOpFullname(space.Str(plane.event_metadata[m].name)).category == TfOpCategory::kTensorFlow;
    }
  }
}

bool TraceEventRenderer::InternalStat(const Source& src, StrId name) const {
  return std::find(src.internal_stats.begin(), src.internal_stats.end(), name) != src.internal_stats.end();
}

std::string_view TraceEventRenderer::Name(const TraceRow& row, uint32_t event) const {
  const Source& src = sources_[row.derived];
  const XPlaneModel& p = src.space->planes[row.plane];
  if (const FileGroupArgs* groups = FileGroups(); groups != nullptr && !row.derived) {
    if (const std::string* step = groups->StepName(row.plane, event)) return *step;
  }
  if (src.step_name != kNoStr) {
    if (const Stat* s = p.FindEventOrMetadataStat(event, src.step_name); s && s->kind == StatKind::kStr) {
      return src.space->Str(s->str);
    }
  }
  const EventMetadata& md = p.event_metadata[p.events[event].metadata];
  return src.space->Str(md.display_name != kNoStr ? md.display_name : md.name);
}

void TraceEventRenderer::AppendStatValue(const XSpaceModel& space, const Stat& s, std::string& out) const {
  // JavaScript numbers are doubles: integers beyond 2^53 travel as strings.
  constexpr uint64_t kIeeeLimit = uint64_t{1} << 53;
  switch (s.kind) {
    case StatKind::kInt64:
      if (s.i64 > static_cast<int64_t>(kIeeeLimit) || s.i64 < -static_cast<int64_t>(kIeeeLimit)) {
        out.push_back('"');
        AppendInt(s.i64, out);
        out.push_back('"');
      } else {
        AppendInt(s.i64, out);
      }
      break;
    case StatKind::kUint64:
      if (s.u64 > kIeeeLimit) out.push_back('"');
      AppendUint(s.u64, out);
      if (s.u64 > kIeeeLimit) out.push_back('"');
      break;
    case StatKind::kDouble:
      AppendJsonDouble(out, s.f64);
      break;
    case StatKind::kStr:
      AppendJsonString(out, space.Str(s.str));
      break;
    default:
      out.append("null");
  }
}

void TraceEventRenderer::Append(const TraceRow& row, uint32_t event, const TraceEventStyle& style,
                                std::string& out) const {
  const Source& src = sources_[row.derived];
  const XSpaceModel& space = *src.space;
  const XPlaneModel& p = space.planes[row.plane];
  const Event& e = p.events[event];
  const EventMetadata& md = p.event_metadata[e.metadata];
  out.append("{\"pid\":");
  AppendUint(row.pid + style.pid_offset, out);
  if (row.counters) {
    AppendCounter(row, event, style, out);
    return;
  }
  out.append(",\"tid\":");
  AppendUint(row.tid, out);
  out.append(",\"name\":");
  AppendJsonString(out, Name(row, event));
  out.append(",\"ts\":");
  AppendPicosAsMicros(e.begin_ps, out);
  const int64_t duration_ps = std::max<int64_t>(e.duration_ps, 0);
  const bool instant = duration_ps == 0 && !style.streaming;
  if (!instant) {
    out.append(",\"dur\":");
    // A complete event needs a duration, or viewers stretch it to the trace end.
    AppendPicosAsMicros(std::max<int64_t>(duration_ps, 1), out);
  }
  bool correlated = false;  // a launch, or the kernel it started
  if (src.correlation_id != kNoStr) {
    const Stat* c = p.FindStat(event, src.correlation_id);
    correlated = c != nullptr;
    if (c && c->IsInteger() &&
        !std::binary_search(one_ended_correlations_.begin(), one_ended_correlations_.end(), c->UintValue())) {
      // Launch (host) → kernel (device): one flow per correlation id and host.
      const uint64_t flow_id = (uint64_t{style.host_index} << 48) | (c->UintValue() & ((uint64_t{1} << 48) - 1));
      out.append(",\"bind_id\":");
      AppendUint(flow_id, out);
      out.append(src.host_plane[row.plane] ? ",\"cat\":\"gpu_launch\",\"flow_out\":true"
                                        : ",\"cat\":\"gpu_launch\",\"flow_in\":true");
    }
  }
  out.append(instant ? ",\"ph\":\"i\",\"s\":\"t\"" : ",\"ph\":\"X\"");

  // args: long_name, metadata stats (unless the event overrides them), event stats, uid.
  bool any = false;
  auto key = [&](std::string_view name) {
    out.append(any ? "," : ",\"args\":{");
    any = true;
    AppendJsonString(out, name);
    out.push_back(':');
  };
  if (md.display_name != kNoStr) {
    key("long_name");
    AppendJsonString(out, space.Str(md.name));
  }
  // The grouping's stats (FileGroupArgs) replace the event's own of those names.
  const FileGroupArgs* groups = row.derived ? nullptr : FileGroups();
  const std::string* step = groups != nullptr ? groups->StepName(row.plane, event) : nullptr;
  const bool eager_marked = groups != nullptr && (src.tf_op_named[row.plane][e.metadata] ||
                                                  (correlated && !src.host_plane[row.plane]));
  auto [eb, ee] = p.StatsOf(event);
  auto shown = [&](const Stat& s) {
    return s.kind != StatKind::kNone && s.kind != StatKind::kBytes && !InternalStat(src, s.name) &&
           !(step != nullptr && s.name == src.step_name) && !(eager_marked && s.name == src.is_eager);
  };
  auto [mb, me] = p.MetadataStatsOf(e.metadata);
  if (!style.with_stats) {
    mb = me;
    eb = ee;
  }
  for (const Stat* s = mb; s != me; ++s) {
    if (!shown(*s)) continue;
    if (std::any_of(eb, ee, [&](const Stat& o) { return o.name == s->name; })) continue;
    key(space.Str(s->name));
    AppendStatValue(space, *s, out);
  }
  // A derived event's step group comes first among its own args.
  if (row.derived && derived_ != nullptr && style.with_stats) {
    if (const int32_t group = derived_->Group(row.plane, event); group != kNoGroup) {
      key(schema::kGroupId);
      AppendInt(group, out);
    }
  }
  for (const Stat* s = eb; s != ee; ++s) {
    if (!shown(*s)) continue;
    key(space.Str(s->name));
    AppendStatValue(space, *s, out);
  }
  if (groups != nullptr && style.with_stats) {
    if (const int32_t group = groups->group[row.plane].Find(event, kNoGroup); group != kNoGroup) {
      key(schema::kGroupId);
      AppendInt(group, out);
    }
    if (step != nullptr) {
      key(schema::kStepName);
      AppendJsonString(out, *step);
    }
    if (eager_marked) {
      key(schema::kIsEager);
      AppendInt(groups->eager[row.plane].Find(event, 0), out);
    }
  }
  if (style.uid >= 0) {
    key("uid");
    AppendInt(style.uid, out);
  }
  if (any) out.push_back('}');
  if (style.uid >= 0) {
    // The streaming viewer de-duplicates events across loads by pid + ts + z.
    out.append(",\"z\":");
    AppendInt(style.uid, out);
  }
  out.push_back('}');
}

void TraceEventRenderer::AppendCounter(const TraceRow& row, uint32_t event, const TraceEventStyle& style,
                                       std::string& out) const {
  // A sample of the counters named by the event: its numeric stats (metadata
  // first, the event's own overriding) are the series values at ts.
  const XSpaceModel& space = *sources_[row.derived].space;
  const XPlaneModel& p = space.planes[row.plane];
  const Event& e = p.events[event];
  out.append(",\"name\":");
  AppendJsonString(out, Name(row, event));
  out.append(",\"ph\":\"C\",\"ts\":");
  AppendPicosAsMicros(e.begin_ps, out);
  out.append(",\"args\":{");
  bool any = false;
  auto [eb, ee] = p.StatsOf(event);
  auto [mb, me] = p.MetadataStatsOf(e.metadata);
  auto numeric = [](const Stat& s) {
    return s.kind == StatKind::kInt64 || s.kind == StatKind::kUint64 || s.kind == StatKind::kDouble;
  };
  auto add = [&](const Stat& s) {
    if (any) out.push_back(',');
    any = true;
    AppendJsonString(out, space.Str(s.name));
    out.push_back(':');
    AppendJsonDouble(out, s.DoubleValue());
  };
  for (const Stat* s = mb; s != me; ++s) {
    if (numeric(*s) && std::none_of(eb, ee, [&](const Stat& o) { return o.name == s->name; })) add(*s);
  }
  for (const Stat* s = eb; s != ee; ++s) {
    if (numeric(*s)) add(*s);
  }
  out.push_back('}');
  if (style.uid >= 0) {
    out.append(",\"z\":");
    AppendInt(style.uid, out);
  }
  out.push_back('}');
}

TraceJsonResult ConvertXSpacesToTraceJson(const std::vector<TraceHostInput>& hosts, const TraceJsonOptions& options) {
  const bool multi_host = hosts.size() > 1;
  std::vector<DerivedTimelines> derived;
  std::vector<TraceLayout> layouts;
  std::vector<TraceEventRenderer> renderers;
  derived.reserve(hosts.size());
  layouts.reserve(hosts.size());
  renderers.reserve(hosts.size());
  TraceJsonResult result;
  for (uint32_t h = 0; h < hosts.size(); ++h) {
    const DerivedTimelines* d = hosts[h].derived;
    if (d == nullptr) {
      derived.push_back(GenerateDerivedTimelines(*hosts[h].space));
      d = &derived.back();
    }
    layouts.push_back(BuildTraceLayout(*hosts[h].space, d));
    renderers.emplace_back(*hosts[h].space, d);
  }
  auto for_each_event = [&](auto&& fn) {
    for (size_t h = 0; h < hosts.size(); ++h) {
      for (const TraceRow& row : layouts[h].rows) {
        if (CancelRequested()) return;  // the caller discards a partial trace
        const LineModel& line = renderers[h].Plane(row).lines[row.line];
        for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
          if (!renderers[h].Hidden(row, e)) fn(h, row, e);
        }
      }
    }
  };

  // MaybeDropEventsForTraceViewer: keep every event at or before the
  // timestamp of the max_events-th earliest one.
  int64_t cutoff_ps = INT64_MAX;
  for_each_event([&](size_t, const TraceRow&, uint32_t) { ++result.total_events; });
  if (options.max_events > 0 && result.total_events > options.max_events) {
    std::vector<int64_t> begins;
    begins.reserve(result.total_events);
    for_each_event([&](size_t h, const TraceRow& row, uint32_t e) {
      begins.push_back(renderers[h].Plane(row).events[e].begin_ps);
    });
    std::nth_element(begins.begin(), begins.begin() + (options.max_events - 1), begins.end());
    cutoff_ps = begins[options.max_events - 1];
    result.returned_events =
        std::count_if(begins.begin(), begins.end(), [&](int64_t b) { return b <= cutoff_ps; });
  } else {
    result.returned_events = result.total_events;
  }
  result.dropped_events = result.total_events - result.returned_events;

  std::string& out = result.json;
  constexpr size_t kRoomAhead = 64 << 10;  // more than any one event's JSON but its longest args
  result.status = GrowClaimed(out, static_cast<size_t>(result.returned_events) * 160 + 4096, "trace_viewer: the trace");
  if (!result.status.ok()) return result;
  out.append("{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},\"eventLimit\":{\"maxEvents\":");
  AppendInt(options.max_events > 0 ? options.max_events : -1, out);
  out.append(",\"totalEvents\":");
  AppendInt(result.total_events, out);
  out.append(",\"returnedEvents\":");
  AppendInt(result.returned_events, out);
  out.append(",\"droppedEvents\":");
  AppendInt(result.dropped_events, out);
  if (result.dropped_events > 0) {
    out.append(",\"message\":");
    AppendJsonString(out, "Only the earliest " + std::to_string(result.returned_events) + " of " +
                              std::to_string(result.total_events) + " events are shown (limit " +
                              std::to_string(options.max_events) +
                              "). Use the streaming trace viewer (trace_viewer@) to see every event.");
  }
  out.append("},\"traceEvents\":[");
  auto pid_offset = [&](size_t h) { return multi_host ? kTracePidsPerHost * static_cast<uint32_t>(h + 1) : 0; };
  for (size_t h = 0; h < hosts.size(); ++h) {
    AppendTraceMetadataJson(layouts[h], /*streaming=*/false, pid_offset(h),
                            multi_host ? std::string_view(hosts[h].host_name) : std::string_view(), out);
  }
  for_each_event([&](size_t h, const TraceRow& row, uint32_t e) {
    if (renderers[h].Plane(row).events[e].begin_ps > cutoff_ps || !result.status.ok()) return;
    if (out.capacity() - out.size() < kRoomAhead) {
      result.status = GrowClaimed(out, kRoomAhead, "trace_viewer: the trace");
      if (!result.status.ok()) return;
    }
    TraceEventStyle style;
    style.host_index = static_cast<uint32_t>(h);
    style.pid_offset = pid_offset(h);
    renderers[h].Append(row, e, style, out);
    out.push_back(',');
  });
  if (out.back() == ',') out.pop_back();
  out.append("]}");
  return result;
}

}  // namespace tbprof
