#include "convert/analysis/trace_analysis/kernel_launch.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "convert/analysis/trace_analysis/trace_analysis_json.h"

namespace tbprof::trace_analysis {
namespace {

std::string_view LaunchKindName(LaunchKind k) {
  switch (k) {
    case LaunchKind::kKernel: return "kernel";
    case LaunchKind::kCopy: return "memory";
    case LaunchKind::kDriver: return "driver";
    case LaunchKind::kHip: return "hip";
    case LaunchKind::kOther: break;
  }
  return "other";
}

// The percentile as numpy's default (linear between order statistics).
double Percentile(std::vector<int64_t>& v, double q) {
  const double pos = static_cast<double>(v.size() - 1) * q;
  const size_t lo = static_cast<size_t>(std::floor(pos));
  std::nth_element(v.begin(), v.begin() + lo, v.end());
  const double a = static_cast<double>(v[lo]);
  if (lo + 1 >= v.size()) return a / 1e6;
  const double b = static_cast<double>(*std::min_element(v.begin() + lo + 1, v.end()));
  return (a + (b - a) * (pos - static_cast<double>(lo))) / 1e6;
}

}  // namespace

KernelLaunchSummary KernelLaunchStats(const RankKernels& rank) {
  KernelLaunchSummary s;
  s.rank = rank.rank;
  s.host = rank.host;
  std::vector<int64_t> delays;
  double delay_sum = 0;
  for (const Launch& l : rank.launches) {
    if (!EnqueuesWork(l.kind)) continue;
    const GpuKernel& k = rank.streams[l.stream].kernels[l.kernel];
    // A device op that starts before its call returns has no delay (HTA's max(0, …)).
    LaunchRow row{l.correlation, l.kind, l.end_ps - l.begin_ps, k.end_ps - k.begin_ps,
                  std::max<int64_t>(0, k.begin_ps - l.end_ps)};
    if (row.cpu_ps <= kRuntimeCutoffPs && row.gpu_ps < row.cpu_ps) ++s.short_kernels;
    if (row.cpu_ps > kRuntimeCutoffPs) ++s.runtime_outliers;
    if (row.delay_ps > kLaunchDelayCutoffPs) ++s.launch_delay_outliers;
    size_t bin = 0;
    while (bin + 1 < kDelayBinFromUs.size() && row.delay_ps >= kDelayBinFromUs[bin + 1] * 1'000'000) ++bin;
    ++s.delay_bins[bin];
    delays.push_back(row.delay_ps);
    delay_sum += PsToUs(row.delay_ps);
    s.launches.push_back(row);
  }
  if (!delays.empty()) {
    s.mean_delay_us = delay_sum / static_cast<double>(delays.size());
    s.p50_delay_us = Percentile(delays, 0.5);
    s.p95_delay_us = Percentile(delays, 0.95);
  }
  return s;
}

void AppendKernelLaunchJson(std::string& out, const std::vector<KernelLaunchSummary>& rows) {
  out += "\"kernel_launch\":{\"thresholds\":{\"runtime_cutoff_us\":" + std::to_string(kRuntimeCutoffPs / 1'000'000) +
         ",\"launch_delay_cutoff_us\":" + std::to_string(kLaunchDelayCutoffPs / 1'000'000) + "},\"summary\":[";
  int64_t total = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const KernelLaunchSummary& s = rows[i];
    const int64_t n = static_cast<int64_t>(s.launches.size());
    total += n;
    if (i > 0) out += ',';
    out += "{\"rank\":" + std::to_string(s.rank);
    AppendStringMember(out, "host", s.host);
    out += ",\"launches\":" + std::to_string(n) + ",\"short_kernels\":" + std::to_string(s.short_kernels);
    AppendPctgMember(out, "short_kernel_pctg", s.short_kernels, n);
    out += ",\"runtime_outliers\":" + std::to_string(s.runtime_outliers) +
           ",\"launch_delay_outliers\":" + std::to_string(s.launch_delay_outliers);
    const bool known = n > 0;
    AppendNumberMember(out, "mean_launch_delay_us", known ? std::optional<double>(s.mean_delay_us) : std::nullopt);
    AppendNumberMember(out, "p50_launch_delay_us", known ? std::optional<double>(s.p50_delay_us) : std::nullopt);
    AppendNumberMember(out, "p95_launch_delay_us", known ? std::optional<double>(s.p95_delay_us) : std::nullopt);
    out += '}';
  }
  out += "],\"delay_histogram\":[";
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"rank\":" + std::to_string(rows[i].rank);
    AppendStringMember(out, "host", rows[i].host);
    out += ",\"bins\":[";
    for (size_t b = 0; b < kDelayBinFromUs.size(); ++b) {
      if (b > 0) out += ',';
      out += "{\"from_us\":" + std::to_string(kDelayBinFromUs[b]) + ",\"to_us\":" +
             (b + 1 < kDelayBinFromUs.size() ? std::to_string(kDelayBinFromUs[b + 1]) : std::string("null")) +
             ",\"count\":" + std::to_string(rows[i].delay_bins[b]) + '}';
    }
    out += "]}";
  }
  out += "],\"launches\":[";
  bool first = true;
  for (const KernelLaunchSummary& s : rows) {
    for (size_t i = 0; i < s.launches.size() && i < kMaxListedLaunches; ++i) {
      const LaunchRow& l = s.launches[i];
      if (!first) out += ',';
      first = false;
      out += "{\"rank\":" + std::to_string(s.rank);
      AppendStringMember(out, "host", s.host);
      out += ",\"correlation\":" + std::to_string(l.correlation);
      AppendStringMember(out, "launch", LaunchKindName(l.kind));
      AppendUsMember(out, "cpu_duration_us", l.cpu_ps);
      AppendUsMember(out, "gpu_duration_us", l.gpu_ps);
      AppendUsMember(out, "launch_delay_us", l.delay_ps);
      out += '}';
    }
  }
  out += "],\"launches_total\":" + std::to_string(total) + '}';
}

}  // namespace tbprof::trace_analysis
