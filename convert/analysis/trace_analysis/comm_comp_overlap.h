// Section 3 of trace_analysis: the share of a rank's communication time that
// computation hides (HTA's get_comm_comp_overlap): the time both the union of
// communication kernels and that of computation kernels run, over the
// communication union's length. Unknown (null) without communication.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convert/analysis/trace_analysis/trace_analysis_kernels.h"

namespace tbprof::trace_analysis {

struct CommCompOverlapRow {
  int64_t rank = 0;
  std::string host;  // the rank's host: two hosts may state one rank
  int64_t overlap_ps = 0, communication_ps = 0;
};

CommCompOverlapRow CommCompOverlap(const RankKernels& rank, const MergedKernels& merged);

// The length both of two disjoint, sorted interval lists cover.
int64_t IntersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b);

// `"comm_comp_overlap": {"rows": [...]}`.
void AppendCommCompOverlapJson(std::string& out, const std::vector<CommCompOverlapRow>& rows);

}  // namespace tbprof::trace_analysis
