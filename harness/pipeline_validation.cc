#include "harness/pipeline_validation.h"

#include "convert/analysis/host_events/xspace_to_tf_data_stats.h"
#include "convert/xplane/xspace_reader.h"

namespace tbprof::harness {

StatusOr<PipelineAnalysis> AnalyzePipelineProfile(const std::string& xplane_path) {
  ASSIGN_OR_RETURN(auto model, LoadXSpaceFile(xplane_path));
  const std::string host = (model)->hostnames.empty() ? "localhost" : (model)->hostnames[0];
  ASSIGN_OR_RETURN(auto stats, ComputeTfDataStats({{host, model.get()}}));
  PipelineAnalysis a;
  a.is_input_bound = stats.is_input_bound;
  a.summary = stats.summary;
  if (!stats.bottlenecks.empty()) {
    const TfDataBottleneck& b = stats.bottlenecks.front();
    a.bottleneck_iterator = b.iterator_name;
    a.bottleneck_long_name = b.iterator_long_name;
    a.bottleneck_type = b.bottleneck_type;
    a.max_latency_ps = b.max_latency_ps;
  }
  int64_t slowest = -1;
  for (const TfDataHostStats& h : stats.hosts) {
    for (const TfDataPipeline& p : h.pipelines) {
      if (p.is_device) continue;
      a.num_calls += p.num_calls;
      a.num_slow_calls += p.num_slow_calls;
      if (!p.calls.empty() && p.calls.front().duration_ps > slowest) {
        slowest = p.calls.front().duration_ps;
        a.slowest_call.clear();
        for (const TfDataIteratorStat& it : p.calls.front().iterators)
          a.slowest_call.push_back({it.long_name, it.self_time_ps, it.is_blocking});
      }
    }
  }
  return a;
}

CheckResult CheckVariant(const PipelineVariant& variant, const VariantRun& run, const PipelineAnalysis& analysis) {
  CheckResult r;
  // Slow calls: the analysis must count exactly the root calls > 50 µs that the
  // harness timed itself, so no call of 50 µs or less is counted slow.
  if (analysis.num_calls != run.root_calls || analysis.num_slow_calls != run.slow_calls) {
    r.message = "analysis counted " + std::to_string(analysis.num_slow_calls) + " slow of " +
                std::to_string(analysis.num_calls) + " root calls; the harness timed " +
                std::to_string(run.slow_calls) + " of " + std::to_string(run.root_calls) + " over 50 us";
    return r;
  }
  if (!variant.expected_bottleneck.empty()) {
    if (!analysis.is_input_bound) {
      r.message = "expected input bound by " + variant.expected_bottleneck + ", analysis says not input bound";
    } else if (analysis.bottleneck_iterator != variant.expected_bottleneck) {
      r.message = "expected bottleneck " + variant.expected_bottleneck + ", analysis reports " +
                  (analysis.bottleneck_iterator.empty() ? "none" : analysis.bottleneck_iterator);
    } else {
      r.ok = true;
      r.message = "bottleneck " + analysis.bottleneck_iterator + " as injected";
    }
    return r;
  }
  if (!analysis.is_input_bound) {
    r.ok = true;
    r.message = "input pipeline not the bottleneck";
    return r;
  }
  // xprof judges only the single slowest call. On a loaded machine a call can
  // be descheduled past 50 µs; accept that only when such calls are rare (at
  // most 1 in 10 root calls), and say so.
  const int64_t allowed = std::max<int64_t>(1, run.root_calls / 10);
  if (run.slow_calls <= allowed) {
    r.ok = true;
    r.message = "input pipeline not the bottleneck (only " + std::to_string(run.slow_calls) + " of " +
                std::to_string(run.root_calls) + " calls over 50 us, read as scheduling noise)";
    return r;
  }
  r.message = "expected the input pipeline not to be the bottleneck, analysis reports " +
              (analysis.bottleneck_iterator.empty() ? std::string("input bound") : analysis.bottleneck_iterator);
  return r;
}

}  // namespace tbprof::harness
