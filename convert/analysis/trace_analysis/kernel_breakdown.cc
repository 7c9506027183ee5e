#include "convert/analysis/trace_analysis/kernel_breakdown.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "convert/analysis/trace_analysis/trace_analysis_json.h"
#include "convert/base/json.h"

namespace tbprof::trace_analysis {

std::string OverlapClassName(int mask) {
  std::string name;
  for (int t = 0; t < kNumKernelTypes; ++t) {
    if ((mask & (1 << t)) == 0) continue;
    if (!name.empty()) name += " overlapping ";
    name += KernelTypeName(static_cast<KernelType>(t));
  }
  return name;
}

void OverlapClassTimes(const MergedKernels& merged, std::array<int64_t, kNumOverlapClasses>& class_ps,
                       std::array<bool, kNumOverlapClasses>& seen) {
  // Each type's union is disjoint and by begin; the next boundary of a type is
  // its current interval's end while inside it, else the next one's begin.
  std::array<size_t, kNumKernelTypes> at{};
  int mask = 0;
  int64_t now = 0;
  for (;;) {
    int64_t next = std::numeric_limits<int64_t>::max();
    int who = -1;
    for (int t = 0; t < kNumKernelTypes; ++t) {
      const std::vector<Interval>& v = merged.by_type[t];
      if (at[t] >= v.size()) continue;
      const int64_t b = (mask & (1 << t)) ? v[at[t]].end_ps : v[at[t]].begin_ps;
      // Ends before begins at one instant, as a sweep of +/- events sorted by time gives no time to either.
      if (b < next || (b == next && (mask & (1 << t)))) next = b, who = t;
    }
    if (who < 0) break;
    if (mask != 0) {
      class_ps[mask] += next - now;
      seen[mask] = true;
    }
    now = next;
    if (mask & (1 << who)) {
      mask &= ~(1 << who);
      ++at[who];
    } else {
      mask |= 1 << who;
    }
  }
}

namespace {

std::array<std::vector<KernelNameStats>, kNumKernelTypes> StatsByName(const RankKernels& rank) {
  std::vector<KernelNameStats> by(rank.names.size());
  std::vector<double> m2(rank.names.size(), 0.0);
  for (const GpuStream& s : rank.streams) {
    for (const GpuKernel& k : s.kernels) {
      KernelNameStats& st = by[k.name];
      const int64_t d = k.end_ps - k.begin_ps;
      if (st.count == 0) st.min_ps = st.max_ps = d;
      st.min_ps = std::min(st.min_ps, d), st.max_ps = std::max(st.max_ps, d);
      st.sum_ps += d;
      ++st.count;
      const double x = PsToUs(d), delta = x - st.mean_us;  // Welford
      st.mean_us += delta / static_cast<double>(st.count);
      m2[k.name] += delta * (x - st.mean_us);
    }
  }
  std::array<std::vector<KernelNameStats>, kNumKernelTypes> out;
  for (uint32_t n = 0; n < by.size(); ++n) {
    if (by[n].count == 0) continue;
    by[n].name = n;
    by[n].stddev_us = by[n].count > 1 ? std::sqrt(m2[n] / static_cast<double>(by[n].count - 1)) : 0.0;
    out[static_cast<int>(rank.names[n].type)].push_back(by[n]);
  }
  for (auto& v : out) {
    std::stable_sort(v.begin(), v.end(), [&](const KernelNameStats& a, const KernelNameStats& b) {
      return a.sum_ps != b.sum_ps ? a.sum_ps > b.sum_ps : rank.names[a.name].text < rank.names[b.name].text;
    });
  }
  return out;
}

void AppendKernelRow(std::string& out, const KernelBreakdown& rank, KernelType type, std::string_view name,
                     int64_t count, int64_t sum_ps, int64_t max_ps, int64_t min_ps, double mean_us, double stddev_us) {
  out += "{\"rank\":" + std::to_string(rank.rank);
  AppendStringMember(out, "host", rank.host);
  AppendStringMember(out, "kernel_type", KernelTypeName(type));
  AppendStringMember(out, "name", name);
  AppendUsMember(out, "sum_us", sum_ps);
  AppendUsMember(out, "max_us", max_ps);
  AppendUsMember(out, "min_us", min_ps);
  AppendNumberMember(out, "stddev_us", stddev_us);
  AppendNumberMember(out, "mean_us", mean_us);
  out += ",\"count\":" + std::to_string(count) + '}';
}

// The kernels past the first `top` of a type as one row, their figures over
// every kernel they hold.
void AppendOthersRow(std::string& out, const KernelBreakdown& rank, KernelType type, const std::vector<KernelNameStats>& v,
                     size_t top) {
  int64_t count = 0, sum = 0, mx = 0, mn = std::numeric_limits<int64_t>::max();
  double mean_sum = 0, sq = 0;  // Σ mean·n and Σ (σ²(n-1) + n·mean²) in µs²
  for (size_t i = top; i < v.size(); ++i) {
    const KernelNameStats& s = v[i];
    count += s.count, sum += s.sum_ps, mx = std::max(mx, s.max_ps), mn = std::min(mn, s.min_ps);
    mean_sum += s.mean_us * static_cast<double>(s.count);
    sq += s.stddev_us * s.stddev_us * static_cast<double>(s.count - 1) +
          static_cast<double>(s.count) * s.mean_us * s.mean_us;
  }
  const double mean = mean_sum / static_cast<double>(count);
  const double var = count > 1 ? std::max(0.0, (sq - static_cast<double>(count) * mean * mean) /
                                                   static_cast<double>(count - 1))
                               : 0.0;
  AppendKernelRow(out, rank, type, "others", count, sum, mx, mn, mean, std::sqrt(var));
}

}  // namespace

KernelBreakdown ComputeKernelBreakdown(const RankKernels& rank, const MergedKernels& merged) {
  KernelBreakdown b;
  b.rank = rank.rank;
  b.host = rank.host;
  OverlapClassTimes(merged, b.class_ps, b.class_seen);
  b.kernels = StatsByName(rank);
  b.names.reserve(rank.names.size());
  for (const KernelName& n : rank.names) b.names.emplace_back(n.text);
  return b;
}

void AppendKernelBreakdownJson(std::string& out, const std::vector<KernelBreakdown>& rows, size_t top) {
  out += "\"kernel_breakdown\":{\"kernel_types\":[";
  bool first = true;
  for (const KernelBreakdown& b : rows) {
    int64_t total = 0;
    for (int m = 1; m < kNumOverlapClasses; ++m) total += b.class_ps[m];
    for (int m = 1; m < kNumOverlapClasses; ++m) {
      if (!b.class_seen[m]) continue;
      if (!first) out += ',';
      first = false;
      out += "{\"rank\":" + std::to_string(b.rank);
      AppendStringMember(out, "host", b.host);
      AppendStringMember(out, "kernel_type", OverlapClassName(m));
      AppendUsMember(out, "sum_us", b.class_ps[m]);
      AppendPctgMember(out, "percentage", b.class_ps[m], total);
      out += '}';
    }
  }
  out += "],\"top_kernels\":[";
  first = true;
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int t = 0; t < kNumKernelTypes; ++t) {
      const std::vector<KernelNameStats>& v = rows[r].kernels[t];
      for (size_t i = 0; i < v.size() && i < top; ++i) {
        if (!first) out += ',';
        first = false;
        const KernelNameStats& s = v[i];
        AppendKernelRow(out, rows[r], static_cast<KernelType>(t), rows[r].names[s.name], s.count,
                        s.sum_ps, s.max_ps, s.min_ps, s.mean_us, s.stddev_us);
      }
      if (v.size() > top) {
        if (!first) out += ',';
        first = false;
        AppendOthersRow(out, rows[r], static_cast<KernelType>(t), v, top);
      }
    }
  }
  out += "]}";
}

}  // namespace tbprof::trace_analysis
