// tf.data bottleneck analysis: per host and input
// pipeline, the calls of the root iterator, latency statistics, slow calls
// (> 50 µs), the iterator graph with self times and the critical path, and the
// bottleneck iterator with xprof's classification and suggestion.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "convert/base/status.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

inline constexpr int64_t kTfDataSlowCallThresholdPs = 50 * 1000000LL;  // 50 µs

struct TfDataIteratorStat {
  int64_t id = 0;
  int64_t parent_id = -1;  // -1: the iterator has no parent_id stat
  std::string name;        // last "::" component, e.g. "Map"
  std::string long_name;   // full event name, e.g. "Iterator::Root::Prefetch::Map"
  bool is_async = false;
  int64_t start_time_ps = 0;
  int64_t duration_ps = 0;
  int64_t self_time_ps = 0;
  bool is_blocking = false;  // on the critical path
  int64_t num_calls = 0;
};

// One GetNext call of a pipeline's root iterator, with the iterators it touched.
struct TfDataPipelineCall {
  int64_t duration_ps = 0;
  std::vector<TfDataIteratorStat> iterators;
  int64_t bottleneck_iterator_id = 0;
  int64_t bottleneck_iterator_latency_ps = 0;
};

struct TfDataPipeline {
  int64_t id = 0;  // root iterator id
  std::string name;  // "Host:<n>" or "Device:<n>"
  bool is_device = false;
  int64_t num_calls = 0;
  int64_t num_slow_calls = 0;
  int64_t avg_latency_ps = 0, min_latency_ps = 0, max_latency_ps = 0;
  std::vector<TfDataPipelineCall> calls;  // sorted by duration, descending
};

struct TfDataHostStats {
  std::string host;
  std::vector<TfDataPipeline> pipelines;
};

struct TfDataBottleneck {
  std::string host;
  std::string input_pipeline;
  int64_t max_latency_ps = 0;
  std::string iterator_name;
  std::string iterator_long_name;
  int64_t iterator_latency_ps = 0;
  std::string suggestion;
  std::string bottleneck_type;  // e.g. "kSlowTransformationWithParallelVersion"
};

struct TfDataStats {
  std::vector<TfDataHostStats> hosts;
  std::vector<TfDataBottleneck> bottlenecks;  // sorted by max_latency_ps, descending
  bool is_input_bound = false;
  // Pipelines were captured, but only device ones, which the bottleneck
  // analysis (as xprof's) leaves out: no verdict, rather than "not input bound".
  bool only_device_pipelines = false;
  std::string summary;
};

// `hosts`: (host name, model) pairs; each model's /host:CPU plane is analysed
// (a model without one is an error, as in xprof). Pipelines are numbered
// Host:<n>/Device:<n> in ascending root iterator id (xprof: hash-map order).
StatusOr<TfDataStats> ComputeTfDataStats(const std::vector<std::pair<std::string, const XSpaceModel*>>& hosts);

// xprof's three-table JSON for tool tf_data_bottleneck_analysis.
std::string TfDataStatsToJson(const TfDataStats& stats);

// xprof's BottleneckType name for an iterator name ("Map" ->
// "kSlowTransformationWithParallelVersion", unknown -> "kOther").
std::string_view TfDataBottleneckType(std::string_view iterator_name);
// xprof's HTML suggestion for a BottleneckType name.
std::string TfDataSuggestion(std::string_view bottleneck_type);

// The host name xprof uses for a space: its first hostname, else `file_host`.
std::string TfDataHostName(const XSpaceModel& model, const std::string& file_host);

}  // namespace tbprof
