// Section 7 of trace_analysis, `stragglers`: rank by rank, step time and the
// GPU's compute, communication and idle time (the figures the temporal and
// kernel breakdowns of the same answer show, passed in, not computed again),
// the ranks whose step time lies above the band flagged; and, where NCCL
// kernels record their message sizes, each collective's bus bandwidth per
// rank (TraceLens's NCCL analysis: algorithm bandwidth = bytes / kernel time,
// bus bandwidth = that × 2(n−1)/n for all-reduce, (n−1)/n for all-gather,
// reduce-scatter and all-to-all, × 1 otherwise; all-gather's bytes are its
// output's, the others' their input's).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/analysis/trace_analysis/temporal_breakdown.h"
#include "convert/analysis/trace_analysis/trace_analysis_kernels.h"
#include "convert/model/xspace_model.h"

namespace tbprof::trace_analysis {

// One rank's figures, in microseconds.
struct StragglerInput {
  int rank = 0;
  std::optional<double> step_time_us;  // mean step span; unknown without steps
  std::optional<double> compute_us, communication_us, idle_us;
  std::string host;  // the rank's host: two hosts may state one rank
};

// The band: a rank straggles when its step time exceeds
// max(median × kStragglerRatio, median + kStragglerMads × MAD) over the ranks;
// with fewer than three ranks, median × kStragglerRatio (two ranks' MAD is
// half their difference, so the MAD edge would never be passed).
inline constexpr double kStragglerRatio = 1.1;
inline constexpr double kStragglerMads = 3.0;

struct StragglerRow {
  StragglerInput figures;
  bool straggler = false;
  std::string reason;  // empty: none
};

struct Stragglers {
  std::optional<double> median_us, mad_us, threshold_us;  // unknown when no rank has steps
  std::vector<StragglerRow> rows;
};

Stragglers FindStragglers(const std::vector<StragglerInput>& ranks);

// A rank's figures as the answer's other sections have them: compute and
// idle from its temporal breakdown, communication the union of its
// COMMUNICATION kernels (the kernel breakdown's), step time its mean step.
StragglerInput StragglerFiguresOf(const XSpaceModel& space, const RankKernels& rank, const TemporalRow& temporal,
                                  const MergedKernels& merged);

// The mean span of the host's steps (events with a step number), µs.
std::optional<double> MeanStepTimeUs(const XSpaceModel& space);

struct CollectiveRow {
  int rank = 0;
  std::string host;  // the rank's host: two hosts may state one rank
  std::string name;  // the collective ("allreduce", "_allgather_base", ...)
  int64_t count = 0;
  double bytes = 0;
  int64_t time_ps = 0;
  std::optional<double> bus_bandwidth_gbps;  // unknown when no call recorded a group size
};

// The NCCL kernels of one rank that carry "Collective name" and message sizes.
std::vector<CollectiveRow> CollectiveBandwidth(const XSpaceModel& space, int rank, std::string_view host = {});

void AppendStragglersJson(const Stragglers& s, const std::vector<CollectiveRow>& collectives, std::string& out);

}  // namespace tbprof::trace_analysis
