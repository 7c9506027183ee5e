// A large trace's first picture, kept apart from its index so that a server
// restarted on a summarized profile answers the trace viewer's first request
// without loading the model (a 1 GB xplane: seconds of reading its 1.5 GB
// model and building grouping, derived lines and index before any event shows).
//
// The viewer's first request asks for the whole trace at a resolution set by
// the canvas's width. Over the whole trace, Query takes each row's events of
// the key groups above MinKeyOfResolution(span / resolution), in ShownBefore
// order, and keeps those the visibility rule shows. A preview holds every
// such candidate for the coarsest key any resolution up to
// kTracePreviewMaxResolution takes (each with its row, span, position and key)
// and the JSON the renderer writes for it as host 0 of a streaming answer; a
// request at resolution R takes the candidates above R's key (a subset of a
// ShownBefore-sorted row stays sorted) through the same ForEachVisible, and
// their JSON in order: byte for byte what the index gives.
//
// Process names carry the request's host name, which a summary does not know:
// the rows' metadata is kept with kPreviewHostMarker in its place.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/analysis/trace_viewer/trace_index.h"
#include "convert/base/status.h"

namespace tbprof {

// A 3840-pixel canvas asks for (3840 - 230) / 2 * 8 = 14440 bins.
inline constexpr double kTracePreviewMaxResolution = 16384;
// Stands for the host name in the kept metadata (a control character no
// process name holds; one that does gets no preview).
inline constexpr std::string_view kPreviewHostMarker = "\x1f";

struct PreviewEvent {
  TraceCandidate candidate;
  uint32_t row = 0;
  uint32_t json_bytes = 0;  // its JSON's length in TracePreview::events_json, in order
};

struct TracePreview {
  int64_t num_events = 0, min_ps = 0, max_ps = 0;
  int32_t min_key = 0;          // the candidates: every key group above this one
  std::string metadata_json;    // AppendTraceMetadataJson of host 0, the host name as kPreviewHostMarker
  std::vector<PreviewEvent> events;  // row by row, each row in ShownBefore order
  std::string events_json;      // each event's JSON (no separator), back to back
};

// The preview of `index`'s whole-trace answers at resolutions up to
// `max_resolution`; none when such answers are not down-sampled (fewer than
// `min_events_to_filter` events, or every event shown) or a process name
// holds the marker.
std::optional<TracePreview> BuildTracePreview(const TraceIndex& index, int64_t min_events_to_filter,
                                              double max_resolution = kTracePreviewMaxResolution);

struct PreviewAnswer {
  size_t returned = 0;
  std::string metadata_json;  // with the host's name
  std::string events_json;    // each event's JSON followed by a comma
};

// The whole-trace answer at `resolution` (already floored, as Query reads it)
// for host `host_name` (host 0 of the request): none when the preview cannot
// give it (a resolution finer than it keeps, one that shows every event, or
// no host name).
std::optional<PreviewAnswer> AnswerFromPreview(const TracePreview& preview, double resolution,
                                               int64_t min_events_to_filter, std::string_view host_name);

// The preview as bytes and back; DataLoss when `bytes` are not exactly one
// preview whose counts, rows, keys and JSON lengths hold together.
std::string SerializeTracePreview(const TracePreview& preview);
StatusOr<TracePreview> DeserializeTracePreview(std::string_view bytes);

}  // namespace tbprof
