#include "convert/analysis/trace_analysis/idle_time_breakdown.h"

#include "convert/analysis/trace_analysis/trace_analysis_json.h"

namespace tbprof::trace_analysis {

std::string_view IdleCategoryName(IdleCategory c) {
  switch (c) {
    case IdleCategory::kHostWait: return "host_wait";
    case IdleCategory::kKernelWait: return "kernel_wait";
    case IdleCategory::kOther: break;
  }
  return "other";
}

std::vector<IdleStreamRow> IdleTimeBreakdown(const RankKernels& rank, int64_t consecutive_kernel_delay_ps) {
  std::vector<IdleStreamRow> rows;
  rows.reserve(rank.streams.size());
  for (const GpuStream& s : rank.streams) {
    if (s.kernels.empty()) continue;
    IdleStreamRow row;
    row.rank = rank.rank, row.device = s.device, row.stream = s.stream;
    row.host = rank.host;
    for (size_t i = 1; i < s.kernels.size(); ++i) {
      const GpuKernel& k = s.kernels[i];
      const int64_t prev_end = s.kernels[i - 1].end_ps;
      const int64_t gap = k.begin_ps - prev_end;
      IdleCategory c = IdleCategory::kOther;
      if (k.launch != kNoLaunch && rank.launches[k.launch].begin_ps > prev_end) {
        c = IdleCategory::kHostWait;
      } else if (gap < consecutive_kernel_delay_ps) {
        c = IdleCategory::kKernelWait;
      }
      // The gap as HTA sums it: the previous op's end to this one's start,
      // negative where a stream's ops overlap.
      row.idle_ps[static_cast<int>(c)] += gap;
      ++row.gaps[static_cast<int>(c)];
    }
    rows.push_back(row);
  }
  return rows;
}

void AppendIdleTimeBreakdownJson(std::string& out, const std::vector<IdleStreamRow>& rows) {
  out += "\"idle_time_breakdown\":{\"thresholds\":{";
  out += "\"consecutive_kernel_delay_us\":" + std::to_string(kConsecutiveKernelDelayPs / 1'000'000);
  out += "},\"rows\":[";
  bool first = true;
  for (const IdleStreamRow& r : rows) {
    int64_t total = 0;
    for (int64_t v : r.idle_ps) total += v;
    for (int c = 0; c < kNumIdleCategories; ++c) {
      if (!first) out += ',';
      first = false;
      out += "{\"rank\":" + std::to_string(r.rank);
      AppendStringMember(out, "host", r.host);
      out += ",\"device\":" + std::to_string(r.device) + ",\"stream\":" + std::to_string(r.stream);
      AppendStringMember(out, "idle_category", IdleCategoryName(static_cast<IdleCategory>(c)));
      AppendUsMember(out, "idle_time_us", r.idle_ps[c]);
      out += ",\"gaps\":" + std::to_string(r.gaps[c]);
      AppendNumberMember(out, "idle_time_ratio",
                         total > 0 ? std::optional<double>(static_cast<double>(r.idle_ps[c]) /
                                                           static_cast<double>(total))
                                   : std::nullopt);
      out += '}';
    }
  }
  out += "]}";
}

}  // namespace tbprof::trace_analysis
