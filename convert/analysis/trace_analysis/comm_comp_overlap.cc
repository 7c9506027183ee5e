#include "convert/analysis/trace_analysis/comm_comp_overlap.h"

#include <algorithm>

#include "convert/analysis/trace_analysis/temporal_breakdown.h"
#include "convert/analysis/trace_analysis/trace_analysis_json.h"

namespace tbprof::trace_analysis {

int64_t IntersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  int64_t total = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t lo = std::max(a[i].begin_ps, b[j].begin_ps), hi = std::min(a[i].end_ps, b[j].end_ps);
    if (hi > lo) total += hi - lo;
    if (a[i].end_ps < b[j].end_ps) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

CommCompOverlapRow CommCompOverlap(const RankKernels& rank, const MergedKernels& merged) {
  const std::vector<Interval>& comm = merged.by_type[static_cast<int>(KernelType::kCommunication)];
  const std::vector<Interval>& comp = merged.by_type[static_cast<int>(KernelType::kComputation)];
  CommCompOverlapRow row;
  row.rank = rank.rank;
  row.host = rank.host;
  row.overlap_ps = IntersectionLength(comm, comp);
  row.communication_ps = UnionLength(comm);
  return row;
}

void AppendCommCompOverlapJson(std::string& out, const std::vector<CommCompOverlapRow>& rows) {
  out += "\"comm_comp_overlap\":{\"rows\":[";
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"rank\":" + std::to_string(rows[i].rank);
    AppendStringMember(out, "host", rows[i].host);
    AppendUsMember(out, "overlap_us", rows[i].overlap_ps);
    AppendUsMember(out, "communication_us", rows[i].communication_ps);
    AppendPctgMember(out, "comp_comm_overlap_pctg", rows[i].overlap_ps, rows[i].communication_ps);
    out += '}';
  }
  out += "]}";
}

}  // namespace tbprof::trace_analysis
