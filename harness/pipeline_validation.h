// Runs tbprof's tf.data bottleneck analysis on a harness profile and checks
// it against what the variant injected. This is the only file that calls the
// analysis (convert/xspace_to_tf_data_stats.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convert/base/status.h"
#include "harness/pipeline_runner.h"

namespace tbprof::harness {

struct PipelineAnalysis {
  std::string bottleneck_iterator;  // e.g. "Map"; empty when none reported
  std::string bottleneck_long_name;
  std::string bottleneck_type;
  bool is_input_bound = false;
  int64_t num_calls = 0;       // root iterator calls of the host pipelines
  int64_t num_slow_calls = 0;  // of those, > 50 µs
  int64_t max_latency_ps = 0;
  std::string summary;
  // The slowest call's iterators: (long name, self time ps, on the critical path).
  struct IteratorTime {
    std::string long_name;
    int64_t self_time_ps = 0;
    bool is_blocking = false;
  };
  std::vector<IteratorTime> slowest_call;
};

// Loads the profile with LoadXSpaceFile and analyses its /host:CPU plane.
StatusOr<PipelineAnalysis> AnalyzePipelineProfile(const std::string& xplane_path);

struct CheckResult {
  bool ok = false;
  std::string message;
};

// issue 6's --check: the injected bottleneck is the one reported; the
// optimised variant is not input bound; the analysis counts exactly the root
// calls over 50 µs as slow (none of those <= 50 µs).
CheckResult CheckVariant(const PipelineVariant& variant, const VariantRun& run, const PipelineAnalysis& analysis);

}  // namespace tbprof::harness
