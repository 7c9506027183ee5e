// Per-host OpStats -> one OpStats for ALL_HOSTS (xprof op_stats_combiner.cc).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "convert/analysis/op_stats/op_stats.h"

namespace tbprof {

// Merges per-host OpStats (xprof OpStatsCombiner): op dbs summed, steps kept
// per host for the step numbers all hosts have, kernel reports merged.
OpStats CombineOpStats(const std::vector<std::shared_ptr<const OpStats>>& hosts);

// CombineOpStats one host at a time, so that a caller can drop each host's
// OpStats once it is added: a pod's ALL_HOSTS combination then holds one
// host's OpStats beside the sums instead of every host's (64 hosts read
// from their summaries held them all). What needs every host at once (which
// steps all hosts share, matched by time; whether a host is a coordinator)
// needs only their steps: those alone are kept per host until Finish.
// Adding hosts in the order CombineOpStats is given them gives its result.
class OpStatsFold {
 public:
  void Add(const OpStats& host);
  // The same, taking the host's steps instead of copying them.
  void Add(OpStats&& host);
  OpStats Finish() &&;

 private:
  // What the cross-host passes read of one host.
  struct HostStepsKept {
    bool cpu_only = true;
    std::vector<HostSteps> steps;
    std::vector<PerCoreStepInfo> tpu_step_db;
    std::map<uint32_t, CoreDetails> core_id_to_details;
  };
  using KernelKey =
      std::tuple<bool, bool, std::vector<uint32_t>, uint32_t, uint32_t, uint32_t, std::string, std::string>;

  void AddSums(const OpStats& host);
  void CombineGenericSteps();
  void CombineTpuSteps();

  OpStats out_;
  std::map<KernelKey, tensorflow::profiler::KernelReport> kernels_;
  std::vector<HostStepsKept> hosts_;
};

// Adds `src`'s ops and totals into `dst` (xprof OpMetricsDbCombiner).
void CombineOpMetricsDb(const OpMetricsDb& src, OpMetricsDb& dst);

}  // namespace tbprof
