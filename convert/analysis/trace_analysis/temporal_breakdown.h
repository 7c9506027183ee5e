// Section 1 of trace_analysis: a rank's GPU span split into idle, compute and
// non-compute time (HTA's get_temporal_breakdown). The span runs from the
// first device op's start to the last one's end over every stream; idle is
// the span less the union of all device ops, compute the union of the
// computation kernels, non-compute the rest (memory and communication not
// hidden under computation).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convert/analysis/trace_analysis/trace_analysis_kernels.h"

namespace tbprof::trace_analysis {

struct TemporalRow {
  int64_t rank = 0;
  std::string host;  // the rank's host: two hosts may state one rank
  bool has_kernels = false;  // without device ops every figure is unknown
  int64_t idle_ps = 0, compute_ps = 0, non_compute_ps = 0, kernel_ps = 0;
};

TemporalRow TemporalBreakdown(const RankKernels& rank, const MergedKernels& merged);

// The union's length of disjoint intervals.
int64_t UnionLength(const std::vector<Interval>& intervals);

// `"temporal_breakdown": {...}` (with the member name).
void AppendTemporalBreakdownJson(std::string& out, const std::vector<TemporalRow>& rows);

}  // namespace tbprof::trace_analysis
