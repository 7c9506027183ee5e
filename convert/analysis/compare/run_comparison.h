// Comparing two runs: run A (the baseline) and run B. Each run contributes
// the results its single-run tools compute (the input-pipeline analysis,
// the framework-op and kernel tables of OpStats, the HLO op table, the
// memory profile, the tf.data statistics), whatever format the run was read
// from: an xplane file, a legacy per-tool file or an imported trace all end
// as these. Every delta is B's figure minus A's as those tools give it; a
// figure a run cannot give stays unknown and yields no delta.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "convert/analysis/compare/delta_rows.h"
#include "convert/analysis/hlo/xspace_to_hlo_stats.h"
#include "convert/analysis/host_events/xspace_to_memory_profile.h"
#include "convert/analysis/host_events/xspace_to_tf_data_stats.h"
#include "convert/analysis/op_stats/op_stats.h"
#include "proto/input_pipeline.pb.h"
#include "proto/kernel_stats.pb.h"
#include "proto/tf_stats.pb.h"

namespace tbprof {

// The host events of one chosen step of a run (step_events.h), HTA's trace diff.
struct StepEventRows {
  int64_t step = 0;
  std::vector<OpDeltaRow> rows;  // figures in the *_a fields
};

// What one run offers; a null part is a result the run cannot give.
struct RunFigures {
  std::shared_ptr<const tensorflow::profiler::InputPipelineAnalysisResult> input_pipeline;
  std::shared_ptr<const tensorflow::profiler::TfStatsDatabase> framework_ops;
  std::shared_ptr<const tensorflow::profiler::KernelStatsDb> kernels;
  std::shared_ptr<const HloOpDb> hlo_ops;
  std::shared_ptr<const MemoryProfile> memory;
  std::shared_ptr<const TfDataStats> tf_data;
  std::shared_ptr<const StepEventRows> step_events;  // only when a step was chosen
  // A PyTorch run's steps in torch-tb-profiler's categories: two PyTorch runs'
  // step rows are those categories (Kernel … Other) instead of xprof's.
  std::shared_ptr<const TorchStepTable> torch_steps;
};

// How steps are paired: per-step averages only (the default), or also step
// by step, pairing equal step numbers or the i-th step of each run.
enum class StepAlignment { kAverage, kStepNumber, kOrder };
// "average", "step_number", "order"; nullopt for any other text.
std::optional<StepAlignment> StepAlignmentFromName(std::string_view name);
std::string_view StepAlignmentName(StepAlignment alignment);

// Steps paired step by step (StepAlignment other than kAverage).
struct StepPair {
  std::optional<int> number_a, number_b;  // empty where a run has no such step
  std::string name_a, name_b;
  std::vector<MetricRow> metrics;  // step time and its breakdown, ms
};

struct TfDataSide {
  bool known = false;  // the run's tf.data statistics were computed
  bool input_bound = false;
  std::string iterator;  // the top bottleneck's iterator (long name), empty when none
  std::string bottleneck_type;
  Figure latency_us;
};

struct RunComparison {
  StepAlignment alignment = StepAlignment::kAverage;
  // Number of steps, step time and its breakdown: averages over the steps, ms.
  // The generic categories (input_ms … other_ms), or torch-tb-profiler's
  // (Kernel … Other) when both runs are PyTorch's; a TPU run's
  // breakdown (tc_compute_ms … host_transfer_ms) only when a run is a TPU run.
  std::vector<MetricRow> steps;
  // Why a run's step figures are unknown; empty when they are known.
  std::string step_note_a, step_note_b;
  std::vector<StepPair> step_pairs;
  // The input-pipeline stages (µs) and the input classification of each run.
  std::vector<MetricRow> input_stages;
  std::string input_classification_a, input_classification_b;
  TfDataSide tf_data_a, tf_data_b;
  // Sorted by |delta|, largest first; rows without a delta last, by name.
  std::vector<OpDeltaRow> framework_ops, hlo_ops, kernels;
  // The host events of the chosen step of each run, matched by name; the
  // step numbers are empty when no step was chosen (then no rows).
  std::optional<int64_t> step_a, step_b;
  std::vector<OpDeltaRow> step_events;
  // Per allocator (memory id): peak and its breakdown at the peak, bytes.
  std::vector<MetricRow> memory;
};

RunComparison CompareRuns(const RunFigures& a, const RunFigures& b, StepAlignment alignment);

}  // namespace tbprof
