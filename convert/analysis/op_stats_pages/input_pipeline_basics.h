// What the generic (GPU, CPU) and the TPU input-pipeline analyses share: the
// summary of a step-time sample and the table properties that carry it, and
// whether a run is input bound (xprof's InputAnalysis).
#pragma once

#include <string>

#include "convert/analysis/op_stats/sample_stat.h"
#include "convert/base/data_table.h"
#include "proto/input_pipeline.pb.h"

namespace tbprof {

// The input-pipeline tool's messages, as the conversion steps name them.
using tensorflow::profiler::BottleneckAnalysis, tensorflow::profiler::Diagnostics,
    tensorflow::profiler::GenericStepTimeBreakdown, tensorflow::profiler::InputPipelineAnalysisResult,
    tensorflow::profiler::PerGenericStepDetails, tensorflow::profiler::PerTpuStepDetails,
    tensorflow::profiler::StepSummary, tensorflow::profiler::TpuBottleneckAnalysis,
    tensorflow::profiler::TpuStepTimeBreakdown;

// xprof's bottleneck thresholds, in percent of the step time, one table for
// the generic (GPU, CPU) and the TPU analyses: a cause below `moderately` is
// no bottleneck, one at `highly` or above is a high one.
struct BoundThresholds {
  double moderately = 0;
  double highly = 0;
};
inline constexpr BoundThresholds kInfeedBound{5, 20};
inline constexpr BoundThresholds kAllOtherBound{3, 15};
inline constexpr BoundThresholds kKernelLaunchBound{3, 15};
inline constexpr BoundThresholds kDeviceCollectivesBound{3, 15};
inline constexpr BoundThresholds kOutfeedBound{5, 20};
// Past these, TensorCore idle time not spent on input, and all-reduce time
// beyond the input time, are reported; below the last, SparseCoreV0 compute
// is a moderate bottleneck, else a high one.
inline constexpr double kTcIdleThresholdInPercent = 3;
inline constexpr double kAllReduceBoundThresholdInPercent = 6;
inline constexpr double kModeratelySparseCoreV0BoundThresholdInPercent = 10;

// GetStepSummaryForSampleStats: zeros for an empty sample.
StepSummary StepSummaryOf(const SampleStat<double>& stat);

// A step table's properties: "<prefix>_average", "_standard_deviation",
// "_minimum" and "_maximum" of a summary (one decimal); the hardware type and
// the step time's.
void SetSummaryProperties(const std::string& prefix, const StepSummary& summary, DataTable& t);
void SetStepTimeProperties(const InputPipelineAnalysisResult& result, DataTable& t);

// Input-bound classification and statement for an input percentage and an
// "All others" percentage (InputAnalysis); returns true when the statement
// reports All-others time.
bool ClassifyInputBound(double input_percent, double all_other_percent, std::string* classification,
                        std::string* statement);

// `fmt` with its one %s replaced by `percent` to one decimal.
std::string PercentStatement(const char* fmt, double percent);

}  // namespace tbprof
