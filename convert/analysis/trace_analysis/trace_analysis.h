// The trace_analysis tool's answer: HTA's analyses of every selected rank,
// one JSON member per section, the ranks side by side (ALL_HOSTS is the same
// answer over more ranks). In two steps: each rank's sections from its model
// (rank_sections.h: its GPU work read once, trace_analysis_kernels, and every
// section reads that), then the ranks' sections joined into the JSON, the
// parts across ranks (stragglers' band, the critical path's longest rank)
// computed there. A rank's sections may come from its summary instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "convert/analysis/trace_analysis/rank_sections.h"
#include "convert/base/status.h"
#include "convert/model/xspace_model.h"

namespace tbprof::trace_analysis {

struct RankModel {
  const XSpaceModel* model = nullptr;
  std::string host;
  int64_t fallback_rank = 0;  // the rank when the trace states none: the host's position
};

struct HostLeftOut {
  std::string host, reason;
};

struct TraceAnalysisOptions {
  size_t top_kernels = 10;  // per kernel type and rank; the rest is one "others" row
  std::optional<int64_t> critical_path_step;  // none: the first step
};

// The whole answer. `left_out`: hosts that could not be read.
std::string TraceAnalysisJson(const std::vector<RankModel>& ranks, const std::vector<HostLeftOut>& left_out,
                              const TraceAnalysisOptions& options = {});

// The answer from ranks' sections (AssignRank done), in the order given;
// `top_kernels` as TraceAnalysisOptions'. The rows are moved into the answer.
std::string CombineRanksJson(std::vector<RankSections> ranks, const std::vector<HostLeftOut>& left_out,
                             size_t top_kernels);

}  // namespace tbprof::trace_analysis
