#include "convert/tools/trace_viewer_tools.h"
#include "convert/analysis/trace_analysis/critical_path.h"
#include "convert/base/cancellation.h"
#include "convert/base/json.h"
#include "convert/base/memory_grant.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/trace_preview_file.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

namespace tbprof {
namespace {

// A number parameter: absent → `fallback`, present but malformed → error.
StatusOr<double> StrictDouble(const ToolParams& params, const std::string& key, double fallback) {
  auto it = params.find(key);
  if (it == params.end() || it->second.empty()) return fallback;
  const std::string& s = it->second;
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) {
    return InvalidArgument("trace viewer: parameter " + key + "='" + s + "' is not a number");
  }
  return v;
}

bool TrueParam(const ToolParams& params, const std::string& key) {
  std::string v = ParamStr(params, key);
  return v == "true" || v == "1" || v == "True";
}

// Milliseconds on the ts axis → picoseconds, refusing values beyond int64.
StatusOr<int64_t> MillisToPicos(double ms, const std::string& key) {
  const double ps = std::round(ms * 1e9);
  if (!(std::fabs(ps) < 9.2e18)) return InvalidArgument("trace viewer: " + key + " is out of range");
  return static_cast<int64_t>(ps);
}

// uid = host index · 2^32 + position in that host's index.
constexpr int kUidHostShift = 32;

// False when stopped part-way because the client left.
// The answer's buffer grows in claimed steps (memory_grant.h) with room for
// the next events kept ahead, so a whole trace larger than the memory its
// request was given stops with an error instead of taking the process past
// its bound; so does one larger than `max_bytes`.
Status AppendHits(const StreamingTraceHost& host, size_t host_index, const std::vector<TraceHit>& hits, bool with_stats,
                  uint64_t max_bytes, std::string& out) {
  constexpr size_t kRoomAhead = 64 << 10;  // more than any one event's JSON but its longest args
  TraceEventStyle style;
  style.streaming = true;
  style.with_stats = with_stats;
  style.host_index = static_cast<uint32_t>(host_index);
  style.pid_offset = StreamingPidOffset(host_index);
  const TraceIndex& index = *host.index;
  const TraceEventRenderer& renderer = index.renderer();
  const std::vector<TraceRow>& rows = index.layout().rows;
  constexpr size_t kEventsAhead = 16, kStatsAhead = 8;
  for (size_t i = 0; i < hits.size(); ++i) {
    if ((i & 0xffff) == 0xffff && CancelRequested()) return CancelledError("trace viewer");
    if (out.capacity() - out.size() < kRoomAhead) {
      if (out.size() > max_bytes) {
        return ResourceExhausted("trace viewer: the events in this window make more than " + std::to_string(max_bytes) +
                                 " bytes of JSON; ask for a shorter window or a resolution");
      }
      RETURN_IF_ERROR(GrowClaimed(out, kRoomAhead, "trace viewer: the answer for this window"));
    }
    if (i + kEventsAhead < hits.size()) renderer.PrefetchEvent(rows[hits[i + kEventsAhead].row], hits[i + kEventsAhead].event);
    if (i + kStatsAhead < hits.size()) renderer.PrefetchStats(rows[hits[i + kStatsAhead].row], hits[i + kStatsAhead].event);
    const TraceHit& h = hits[i];
    style.uid = (static_cast<int64_t>(host_index) << kUidHostShift) + h.uid;
    renderer.Append(rows[h.row], h.event, style, out);
    out.push_back(',');
  }
  return Status();
}

// The answer's size, from a sample of its events spread over all of them
// (their JSON sizes vary with names and args), with a little to spare: sized
// once, the buffer is not copied into a larger one while both are held.
uint64_t EstimateHitsJsonBytes(const std::vector<StreamingTraceHost>& hosts,
                               const std::vector<std::vector<TraceHit>>& hits, bool with_stats) {
  constexpr size_t kSample = 512;
  constexpr uint64_t kMetadataBytes = 64 << 10;  // process and thread names
  size_t total = 0;
  for (const auto& h : hits) total += h.size();
  if (total == 0) return kMetadataBytes;
  const size_t stride = std::max<size_t>(1, total / kSample);
  std::string sample;
  size_t sampled = 0, seen = 0;
  for (size_t h = 0; h < hits.size(); ++h) {
    TraceEventStyle style;
    style.streaming = true;
    style.with_stats = with_stats;
    style.host_index = static_cast<uint32_t>(h);
    style.pid_offset = StreamingPidOffset(h);
    const TraceIndex& index = *hosts[h].index;
    for (size_t i = (stride - seen % stride) % stride; i < hits[h].size(); i += stride) {
      style.uid = (static_cast<int64_t>(h) << kUidHostShift) + hits[h][i].uid;
      index.renderer().Append(index.layout().rows[hits[h][i].row], hits[h][i].event, style, sample);
      sample.push_back(',');
      ++sampled;
    }
    seen += hits[h].size();
  }
  const double per_event = static_cast<double>(sample.size()) / static_cast<double>(std::max<size_t>(sampled, 1));
  return kMetadataBytes + static_cast<uint64_t>(per_event * 1.05 * static_cast<double>(total));
}

// The streaming answer up to its events (`returned` of them, over the
// hosts' whole span [min_ps, max_ps]), then what follows them.
void AppendStreamingHead(size_t returned, bool filtered, int64_t min_ps, int64_t max_ps, bool search_truncated,
                         std::string& out) {
  out.append(
      "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},\"codeLink\":\"\",\"useNewBackend\":false,"
      "\"returnedEventsSize\":");
  out.append(std::to_string(returned));
  out.append(filtered ? ",\"filteredByVisibility\":true" : ",\"filteredByVisibility\":false");
  out.append(",\"fullTimespan\":[");
  AppendJsonDouble(out, static_cast<double>(min_ps) / 1e9);
  out.push_back(',');
  AppendJsonDouble(out, static_cast<double>(max_ps) / 1e9);
  out.push_back(']');
  if (search_truncated) out.append(",\"searchTruncated\":true");
  out.append(",\"traceEvents\":[");
}
// `out` ends with the events, each followed by a comma.
void AppendStreamingTail(const std::string& critical_path, std::string& out) {
  if (out.back() == ',') out.pop_back();
  out.append("],\"showCounterMessage\":\"\",\"totalCounterEvents\":0");
  out.append(critical_path).append("}");
}

// The step a `critical_path` parameter names; none for the default (the first step).
StatusOr<std::optional<int64_t>> CriticalPathStep(const std::string& text) {
  if (text.empty()) return std::optional<int64_t>();
  int64_t step = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), step);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    return InvalidArgument("trace viewer: critical_path='" + text + "' is not a step number");
  }
  return std::optional<int64_t>(step);
}

