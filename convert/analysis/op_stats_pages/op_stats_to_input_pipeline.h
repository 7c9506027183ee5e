// OpStats -> input_pipeline_analyzer (xprof op_stats_to_input_pipeline_analysis.cc).
// The JSON writer is shared with legacy input_pipeline.pb.
#pragma once

#include <optional>
#include <string>

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/analysis/op_stats_pages/input_pipeline_basics.h"
#include "convert/base/data_table.h"
#include "proto/input_pipeline.pb.h"

namespace tbprof {

tensorflow::profiler::InputPipelineAnalysisResult ConvertOpStatsToInputPipelineAnalysis(const OpStats& op_stats);

// Tables: [cores that waited longest for input (TPU only; empty elsewhere),
// step breakdown, input ops, recommendation links, diagnostics].
// `torch_steps` (a PyTorch trace's): the step table in torch-tb-profiler's
// categories with the DataLoader conclusion, and PyTorch's input advice in
// place of tf.data's (torch_step_pages.h).
std::string InputPipelineToJson(const tensorflow::profiler::InputPipelineAnalysisResult& result,
                                const std::optional<TorchStepTable>& torch_steps = std::nullopt);

// The step-time table, also the overview page's step graph: the TPU one for
// TPU results, else the generic (GPU/CPU) one.
DataTable StepBreakdownTable(const tensorflow::profiler::InputPipelineAnalysisResult& result);
DataTable GenericStepBreakdownTable(const tensorflow::profiler::InputPipelineAnalysisResult& result);
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

}  // namespace tbprof
