#include "convert/analysis/trace_analysis/temporal_breakdown.h"

#include "convert/analysis/trace_analysis/trace_analysis_json.h"

namespace tbprof::trace_analysis {

int64_t UnionLength(const std::vector<Interval>& intervals) {
  int64_t total = 0;
  for (const Interval& i : intervals) total += i.end_ps - i.begin_ps;
  return total;
}

TemporalRow TemporalBreakdown(const RankKernels& rank, const MergedKernels& merged) {
  TemporalRow row;
  row.rank = rank.rank;
  row.host = rank.host;
  if (merged.all.empty()) return row;
  row.has_kernels = true;
  row.kernel_ps = merged.all.back().end_ps - merged.all.front().begin_ps;
  const int64_t busy = UnionLength(merged.all);
  row.idle_ps = row.kernel_ps - busy;
  row.compute_ps = UnionLength(merged.by_type[static_cast<int>(KernelType::kComputation)]);
  row.non_compute_ps = busy - row.compute_ps;
  return row;
}

void AppendTemporalBreakdownJson(std::string& out, const std::vector<TemporalRow>& rows) {
  out += "\"temporal_breakdown\":{\"include_last_profiler_step\":true,\"rows\":[";
  for (size_t i = 0; i < rows.size(); ++i) {
    const TemporalRow& r = rows[i];
    if (i > 0) out += ',';
    out += "{\"rank\":" + std::to_string(r.rank);
    AppendStringMember(out, "host", r.host);
    const bool known = r.has_kernels;
    AppendUsMember(out, "idle_time_us", r.idle_ps, known);
    AppendUsMember(out, "compute_time_us", r.compute_ps, known);
    AppendUsMember(out, "non_compute_time_us", r.non_compute_ps, known);
    AppendUsMember(out, "kernel_time_us", r.kernel_ps, known);
    AppendPctgMember(out, "idle_time_pctg", r.idle_ps, r.kernel_ps, known);
    AppendPctgMember(out, "compute_time_pctg", r.compute_ps, r.kernel_ps, known);
    AppendPctgMember(out, "non_compute_time_pctg", r.non_compute_ps, r.kernel_ps, known);
    out += '}';
  }
  out += "]}";
}

}  // namespace tbprof::trace_analysis
