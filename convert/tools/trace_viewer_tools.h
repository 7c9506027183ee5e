// The `trace_viewer` and `trace_viewer@` tools.
//
// trace_viewer (non-streaming): the whole trace as Chrome trace-event JSON,
//   capped at `max_events` (default 1,000,000, xprof's limit) earliest events;
//   the document's "eventLimit" object says how many were dropped.
// trace_viewer@ (streaming), answered from a per-host TraceIndex cached in
//   ToolInput.cache under "trace_index|<file identity>" (memory only; nothing
//   is written next to the profile):
//   - `start_time_ms`, `end_time_ms` (window on the ts axis, ms; 0,0 = all),
//     `resolution` (bins across the window, default 8000; 0 = every event):
//     the events visible at that resolution, with returnedEventsSize,
//     filteredByVisibility, fullTimespan, showCounterMessage, …
//   - `search_prefix` (+ `search_metadata=true`): every event of the trace
//     whose name starts with the prefix (ASCII case ignored).
//   - `event_name` + `start_time_ms` (the event's ts in ms) [+ `duration_ms`,
//     `unique_id` = args.uid of the event]: that one event with its args.
//   - `critical_path=STEP` (empty: the first step) with any of the above: the
//     step's critical path on every host (trace_analysis/critical_path.h) as
//     flow events (ph "s" → "f", cat "critical_path") between the events on
//     it, and "criticalPath": {"hosts": [{step, length_us, flows}]}.
//   Malformed numbers give InvalidArgument, like xprof's GetTraceViewOption.
//   A one-host request for the whole trace at a resolution up to
//   kTracePreviewMaxResolution (the viewer's first request) is answered from
//   the profile's trace preview (trace_preview_file.h) while its index is
//   not loaded, byte for byte the index's answer.
#pragma once

#include <memory>
#include <string>

#include "convert/analysis/trace_viewer/trace_index.h"
#include "convert/base/status.h"
#include "convert/tools/artifact_cache.h"
#include "convert/tools/tool_io.h"

namespace tbprof {

StatusOr<ToolOutput> TraceViewerTool(const ToolInput& input);
StatusOr<ToolOutput> StreamingTraceViewerTool(const ToolInput& input);

// Whether trace_viewer@ `params` ask for what a trace preview keeps: the
// whole trace at a resolution up to kTracePreviewMaxResolution, nothing else.
bool PreviewCanAnswer(const ToolParams& params);

// The index of one xplane file, built once and kept in `cache` (may be null).
StatusOr<std::shared_ptr<const TraceIndex>> LoadTraceIndexCached(const std::string& path, ArtifactCache* cache);

struct StreamingTraceHost {
  std::shared_ptr<const TraceIndex> index;
  std::string host_name;
};

// The streaming response for already-built indexes; `params` as the tool's.
// `min_events_to_filter` is xprof's 500,000-event streaming threshold.
// A window whose JSON would exceed `max_bytes` is ResourceExhausted, found
// before most of it is built (every event takes at least kMinTraceEventJsonBytes).
inline constexpr uint64_t kMinTraceEventJsonBytes = 64;
StatusOr<std::string> StreamingTraceJson(const std::vector<StreamingTraceHost>& hosts, const ToolParams& params,
                                         int64_t min_events_to_filter = kTraceStreamingThreshold,
                                         uint64_t max_bytes = UINT64_MAX);

}  // namespace tbprof
