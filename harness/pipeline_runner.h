// Runs the built-in tf.data-like pipeline variants under the host tracer:
// a training loop of `train` steps, each fetching one batch through
// `IteratorGetNextOp::DoCompute` on a `tf_data_iterator_get_next` thread and
// then spending the configured model compute on it. Each variant's traced
// steps are written as one profile run.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/base/status.h"
#include "synthetic/pipeline/pipeline_dataset.h"

namespace tbprof::harness {

// Per-stage costs shared by every variant, so their numbers compare.
struct PipelineCosts {
  int num_files = 4;
  int records_per_file = 64;
  int record_bytes = 1024;
  double read_us = 20;                    // modelled I/O latency per record
  double decode_us = 250;                 // CPU per element in the (parallel) map
  int decoded_bytes = 1024;
  double vectorized_fixed_us = 20;        // map after batch: per-batch CPU ...
  double vectorized_per_element_us = 2;   // ... plus this per element
  int batch_size = 16;
  int prefetch_buffer = 2;
  int num_parallel_calls = pipeline::kAutotune;  // -1: autotune
  int cycle_length = 4;
  double model_us = 2000;  // model compute per step
};

// Sets one cost by its field name (as above); errors name the key.
Status SetPipelineCost(PipelineCosts& costs, std::string_view key, double value);
// Applies every key of a JSON object file, e.g. {"decode_us": 400, "batch_size": 8}.
Status LoadPipelineCosts(const std::string& json_path, PipelineCosts& costs);

struct PipelineVariant {
  std::string name;
  std::string description;
  // The iterator the tf.data analysis must name as the bottleneck; empty for
  // the fully optimised variant (input pipeline not the bottleneck).
  std::string expected_bottleneck;
  std::function<pipeline::Dataset(const PipelineCosts&, const std::vector<std::string>& files)> build;
};
const std::vector<PipelineVariant>& PipelineVariants();
const PipelineVariant* FindPipelineVariant(std::string_view name);

// Writes costs.num_files record files into `dir`; returns their paths.
StatusOr<std::vector<std::string>> WritePipelineData(const std::string& dir, const PipelineCosts& costs);

struct RunOptions {
  int steps = 48;
  int warmup_steps = 20;  // untraced; fills caches and buffers first
  std::string logdir;     // empty: do not write a profile
  std::string run_name;   // the run's folder under <logdir>/plugins/profile; empty: the start time
  // False while a ProfilerService owns the tracer (--serve_profiler): the run
  // then starts no session of its own, its TraceMes reach whichever capture
  // is active, and it writes no profile.
  bool self_trace = true;
  // When set and true, the run ends after the current step (a served job's
  // SIGTERM/SIGINT, so it still cleans up).
  const std::atomic<bool>* stop = nullptr;
  std::function<void(int steps_done)> progress;
};

struct VariantRun {
  std::string variant;
  int steps = 0;
  int64_t elements = 0;  // dataset elements (records) consumed by traced steps
  double wall_s = 0, elements_per_s = 0;
  double step_mean_ms = 0, step_p50_ms = 0, step_p99_ms = 0;
  double input_bound_pct = 0;  // time the train loop waited for input / step time
  bool traced = true;  // false with self_trace off: the call and event counts are unknown
  int64_t root_calls = 0, slow_calls = 0;  // Iterator::Root GetNext calls, > 50 µs
  double max_root_call_us = 0;
  int64_t traced_events = 0;
  std::string xplane_path;
};

StatusOr<VariantRun> RunPipelineVariant(const PipelineVariant& variant, const PipelineCosts& costs,
                                        const std::vector<std::string>& files, const RunOptions& options);

}  // namespace tbprof::harness
