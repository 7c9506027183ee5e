// The trace_analysis tool's answer: HTA's analyses of every selected rank,
// one JSON member per section, the ranks side by side (ALL_HOSTS is the same
// answer over more ranks). Each rank's GPU work is read once
// (trace_analysis_kernels) and every section reads that.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "convert/analysis/trace_analysis/trace_analysis_kernels.h"
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

// Every rank's GPU work, in the order given.
std::vector<RankKernels> ExtractRanks(const std::vector<RankModel>& ranks);

// The whole answer. `left_out`: hosts that could not be read.
std::string TraceAnalysisJson(const std::vector<RankModel>& ranks, const std::vector<HostLeftOut>& left_out,
                              const TraceAnalysisOptions& options = {});

}  // namespace tbprof::trace_analysis