// The critical path of the step on every host, as flow events (Chrome's
// ph "s" → "f", cat "critical_path") from each event of the path to the next,
// each end at the time the path leaves or enters its event (kept inside it,
// so the viewer binds the arrow to that slice), then `"criticalPath":{...}`
// after the events. Appends "," after each flow event.
StatusOr<std::string> AppendCriticalPathFlows(const std::vector<StreamingTraceHost>& hosts, const std::string& param,
                                              std::string& out) {
  ASSIGN_OR_RETURN(std::optional<int64_t> step, CriticalPathStep(param));
  std::string summary = ",\"criticalPath\":{\"hosts\":[";
  for (size_t h = 0; h < hosts.size(); ++h) {
    const XSpaceModel& space = hosts[h].index->space();
    auto path = trace_analysis::ComputeCriticalPath(space, step);
    if (!path.ok()) return Status(path.status().code(), "trace viewer: " + path.status().message());
    constexpr size_t kFlowBytes = 256;  // one flow's two events, with room
    if (out.capacity() - out.size() < path->visits.size() * kFlowBytes) {
      RETURN_IF_ERROR(GrowClaimed(out, path->visits.size() * kFlowBytes, "trace viewer: the critical path's flows"));
    }
    std::map<std::pair<uint32_t, uint32_t>, const TraceRow*> row_of;  // (plane, line) → row
    for (const TraceRow& row : hosts[h].index->layout().rows) {
      if (!row.derived) row_of[{row.plane, row.line}] = &row;
    }
    auto row_at = [&](const trace_analysis::CriticalPathEventRef& at) -> const TraceRow* {
      const std::vector<LineModel>& lines = space.planes[at.plane].lines;
      auto line = std::upper_bound(lines.begin(), lines.end(), at.event,
                                   [](uint32_t e, const LineModel& l) { return e < l.first_event; });
      if (line == lines.begin()) return nullptr;
      auto it = row_of.find({at.plane, static_cast<uint32_t>(line - 1 - lines.begin())});
      return it == row_of.end() ? nullptr : it->second;
    };
    auto end = [&](const char* ph, const trace_analysis::CriticalPathVisit& v, bool leaving, uint64_t id) {
      const TraceRow* row = row_at(v.where);
      if (row == nullptr) return false;
      const Event& e = space.planes[v.where.plane].events[v.where.event];
      // Inside the slice: a flow end on a slice's very edge may bind to its neighbour.
      const int64_t inset = std::min<int64_t>(1000, e.duration_ps / 2);
      const int64_t ts = std::clamp(leaving ? v.leave_ps : v.enter_ps, e.begin_ps + inset, e.end_ps() - inset);
      out.append("{\"ph\":\"").append(ph).append("\",\"cat\":\"critical_path\",\"name\":\"critical_path\",\"id\":");
      out.append(std::to_string(id)).append(",\"pid\":").append(std::to_string(row->pid + StreamingPidOffset(h)));
      out.append(",\"tid\":").append(std::to_string(row->tid)).append(",\"ts\":");
      AppendJsonDouble(out, static_cast<double>(ts) / 1e6);
      out.append(leaving ? "}," : ",\"bp\":\"e\"},");
      return true;
    };
    size_t flows = 0;
    for (size_t i = 0; i + 1 < path->visits.size(); ++i) {
      const uint64_t id = (static_cast<uint64_t>(h) << kUidHostShift) + i;
      const size_t mark = out.size();
      if (!end("s", path->visits[i], true, id) || !end("f", path->visits[i + 1], false, id)) {
        out.resize(mark);  // an event the viewer does not show: no arrow
        continue;
      }
      ++flows;
    }
    summary.append(h > 0 ? ",{\"step\":" : "{\"step\":");
    summary.append(path->whole_profile ? "null" : std::to_string(path->step));
    summary.append(",\"length_us\":");
    AppendJsonDouble(summary, static_cast<double>(path->length_ps) / 1e6);
    summary.append(",\"flows\":").append(std::to_string(flows)).append("}");
  }
  return summary + "]}";
}

}  // namespace

