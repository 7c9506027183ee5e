// What the generic (GPU, CPU) and the TPU input-pipeline analyses share: the
// summary of a step-time sample and the table properties that carry it, and
// whether a run is input bound (xprof's InputAnalysis).
#pragma once

#include <string>

#include "convert/analysis/common/sample_stat.h"
#include "convert/base/data_table.h"
#include "proto/input_pipeline.pb.h"

namespace tbprof {

// The input-pipeline tool's messages, as the conversion steps name them.
using tensorflow::profiler::BottleneckAnalysis, tensorflow::profiler::Diagnostics,
    tensorflow::profiler::GenericStepTimeBreakdown, tensorflow::profiler::InputPipelineAnalysisResult,
    tensorflow::profiler::PerGenericStepDetails, tensorflow::profiler::PerTpuStepDetails,
    tensorflow::profiler::StepSummary, tensorflow::profiler::TpuBottleneckAnalysis,
    tensorflow::profiler::TpuStepTimeBreakdown;

// Below this share of the step, 'All Others' time does not make a run input
// bound (percent).
constexpr double kModeratelyAllOtherBoundThresholdInPercent = 3;

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
