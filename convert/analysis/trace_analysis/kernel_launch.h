// Section 6 of trace_analysis: each launch and the device op it started,
// linked by correlation id (HTA's get_cuda_kernel_launch_stats): the launch
// call's CPU duration, the op's GPU duration and the launch delay (the op's
// start less the call's end, 0 when the op starts first). Summaries per
// rank: short kernels (GPU time under the call's, for calls up to
// `runtime_cutoff`), runtime outliers
// (calls longer than `runtime_cutoff`), launch-delay outliers (delays over
// `launch_delay_cutoff`), the delay's mean and percentiles and a histogram.
// Launches are the calls that enqueue work: cudaLaunchKernel[ExC],
// cudaMemcpyAsync / cudaMemsetAsync (HTA's set), and also cuLaunchKernel[Ex]
// and the hip… launches, which HTA's launch statistics leave out.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "convert/analysis/trace_analysis/trace_analysis_kernels.h"

namespace tbprof::trace_analysis {

// HTA's defaults.
inline constexpr int64_t kRuntimeCutoffPs = 50'000'000;       // 50 µs
inline constexpr int64_t kLaunchDelayCutoffPs = 100'000'000;  // 100 µs
// The most launches listed per rank (the summaries count every one).
inline constexpr size_t kMaxListedLaunches = 5000;

struct LaunchRow {
  int64_t correlation = 0;
  LaunchKind kind = LaunchKind::kOther;
  int64_t cpu_ps = 0, gpu_ps = 0, delay_ps = 0;
};

// Histogram bins of the launch delay, in µs: [from, to), the last open.
inline constexpr std::array<int64_t, 11> kDelayBinFromUs = {0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};

struct KernelLaunchSummary {
  int64_t rank = 0;
  std::string host;  // the rank's host: two hosts may state one rank
  std::vector<LaunchRow> launches;  // by launch begin
  int64_t short_kernels = 0, runtime_outliers = 0, launch_delay_outliers = 0;
  double mean_delay_us = 0, p50_delay_us = 0, p95_delay_us = 0;
  std::array<int64_t, kDelayBinFromUs.size()> delay_bins{};
};

KernelLaunchSummary KernelLaunchStats(const RankKernels& rank);

// `"kernel_launch": {"thresholds", "summary", "delay_histogram", "launches", "launches_total"}`.
void AppendKernelLaunchJson(std::string& out, const std::vector<KernelLaunchSummary>& rows);

}  // namespace tbprof::trace_analysis