StatusOr<std::shared_ptr<const TraceIndex>> LoadTraceIndexCached(const std::string& path, ArtifactCache* cache) {
  auto build = [&]() -> StatusOr<CacheValue<TraceIndex>> {
    // A server told to write summaries keeps the index's first picture too, of the file the index was built from.
    const SummaryPolicy policy = CurrentSummaryPolicy();
    std::optional<ProfileIdentity> before;
    if (policy.write) {
      if (auto id = IdentityOfProfile(path); id.ok()) before = *id;
    }
    auto model = LoadModelCached(path, cache);
    if (!model.ok()) return model.status();
    // The index orders every event twice over while it is built (a part per
    // thread, then the whole): claimed first, as the model's arrays are.
    RETURN_IF_ERROR(ClaimMemory(2 * sizeof(uint32_t) * (*model)->NumEvents(), "trace viewer: the index of its events"));
    std::shared_ptr<const EventGroups> groups = PeekGroupsCached(path, cache);
    std::shared_ptr<const TraceIndex> index = TraceIndex::Build(*model, &groups);
    if (CancelRequested()) return CancelledError("trace index of " + path);  // a partial index
    KeepGroupsCached(path, std::move(groups), cache);
    if (before) WriteTracePreviewIfAsked(path, *index, *before, policy);
    size_t bytes = index->MemoryBytes();
    // The index keeps the model alive: charged with it, once, even after the
    // model's own entry is evicted.
    return CacheValue<TraceIndex>{std::move(index), bytes, {SharedCharge{*model, (*model)->MemoryBytes()}}};
  };
  return GetForFile<TraceIndex>(cache, "trace_index", path, build);
}

