// Section 8 of trace_analysis, `critical_path`: for one step, the chain of
// CPU ops, launches and kernels that sets its length (HTA's critical-path
// analysis; the graph and its rules in critical_path_graph.h).
//
// Steps are the host events that carry a step number (PyTorch's
// ProfilerStep#N, a TensorFlow/JAX step trace with step_num). The window is
// the step's span: the host events wholly inside it (a PyTorch trace's Python
// stack events left out, as HTA reads operators and runtime calls only), and
// the GPU activity those events launched, even where it runs past the step's
// end (the step then really ends later). Unless asked for another, the step
// is the trace's first; a profile that marks no steps (a JAX program without
// step annotations) is one window, the whole profile.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "convert/analysis/trace_analysis/critical_path_graph.h"
#include "convert/base/status.h"
#include "convert/model/xspace_model.h"

namespace tbprof::trace_analysis {

struct CriticalPathEventRef {
  uint32_t plane = 0, event = 0;
};

// An event on the path and when the path enters and leaves it.
struct CriticalPathVisit {
  CriticalPathEventRef where;
  int64_t enter_ps = 0, leave_ps = 0;
};

struct CriticalPathSegment {
  CpSegmentKind kind = CpSegmentKind::kCpuOp;
  std::string name;
  CriticalPathEventRef where;
  int64_t start_ps = 0, duration_ps = 0;
};

struct CriticalPath {
  std::vector<int64_t> steps;  // the step numbers the trace has, in time order
  int64_t step = 0;
  bool whole_profile = false;  // no steps marked: the window is the whole profile
  int64_t step_begin_ps = 0, step_end_ps = 0;
  // The latest end of the window's events: past the step's end when its kernels outlast it.
  int64_t window_end_ps = 0;
  int64_t length_ps = 0;
  std::vector<CriticalPathSegment> segments;
  std::vector<CriticalPathVisit> visits;  // the path's events in order, for the trace viewer's flows
};

// An error when `step` is not one of the trace's, when there are no host
// events, or when the events contradict each other.
StatusOr<CriticalPath> ComputeCriticalPath(const XSpaceModel& space, std::optional<int64_t> step);

// One rank's path, or why it has none.
struct RankCriticalPath {
  int64_t rank = 0;
  std::optional<CriticalPath> path;
  std::string reason;  // when no path
  std::string host;  // the rank's host: two hosts may state one rank
};

// `"critical_path":{...}` for the ranks given (ALL_HOSTS: side by side; the
// top-level step and length are the longest rank's, the rank that sets the
// step; "reason" the first rank's without a path, else null).
void AppendCriticalPathJson(const std::vector<RankCriticalPath>& ranks, std::string& out);

}  // namespace tbprof::trace_analysis
