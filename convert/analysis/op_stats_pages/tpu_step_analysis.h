// TPU step analysis (the TPU parts of xprof's op_stats_to_input_pipeline_analysis
// with ProfileTimeBreakdown and the TPU step-breakdown helpers): a core's step
// by HLO category -> its TPU breakdown; the cores of one step -> the step's
// PerTpuStepDetails; the steps -> the TPU input-pipeline result and tables.
#pragma once

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/analysis/op_stats/tpu_step_breakdown.h"
#include "convert/base/data_table.h"
#include "proto/input_pipeline.pb.h"

namespace tbprof {

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