StatusOr<std::string> StreamingTraceJson(const std::vector<StreamingTraceHost>& hosts, const ToolParams& params,
                                         int64_t min_events_to_filter, uint64_t max_bytes) {
  if (ParamStr(params, "format") == "pb") {
    // xprof answers with its delta-series protobuf, which tbprof does not write: the request is refused.
    return InvalidArgument(
        "trace viewer: format=pb (delta-series protobuf) is not supported; supported formats: json (the default, "
        "when format is omitted)");
  }
  ASSIGN_OR_RETURN(auto start_ms, StrictDouble(params, "start_time_ms", 0.0));
  ASSIGN_OR_RETURN(auto end_ms, StrictDouble(params, "end_time_ms", 0.0));
  ASSIGN_OR_RETURN(auto start_ps, MillisToPicos(start_ms, "start_time_ms"));
  ASSIGN_OR_RETURN(auto end_ps, MillisToPicos(end_ms, "end_time_ms"));

  std::vector<std::vector<TraceHit>> hits(hosts.size());
  // A search told search_metadata=false returns the events it finds without their stats (xprof). Without the
  // parameter they keep them: tbprof's UI shows a found event's args when the user steps to it.
  const bool with_stats = ParamStr(params, "search_prefix").empty() || !params.count("search_metadata") ||
                          TrueParam(params, "search_metadata");
  bool filtered = false, search_truncated = false;
  const std::string event_name = ParamStr(params, "event_name");
  const std::string search_prefix = ParamStr(params, "search_prefix");
  if (!event_name.empty()) {
    ASSIGN_OR_RETURN(auto duration_ms, StrictDouble(params, "duration_ms", -1.0));
    ASSIGN_OR_RETURN(auto uid, StrictDouble(params, "unique_id", -1.0));
    int64_t duration_ps = -1;
    if (duration_ms >= 0) {
      ASSIGN_OR_RETURN(auto d, MillisToPicos(duration_ms, "duration_ms"));
      duration_ps = d;
    }
    // ts and dur travel as decimal µs/ms; 1 ns absorbs their rounding.
    constexpr int64_t kTolerancePs = 1000;
    const int64_t uid_value = uid >= 0 && uid < 9e15 ? static_cast<int64_t>(uid) : -1;
    bool found = false;
    for (size_t h = 0; h < hosts.size() && !found; ++h) {
      int64_t local_uid = -1;
      if (uid_value >= 0 && static_cast<size_t>(uid_value >> kUidHostShift) == h) {
        local_uid = uid_value & ((int64_t{1} << kUidHostShift) - 1);
      }
      if (auto hit = hosts[h].index->FindEvent(event_name, start_ps, duration_ps, kTolerancePs, local_uid)) {
        hits[h].push_back(*hit);
        found = true;
      }
    }
    if (!found) {
      return NotFound("trace viewer: no event named '" + event_name + "' at start_time_ms=" +
                      ParamStr(params, "start_time_ms", "0"));
    }
  } else if (!search_prefix.empty()) {
    size_t budget = static_cast<size_t>(kDefaultTraceMaxEvents);
    for (size_t h = 0; h < hosts.size() && !search_truncated; ++h) {
      hits[h] = hosts[h].index->Search(search_prefix, TrueParam(params, "search_metadata"), budget, &search_truncated);
      budget -= hits[h].size();
    }
  } else {
    ASSIGN_OR_RETURN(auto resolution, StrictDouble(params, "resolution", 8000.0));
    if (resolution < 0) return InvalidArgument("trace viewer: resolution must be >= 0");
    if (end_ps != 0 && end_ps < start_ps) {
      return InvalidArgument("trace viewer: end_time_ms is before start_time_ms");
    }
    TraceQuery query;
    query.start_ps = start_ps;
    query.end_ps = end_ps;
    query.resolution = std::floor(resolution);  // xprof reads it as an integer
    query.min_events_to_filter = min_events_to_filter;
    for (size_t h = 0; h < hosts.size(); ++h) {
      TraceQueryResult r = hosts[h].index->Query(query);
      RETURN_IF_ERROR(r.status);
      filtered |= r.filtered_by_visibility;
      hits[h] = std::move(r.hits);
    }
  }

  size_t returned = 0;
  int64_t min_ps = std::numeric_limits<int64_t>::max(), max_ps = std::numeric_limits<int64_t>::min();
  for (size_t h = 0; h < hosts.size(); ++h) {
    returned += hits[h].size();
    if (hosts[h].index->num_events() == 0) continue;
    min_ps = std::min(min_ps, hosts[h].index->min_ps());
    max_ps = std::max(max_ps, hosts[h].index->max_ps());
  }
  if (min_ps > max_ps) min_ps = max_ps = 0;

  if (uint64_t{returned} * kMinTraceEventJsonBytes > max_bytes) {
    return ResourceExhausted("trace viewer: " + std::to_string(returned) + " events in this window make more than " +
                             std::to_string(max_bytes) + " bytes of JSON; ask for a shorter window or a resolution");
  }
  std::string out;
  RETURN_IF_ERROR(GrowClaimed(out, std::min<uint64_t>(EstimateHitsJsonBytes(hosts, hits, with_stats), max_bytes),
                              "trace viewer: the answer for this window"));
  AppendStreamingHead(returned, filtered, min_ps, max_ps, search_truncated, out);
  for (size_t h = 0; h < hosts.size(); ++h) {
    AppendTraceMetadataJson(hosts[h].index->layout(), /*streaming=*/true, StreamingPidOffset(h), hosts[h].host_name,
                            out);
  }
  for (size_t h = 0; h < hosts.size(); ++h) {
    RETURN_IF_ERROR(AppendHits(hosts[h], h, hits[h], with_stats, max_bytes, out));
  }
  std::string critical_path;
  if (params.count("critical_path")) {
    ASSIGN_OR_RETURN(critical_path, AppendCriticalPathFlows(hosts, ParamStr(params, "critical_path"), out));
  }
  AppendStreamingTail(critical_path, out);
  return out;
}

