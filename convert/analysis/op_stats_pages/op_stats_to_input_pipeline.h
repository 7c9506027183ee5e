// OpStats -> input_pipeline_analyzer (xprof op_stats_to_input_pipeline_analysis.cc).
// The JSON writer is shared with legacy input_pipeline.pb.
#pragma once

#include <string>

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/base/data_table.h"
#include "proto/input_pipeline.pb.h"

namespace tbprof {

// The input-pipeline tool's messages, as the conversion steps name them.
using tensorflow::profiler::BottleneckAnalysis, tensorflow::profiler::Diagnostics,
    tensorflow::profiler::GenericStepTimeBreakdown, tensorflow::profiler::InputPipelineAnalysisResult,
    tensorflow::profiler::PerGenericStepDetails, tensorflow::profiler::PerTpuStepDetails,
    tensorflow::profiler::StepSummary, tensorflow::profiler::TpuBottleneckAnalysis,
    tensorflow::profiler::TpuStepTimeBreakdown;

tensorflow::profiler::InputPipelineAnalysisResult ConvertOpStatsToInputPipelineAnalysis(const OpStats& op_stats);

// Tables: [cores that waited longest for input (TPU only; empty elsewhere),
// step breakdown, input ops, recommendation links, diagnostics].
std::string InputPipelineToJson(const tensorflow::profiler::InputPipelineAnalysisResult& result);

// The step-time table, also the overview page's step graph: the TPU one for
// TPU results, else the generic (GPU/CPU) one.
DataTable StepBreakdownTable(const tensorflow::profiler::InputPipelineAnalysisResult& result);
DataTable GenericStepBreakdownTable(const tensorflow::profiler::InputPipelineAnalysisResult& result);
// A step table's properties: "<prefix>_average", "_standard_deviation",
// "_minimum" and "_maximum" of a summary (one decimal); the hardware type and
// the step time's.
void SetSummaryProperties(const std::string& prefix, const StepSummary& summary, DataTable& t);
void SetStepTimeProperties(const InputPipelineAnalysisResult& result, DataTable& t);
// The generic bottlenecks (a "*_bottleneck" and a "*_statement" value for
// kernel launch, all-other and device-collective time) that the step table
// (statement in both) and the overview's recommendation (classification,
// then statement) carry as properties.
struct GenericBottlenecks {
  std::string kernel_launch, kernel_launch_statement, all_other, all_other_statement, device_collectives,
      device_collectives_statement;
};
void SetGenericBottleneckProperties(const GenericBottlenecks& g, DataTable& t);
DataTable DiagnosticsTable(const tensorflow::profiler::Diagnostics& diagnostics);

// Input-bound classification and statement for an input percentage and an
// "All others" percentage (InputAnalysis); returns true when the statement
// reports All-others time.
bool ClassifyInputBound(double input_percent, double all_other_percent, std::string* classification,
                        std::string* statement);

}  // namespace tbprof
