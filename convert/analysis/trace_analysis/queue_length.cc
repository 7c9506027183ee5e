#include "convert/analysis/trace_analysis/queue_length.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "convert/analysis/trace_analysis/trace_analysis_json.h"
#include "convert/base/json.h"

namespace tbprof::trace_analysis {
namespace {

// The value at quantile q of a multiset given as counts per value, by linear
// interpolation between the order statistics at floor and ceil of (n-1)·q.
double Quantile(const std::vector<int64_t>& counts, int64_t n, double q) {
  const double pos = static_cast<double>(n - 1) * q;
  const int64_t lo = static_cast<int64_t>(std::floor(pos)), hi = static_cast<int64_t>(std::ceil(pos));
  double v_lo = 0, v_hi = 0;
  int64_t seen = 0;
  bool got_lo = false;
  for (size_t v = 0; v < counts.size(); ++v) {
    seen += counts[v];
    if (!got_lo && seen > lo) v_lo = static_cast<double>(v), got_lo = true;
    if (seen > hi) {
      v_hi = static_cast<double>(v);
      break;
    }
  }
  return v_lo + (v_hi - v_lo) * (pos - static_cast<double>(lo));
}

// The stream's enqueuing calls and op starts as one series by time: both are
// by begin already, so one merge. A call before an op at one instant.
template <typename F>
void ForEachQueueChange(const RankKernels& rank, uint32_t stream, const std::vector<uint32_t>& calls, F&& f) {
  const std::vector<GpuKernel>& ks = rank.streams[stream].kernels;
  size_t c = 0, k = 0;
  auto counted = [&](const GpuKernel& g) {
    return g.launch != kNoLaunch && EnqueuesWork(rank.launches[g.launch].kind);
  };
  while (k < ks.size() && !counted(ks[k])) ++k;
  while (c < calls.size() || k < ks.size()) {
    if (k >= ks.size() || (c < calls.size() && rank.launches[calls[c]].begin_ps <= ks[k].begin_ps)) {
      f(rank.launches[calls[c++]].begin_ps, +1);
    } else {
      f(ks[k].begin_ps, -1);
      for (++k; k < ks.size() && !counted(ks[k]); ++k) {
      }
    }
  }
}

QueueStreamRow SummarizeStream(const RankKernels& rank, uint32_t s, const std::vector<uint32_t>& calls,
                               int64_t max_queue_length) {
  const GpuStream& st = rank.streams[s];
  QueueStreamRow row;
  row.rank = rank.rank, row.device = st.device, row.stream = st.stream;
  row.host = rank.host;
  std::vector<int64_t> counts;
  int64_t length = 0, prev_ts = 0, n = 0;
  double mean = 0, m2 = 0;
  const size_t total_points = 2 * calls.size();
  const size_t stride = std::max<size_t>(1, (total_points + kMaxQueueSeriesPoints - 1) / kMaxQueueSeriesPoints);
  row.series.reserve(std::min(total_points, kMaxQueueSeriesPoints));
  ForEachQueueChange(rank, s, calls, [&](int64_t ts, int delta) {
    if (n > 0 && length >= max_queue_length) row.blocked_ps += ts - prev_ts;
    length += delta;
    prev_ts = ts;
    const int64_t v = std::max<int64_t>(length, 0);
    if (static_cast<size_t>(v) >= counts.size()) counts.resize(v + 1, 0);
    ++counts[v];
    ++n;
    const double d = static_cast<double>(length) - mean;
    mean += d / static_cast<double>(n);
    m2 += d * (static_cast<double>(length) - mean);
    if ((n - 1) % static_cast<int64_t>(stride) == 0) {
      row.series.push_back({ts, length});
    } else {
      row.series.back().second = std::max(row.series.back().second, length);
    }
  });
  row.count = n;
  if (n == 0) return row;
  row.mean = mean;
  row.std = n > 1 ? std::sqrt(m2 / static_cast<double>(n - 1)) : std::numeric_limits<double>::quiet_NaN();
  row.min = Quantile(counts, n, 0), row.p25 = Quantile(counts, n, 0.25), row.p50 = Quantile(counts, n, 0.5);
  row.p75 = Quantile(counts, n, 0.75), row.max = Quantile(counts, n, 1);
  return row;
}

}  // namespace

std::vector<QueueStreamRow> QueueLength(const RankKernels& rank, int64_t max_queue_length) {
  // Each stream's enqueuing calls, by begin (rank.launches is).
  std::vector<std::vector<uint32_t>> calls(rank.streams.size());
  for (uint32_t i = 0; i < rank.launches.size(); ++i) {
    if (EnqueuesWork(rank.launches[i].kind)) calls[rank.launches[i].stream].push_back(i);
  }
  std::vector<QueueStreamRow> rows;
  for (uint32_t s = 0; s < rank.streams.size(); ++s) {
    if (calls[s].empty()) continue;
    rows.push_back(SummarizeStream(rank, s, calls[s], max_queue_length));
  }
  return rows;
}

void SetTraceSpans(const XSpaceModel& space, std::vector<QueueStreamRow>& rows) {
  bool blocked = false;
  for (const QueueStreamRow& r : rows) blocked |= r.blocked_ps > 0;
  if (!blocked) return;
  const int64_t span = TraceSpanPs(space);
  for (QueueStreamRow& r : rows) r.trace_ps = span;
}

void AppendQueueLengthJson(std::string& out, const std::vector<QueueStreamRow>& rows) {
  out += "\"queue_length\":{\"max_queue_length\":" + std::to_string(kMaxQueueLength) + ",\"rows\":[";
  for (size_t i = 0; i < rows.size(); ++i) {
    const QueueStreamRow& r = rows[i];
    if (i > 0) out += ',';
    out += "{\"rank\":" + std::to_string(r.rank);
    AppendStringMember(out, "host", r.host);
    out += ",\"device\":" + std::to_string(r.device) + ",\"stream\":" + std::to_string(r.stream) +
           ",\"count\":" + std::to_string(r.count);
    const bool known = r.count > 0;
    auto num = [&](std::string_view k, double v) {
      AppendNumberMember(out, k, known && std::isfinite(v) ? std::optional<double>(v) : std::nullopt);
    };
    num("mean", r.mean), num("std", r.std), num("min", r.min), num("p25", r.p25), num("p50", r.p50);
    num("p75", r.p75), num("max", r.max);
    AppendUsMember(out, "time_blocked_on_full_queue_us", r.blocked_ps);
    if (r.blocked_ps == 0) {
      out += ",\"blocked_pctg\":0";
    } else {
      AppendPctgMember(out, "blocked_pctg", r.blocked_ps, r.trace_ps);
    }
    out += '}';
  }
  out += "],\"series\":[";
  for (size_t i = 0; i < rows.size(); ++i) {
    const QueueStreamRow& r = rows[i];
    if (i > 0) out += ',';
    out += "{\"rank\":" + std::to_string(r.rank);
    AppendStringMember(out, "host", r.host);
    out += ",\"device\":" + std::to_string(r.device) + ",\"stream\":" + std::to_string(r.stream) + ",\"points\":[";
    for (size_t p = 0; p < r.series.size(); ++p) {
      if (p > 0) out += ',';
      out += '[';
      AppendJsonDouble(out, PsToUs(r.series[p].first));
      out += ',' + std::to_string(r.series[p].second) + ']';
    }
    out += "]}";
  }
  out += "]}";
}

}  // namespace tbprof::trace_analysis
