// The step breakdown and advice of a PyTorch run's overview and input
// pipeline pages, in PyTorch's words: torch-tb-profiler's categories (Kernel,
// Memcpy, Memset, Communication, Runtime, DataLoader, CPU Exec, Other) where
// xprof's pages have TensorFlow's, and PyTorch's remedies (DataLoader
// workers, pinned memory, prefetching; DDP; AMP) where xprof links tf.data.
// Every table says `framework: PyTorch`, so readers of the JSON know which
// words apply without looking at the trace.
#pragma once

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/base/data_table.h"
#include "proto/input_pipeline.pb.h"

namespace tbprof {

inline constexpr const char* kPyTorchFramework = "PyTorch";

// One row per step: "stepnum", one ms column per category (id = its name),
// "stepTimeMs"; properties framework, step_time_graph_column_ids, the step
// time summary of `result`, and `dataloader_percent` (of the average step).
DataTable TorchStepBreakdownTable(const TorchStepTable& steps,
                                  const tensorflow::profiler::InputPipelineAnalysisResult& result);

// The input pipeline page's conclusion on DataLoader time and its advice.
std::string TorchInputStatement(const TorchStepTable& steps);
std::vector<std::string> TorchInputAdvice();

// The overview's recommendation table (tip_type, link, description) by
// torch-tb-profiler's rules: DataLoader ≥ 5 % of the step, communication
// > 10 %, a GPU busy < 50 % of the steps.
DataTable TorchRecommendationTable(const TorchStepTable& steps, const TorchGpuSummary& gpu);

}  // namespace tbprof