namespace {

// The floored resolution of a request for the whole trace at a resolution
// and nothing else (the viewer's first request); none otherwise, a malformed
// parameter included (the index's answer says what is wrong).
std::optional<double> WholeTraceResolution(const ToolParams& params) {
  for (const char* key : {"event_name", "search_prefix", "critical_path"}) {
    if (params.count(key)) return std::nullopt;
  }
  if (ParamStr(params, "format") == "pb") return std::nullopt;
  auto start = StrictDouble(params, "start_time_ms", 0.0), end = StrictDouble(params, "end_time_ms", 0.0);
  auto resolution = StrictDouble(params, "resolution", 8000.0);
  if (!start.ok() || !end.ok() || !resolution.ok() || *start != 0 || *end != 0 || *resolution < 0) return std::nullopt;
  return std::floor(*resolution);
}

// A one-host request for the whole trace answered from the profile's trace
// preview (trace_preview_file.h) while its index is not loaded: none when
// there is no valid preview or it cannot give this resolution.
StatusOr<std::optional<ToolOutput>> AnswerFromTracePreview(const ToolInput& input) {
  if (input.profile_paths.size() != 1 || input.hosts.empty()) return std::optional<ToolOutput>();
  const std::string& path = input.profile_paths[0];
  const std::optional<double> resolution = WholeTraceResolution(input.params);
  const SummaryPolicy policy = CurrentSummaryPolicy();
  if (!PreviewCanAnswer(input.params) || PeekForFile<TraceIndex>(input.cache, "trace_index", path) ||
      !PresentSummaryBytes(path, policy, kTracePreviewSuffix)) {
    return std::optional<ToolOutput>();
  }
  auto preview = GetForFile<TracePreview>(input.cache, "trace_preview", path, [&]() -> StatusOr<CacheValue<TracePreview>> {
    ASSIGN_OR_RETURN(ProfileIdentity identity, IdentityOfProfile(path));
    std::optional<TracePreview> read = ReadTracePreviewFor(path, identity, policy);
    if (!read) return NotFound("no valid trace preview of " + path);
    const size_t bytes = read->events_json.size() + read->metadata_json.size() + read->events.size() * sizeof(PreviewEvent);
    return CacheValue<TracePreview>{std::make_shared<const TracePreview>(std::move(*read)), bytes, {}};
  });
  if (!preview.ok()) return std::optional<ToolOutput>();
  std::optional<PreviewAnswer> answer =
      AnswerFromPreview(**preview, *resolution, kTraceStreamingThreshold, input.hosts[0]);
  if (!answer || uint64_t{answer->returned} * kMinTraceEventJsonBytes > input.max_output_bytes) {
    return std::optional<ToolOutput>();
  }
  ToolOutput out;
  RETURN_IF_ERROR(GrowClaimed(out.body, answer->metadata_json.size() + answer->events_json.size() + 1024,
                              "trace viewer: the answer for this window"));
  AppendStreamingHead(answer->returned, /*filtered=*/true, (*preview)->min_ps, (*preview)->max_ps,
                      /*search_truncated=*/false, out.body);
  out.body.append(answer->metadata_json).append(answer->events_json);
  AppendStreamingTail("", out.body);
  if (out.body.size() > input.max_output_bytes) return std::optional<ToolOutput>();
  return std::optional<ToolOutput>(std::move(out));
}

}  // namespace

