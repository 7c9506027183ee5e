#include "convert/analysis/trace_viewer/trace_preview.h"

#include <cmath>

#include "convert/base/json.h"
#include "convert/base/varint_codec.h"

namespace tbprof {
namespace {

// The narrowest distinguishable duration of a whole-trace query at
// `resolution`, as Query computes it; 0 when nothing is left out. Over the
// whole trace every event overlaps the window, so Query's count of them (a
// window of at most `resolution` events is returned whole) is the index's.
int64_t WholeTraceRes(const TracePreview& p, double resolution, int64_t min_events_to_filter) {
  const bool filtered = p.num_events >= min_events_to_filter && resolution > 0;
  if (!filtered || p.max_ps <= p.min_ps || static_cast<double>(p.num_events) <= resolution) return 0;
  return std::llround(static_cast<double>(p.max_ps - p.min_ps) / resolution);
}

// The marker as it stands inside the JSON strings of the metadata.
std::string EscapedMarker() {
  std::string quoted;
  AppendJsonString(quoted, kPreviewHostMarker);
  return quoted.substr(1, quoted.size() - 2);
}

std::string WithHostName(const std::string& metadata, std::string_view host_name) {
  std::string host;
  AppendJsonString(host, host_name);
  host = host.substr(1, host.size() - 2);
  const std::string marker = EscapedMarker();
  std::string out;
  size_t from = 0;
  for (size_t at = metadata.find(marker); at != std::string::npos; at = metadata.find(marker, from)) {
    out.append(metadata, from, at - from).append(host);
    from = at + marker.size();
  }
  return out.append(metadata, from);
}

}  // namespace

std::optional<TracePreview> BuildTracePreview(const TraceIndex& index, int64_t min_events_to_filter,
                                              double max_resolution) {
  TracePreview p;
  p.num_events = index.num_events(), p.min_ps = index.min_ps(), p.max_ps = index.max_ps();
  const int64_t res = WholeTraceRes(p, max_resolution, min_events_to_filter);
  if (res == 0) return std::nullopt;
  p.min_key = MinKeyOfResolution(res);
  std::string without_host;
  AppendTraceMetadataJson(index.layout(), /*streaming=*/true, StreamingPidOffset(0), "", without_host);
  if (without_host.find(EscapedMarker()) != std::string::npos) return std::nullopt;
  AppendTraceMetadataJson(index.layout(), /*streaming=*/true, StreamingPidOffset(0), kPreviewHostMarker,
                          p.metadata_json);
  // As the streaming answer renders host 0's events (trace_viewer_tools' AppendHits).
  TraceEventStyle style;
  style.streaming = true;
  style.with_stats = true;
  style.host_index = 0;
  style.pid_offset = StreamingPidOffset(0);
  const std::vector<TraceRow>& rows = index.layout().rows;
  for (size_t r = 0; r < rows.size(); ++r) {
    for (const TraceCandidate& c : index.WholeTraceCandidates(r, p.min_key)) {
      const size_t before = p.events_json.size();
      style.uid = c.pos;
      index.renderer().Append(rows[r], index.EventAt(c.pos), style, p.events_json);
      p.events.push_back(PreviewEvent{c, static_cast<uint32_t>(r), static_cast<uint32_t>(p.events_json.size() - before)});
    }
  }
  return p;
}

std::optional<PreviewAnswer> AnswerFromPreview(const TracePreview& p, double resolution, int64_t min_events_to_filter,
                                               std::string_view host_name) {
  const int64_t res = WholeTraceRes(p, resolution, min_events_to_filter);
  if (host_name.empty() || res == 0) return std::nullopt;
  const int min_key = MinKeyOfResolution(res);
  if (min_key < p.min_key) return std::nullopt;
  PreviewAnswer answer;
  answer.metadata_json = WithHostName(p.metadata_json, host_name);
  std::vector<TraceCandidate> row;
  std::vector<std::pair<size_t, uint32_t>> json;  // each of `row`'s JSON: offset, length
  std::vector<int64_t> last_end;
  size_t at = 0;
  for (size_t i = 0; i < p.events.size();) {
    row.clear(), json.clear();
    for (const uint32_t r = p.events[i].row; i < p.events.size() && p.events[i].row == r; ++i) {
      if (static_cast<int>(p.events[i].candidate.key) > min_key) {
        row.push_back(p.events[i].candidate);
        json.emplace_back(at, p.events[i].json_bytes);
      }
      at += p.events[i].json_bytes;
    }
    ForEachVisible(row, res, last_end, [&](const TraceCandidate& c) {
      const auto [offset, bytes] = json[static_cast<size_t>(&c - row.data())];
      answer.events_json.append(p.events_json, offset, bytes).push_back(',');
      ++answer.returned;
      return true;
    });
  }
  return answer;
}

std::string SerializeTracePreview(const TracePreview& p) {
  VarintWriter s;
  s.I(p.num_events), s.I(p.min_ps), s.I(p.max_ps), s.I(p.min_key);
  s.S(p.metadata_json);
  s.U(p.events.size());
  for (const PreviewEvent& e : p.events) {
    s.U(e.row), s.U(e.candidate.pos), s.U(e.candidate.key), s.I(e.candidate.begin), s.I(e.candidate.end);
    s.U(e.json_bytes);
  }
  s.S(p.events_json);
  return s.Take();
}

StatusOr<TracePreview> DeserializeTracePreview(std::string_view bytes) {
  VarintReader s(bytes);
  TracePreview p;
  p.num_events = s.I(), p.min_ps = s.I(), p.max_ps = s.I();
  const int64_t min_key = s.I();
  if (min_key < -1 || min_key > 64 || p.num_events < 0 || p.max_ps < p.min_ps) s.Fail();
  p.min_key = static_cast<int32_t>(min_key);
  p.metadata_json = s.S();
  // Each event takes at least six bytes: Count bounds the vector by the bytes left.
  const uint64_t n = s.Count();
  p.events.reserve(n / 6);
  uint64_t json_total = 0;
  for (uint64_t i = 0; i < n && s.ok(); ++i) {
    PreviewEvent e;
    e.row = s.U32(), e.candidate.pos = s.U32(), e.candidate.key = s.U32();
    e.candidate.begin = s.I(), e.candidate.end = s.I();
    e.json_bytes = s.U32();
    const bool rows_in_order = p.events.empty() || p.events.back().row <= e.row;
    if (!rows_in_order || static_cast<int64_t>(e.candidate.key) <= min_key || e.candidate.key > 64 ||
        e.candidate.end < e.candidate.begin) {
      s.Fail();
    }
    json_total += e.json_bytes;
    p.events.push_back(e);
  }
  p.events_json = s.S();
  if (!s.ok() || !s.done() || json_total != p.events_json.size()) {
    return DataLoss("a damaged trace preview: cut short or garbled");
  }
  return p;
}

}  // namespace tbprof
