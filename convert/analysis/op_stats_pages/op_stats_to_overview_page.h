// OpStats -> overview_page (xprof op_stats_to_overview_page.cc).
// The JSON writer is shared with legacy overview_page.pb files.
#pragma once

#include <optional>
#include <string>

#include "convert/analysis/op_stats/op_stats.h"
#include "proto/overview_page.pb.h"

namespace tbprof {

tensorflow::profiler::OverviewPage ConvertOpStatsToOverviewPage(const OpStats& op_stats);

// [analysis, step-time graph, run environment, recommendation, inference latency, {}, diagnostics].
// `torch_gpu` (a PyTorch trace's) adds gpu_utilization_percent,
// sm_efficiency_percent and achieved_occupancy_percent to the analysis
// table's properties ("unknown" when absent, like its other percentages).
// `torch_steps` (a PyTorch trace's) makes the page PyTorch's: the step table
// in torch-tb-profiler's categories and PyTorch's recommendation
// (torch_step_pages.h); every table says `framework: PyTorch`.
std::string OverviewPageToJson(const tensorflow::profiler::OverviewPage& page,
                               const std::optional<TorchGpuSummary>& torch_gpu = std::nullopt,
                               const std::optional<TorchStepTable>& torch_steps = std::nullopt);

// A legacy overview_page.pb from a profiler that predates the analysis' time
// shares (TensorFlow 2.2 writes none of them): its framework-op placement
// pair, which sums to 100 % whenever it was measured, reads 0 and 0. Then
// the shares it never recorded (idle, framework-op placement, eager) are
// marked unknown instead of being shown as 0 %.
void MarkUnrecordedShares(tensorflow::profiler::OverviewPage& page);

}  // namespace tbprof
