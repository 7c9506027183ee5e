// Section 5 of trace_analysis: each stream's launch queue (HTA's
// get_queue_length_summary and get_time_spent_blocked_on_full_queue). The
// queue grows by one when a host call enqueues a device op on the stream and
// shrinks by one when that op starts; only ops whose enqueuing call is known
// count. The summary is over the queue's value after each change (as HTA's
// describe(): count, mean, sample std, min, quartiles by linear
// interpolation, max); the time blocked is how long the queue stood at
// `max_queue_length` or more, also as a share of the rank's trace.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "convert/analysis/trace_analysis/trace_analysis_kernels.h"

namespace tbprof::trace_analysis {

// HTA's default full-queue threshold (CUDA's launch queue holds 1024 entries).
inline constexpr int64_t kMaxQueueLength = 1024;
// The most points a stream's series keeps (each the largest length of its stretch).
inline constexpr size_t kMaxQueueSeriesPoints = 2000;

struct QueueStreamRow {
  int64_t rank = 0;
  std::string host;  // the rank's host: two hosts may state one rank
  int device = 0;
  int64_t stream = 0;
  int64_t count = 0;
  double mean = 0, std = 0;  // std: null (NaN) below two points
  double min = 0, p25 = 0, p50 = 0, p75 = 0, max = 0;
  int64_t blocked_ps = 0;
  int64_t trace_ps = 0;  // the rank's trace span (TraceSpanPs), for the blocked share; set by the caller
  std::vector<std::pair<int64_t, int64_t>> series;  // (time ps, length), downsampled
};

std::vector<QueueStreamRow> QueueLength(const RankKernels& rank, int64_t max_queue_length = kMaxQueueLength);

// Sets each row's trace_ps from the rank's model, which only a queue that was
// ever full needs (a share of nothing blocked is 0 whatever the span).
void SetTraceSpans(const XSpaceModel& space, std::vector<QueueStreamRow>& rows);

// `"queue_length": {"max_queue_length": N, "rows": [...], "series": [...]}`.
void AppendQueueLengthJson(std::string& out, const std::vector<QueueStreamRow>& rows);

}  // namespace tbprof::trace_analysis
