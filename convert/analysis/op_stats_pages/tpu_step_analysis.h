// TPU step analysis (the TPU parts of xprof's op_stats_to_input_pipeline_analysis
// with ProfileTimeBreakdown and the TPU step-breakdown helpers): a core's step
// by HLO category -> its TPU breakdown; the cores of one step -> the step's
// PerTpuStepDetails; the steps -> the TPU input-pipeline result and tables.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/analysis/op_stats/xplane_to_step_events.h"
#include "convert/base/data_table.h"
#include "proto/input_pipeline.pb.h"

namespace tbprof {

// One TensorCore's step in the terms of xprof's TpuStepBreakdown (ps).
struct TpuStepBreakdown {
  uint64_t infeed_duration_ps = 0, host_outfeed_ps = 0, wait_for_scv0_duration_ps = 0, scv0_infeed_transform_ps = 0,
           scv0_outfeed_ps = 0, crs_duration_ps = 0, send_duration_ps = 0, recv_duration_ps = 0,
           host_send_duration_ps = 0, host_recv_duration_ps = 0, wait_for_megacore_fusion_peer_duration_ps = 0,
           high_flops_compute_ps = 0, tc_idle_ps = 0, tc_busy_ps = 0;
  double scv0_infeed_percent = 0;
};

// The breakdown of a step of `step_time_ps` from its ops' self time by HLO
// category (IDLE ignored: idle is what the categories leave of the step, in
// unsigned arithmetic as xprof's, so ops outlasting the step wrap it).
TpuStepBreakdown TpuStepBreakdownOf(const std::map<std::string, uint64_t>& category_ps, uint64_t step_time_ps);

// A sample's running statistics as tsl::Stat<T> keeps them: min starts at
// T's max, max at numeric_limits<T>::min() (the smallest positive double for
// double), the sum in T.
template <typename T>
class SampleStat {
 public:
  void Update(T v) {
    ++count_;
    sum_ += v;
    squared_sum_ += static_cast<double>(v) * static_cast<double>(v);
    min_ = v < min_ ? v : min_;
    max_ = v > max_ ? v : max_;
    all_same_ = count_ == 1 || (all_same_ && v == first_);
    if (count_ == 1) first_ = v;
  }
  bool empty() const { return count_ == 0; }
  double avg() const { return static_cast<double>(sum_) / static_cast<double>(count_); }
  T min() const { return min_; }
  T max() const { return max_; }
  double sample_variance() const {
    if (all_same_ || count_ < 2) return 0;
    double n = static_cast<double>(count_), sum = static_cast<double>(sum_);
    return (squared_sum_ - sum * sum / n) / (n - 1);
  }

 private:
  uint64_t count_ = 0;
  T sum_{};
  double squared_sum_ = 0;
  T min_ = std::numeric_limits<T>::max(), max_ = std::numeric_limits<T>::min(), first_{};
  bool all_same_ = true;
};

// GetStepSummaryForSampleStats: zeros for an empty sample.
tensorflow::profiler::StepSummary StepSummaryOf(const SampleStat<double>& stat);

// One step across its cores (xprof ComputeTpuPerStepDataAcrossCores). A
// figure no core contributed to stays at the proto's empty value.
tensorflow::profiler::PerTpuStepDetails ComputeTpuPerStepDataAcrossCores(
    const PerCoreStepInfo& step, const std::map<uint32_t, CoreDetails>& core_details);

// Without an infeed op on the device, a TensorCore waits for its input idle:
// the step's share of host input time (HOST_WAIT_INPUT and HOST_TO_DEVICE
// of the host step with the same number) over the step's idle time moves
// that part of each TensorCore's IDLE to "infeed" (xprof MayFixTpuStepAnalysis).
void MayFixTpuStepAnalysis(const StepEvents& host_step_events, const OpMetricsDb& device_op_metrics_db,
                           std::vector<PerCoreStepInfo>& step_db, const std::map<uint32_t, CoreDetails>& core_details);

// The TPU input-pipeline result's steps, summaries and bottleneck
// (ComputeTpuInputPipelineAnalysisResult + ComputeTpuBottleneckAnalysis);
// the caller adds the host's input ops, recommendation and diagnostics.
void ComputeTpuInputPipelineAnalysis(const OpStats& op_stats,
                                     tensorflow::profiler::InputPipelineAnalysisResult& result);

// The TPU step-time table (GenerateTpuInputPipelineAnalysisDataTable), also
// the overview page's step graph on TPU.
DataTable TpuStepBreakdownTable(const tensorflow::profiler::InputPipelineAnalysisResult& result);

// The step number and the core that waited longest for input, per step
// (GenerateMaxInfeedCoreTable); TPU results only.
DataTable MaxInfeedCoreTable(const tensorflow::profiler::InputPipelineAnalysisResult& result);

}  // namespace tbprof
