// Section 4 of trace_analysis: each stream's idle time between consecutive
// device ops, by why (HTA's get_idle_time_breakdown, default thresholds):
// host_wait when the op's launch began after the previous op ended (the host
// did not enqueue fast enough); kernel_wait when it did not and the gap is
// under `consecutive_kernel_delay` (the cost of launching back to back);
// other otherwise. The ratios are of the stream's idle time (null when none).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "convert/analysis/trace_analysis/trace_analysis_kernels.h"

namespace tbprof::trace_analysis {

// HTA's default: 30 µs.
inline constexpr int64_t kConsecutiveKernelDelayPs = 30'000'000;

enum class IdleCategory : uint8_t { kHostWait = 0, kKernelWait = 1, kOther = 2 };
inline constexpr int kNumIdleCategories = 3;
std::string_view IdleCategoryName(IdleCategory c);  // "host_wait", "kernel_wait", "other"

struct IdleStreamRow {
  int64_t rank = 0;
  std::string host;  // the rank's host: two hosts may state one rank
  int device = 0;
  int64_t stream = 0;
  std::array<int64_t, kNumIdleCategories> idle_ps{};
  std::array<int64_t, kNumIdleCategories> gaps{};  // how many gaps each category holds
};

std::vector<IdleStreamRow> IdleTimeBreakdown(const RankKernels& rank,
                                             int64_t consecutive_kernel_delay_ps = kConsecutiveKernelDelayPs);

// `"idle_time_breakdown": {"thresholds": {...}, "rows": [...]}`, a row per category of each stream.
void AppendIdleTimeBreakdownJson(std::string& out, const std::vector<IdleStreamRow>& rows);

}  // namespace tbprof::trace_analysis