bool PreviewCanAnswer(const ToolParams& params) {
  const std::optional<double> resolution = WholeTraceResolution(params);
  return resolution && *resolution > 0 && *resolution <= kTracePreviewMaxResolution;
}

StatusOr<ToolOutput> StreamingTraceViewerTool(const ToolInput& input) {
  if (input.profile_paths.empty()) return InvalidArgument("trace_viewer@: no xplane file selected");
  ASSIGN_OR_RETURN(std::optional<ToolOutput> from_preview, AnswerFromTracePreview(input));
  if (from_preview) return std::move(*from_preview);
  std::vector<StreamingTraceHost> hosts;
  for (size_t i = 0; i < input.profile_paths.size(); ++i) {
    ASSIGN_OR_RETURN(auto index, LoadTraceIndexCached(input.profile_paths[i], input.cache));
    hosts.push_back(StreamingTraceHost{index, i < input.hosts.size() ? input.hosts[i] : std::string()});
  }
  ASSIGN_OR_RETURN(auto json,
                   StreamingTraceJson(hosts, input.params, kTraceStreamingThreshold, input.max_output_bytes));
  ToolOutput out;
  out.body = std::move(json);
  return out;
}

StatusOr<ToolOutput> TraceViewerTool(const ToolInput& input) {
  if (input.profile_paths.empty()) return InvalidArgument("trace_viewer: no xplane file selected");
  if (ParamStr(input.params, "format") == "pb") {
    return InvalidArgument(
        "trace_viewer: format=pb (Trace protobuf) is not supported; supported formats: json (the default, when "
        "format is omitted)");
  }
  int64_t max_events = ParamInt(input.params, "max_events", kDefaultTraceMaxEvents);
  if (max_events <= 0) max_events = kDefaultTraceMaxEvents;
  // The cached index holds the model and its derived timelines (grouping a
  // large profile takes seconds: done once per file for both viewer forms).
  std::vector<std::shared_ptr<const TraceIndex>> indexes;
  std::vector<TraceHostInput> hosts;
  for (size_t i = 0; i < input.profile_paths.size(); ++i) {
    ASSIGN_OR_RETURN(auto index, LoadTraceIndexCached(input.profile_paths[i], input.cache));
    indexes.push_back(index);
    hosts.push_back(TraceHostInput{&index->space(), i < input.hosts.size() ? input.hosts[i] : std::string(),
                                   &index->derived()});
  }
  TraceJsonOptions options;
  options.max_events = max_events;
  TraceJsonResult trace = ConvertXSpacesToTraceJson(hosts, options);
  RETURN_IF_ERROR(trace.status);
  ToolOutput out;
  out.body = std::move(trace.json);
  if (CancelRequested()) return CancelledError("trace_viewer");  // a partial trace
  return out;
}

}  // namespace tbprof
