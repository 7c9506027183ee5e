// The graph of HTA's critical-path analysis over one window of events, and
// its longest path. Each event is two nodes, its start and its end; edges:
//   - CPU nesting and sequence, per thread, in the order of a walk of its
//     call stacks: the previous node (a parent's start, or an earlier
//     sibling's end) → an op's start, attributed to the parent; the previous
//     node (its own start or its last child's end) → the op's end, attributed
//     to the op, with no weight when the op is a blocking sync call that GPU
//     work ended in (its time is the GPU's, reached through the sync edge;
//     HTA zeroes every blocking call, also one that waited for nothing,
//     whose time here stays the CPU's); consecutive top-level ops
//     are linked with no weight (HTA's dependency edge);
//   - a kernel's start → its end;
//   - launch → kernel: the launch call's start → the kernel's start when the
//     kernel's stream was idle when the call began (HTA: nothing queued),
//     else the previous kernel's end on the stream → the kernel's start;
//   - GPU → CPU sync: the last kernel of each stream that ended while a
//     blocking call (cudaDeviceSynchronize, cudaStreamSynchronize, ...) ran,
//     launched before it, → the call's end.
// A blocking call that only GPU work from before the window ended in keeps
// its time, as "cpu_wait" (the CPU waiting on the GPU), not as the call's own.
// Weights are the time between the two nodes (never below 0), except as said.
// HTA gives the sync edge no weight; here it carries the call's return after
// the GPU finished ("cpu_wait"), so a step that ends on a sync has a path as
// long as the step. The longest path is found in one pass over the nodes in
// a topological order (Kahn's), linear in nodes and edges.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convert/base/status.h"

namespace tbprof::trace_analysis {

inline constexpr uint32_t kNoCpEvent = UINT32_MAX;

struct CpEvent {
  int64_t begin_ps = 0, end_ps = 0;
  bool gpu = false;
  uint32_t lane = 0;                // a CPU thread or a GPU stream; lanes of CPU and GPU are apart
  uint32_t launch = kNoCpEvent;     // GPU: the CPU event that launched it
  bool runtime = false;             // CPU: a runtime API call (cudaLaunchKernel, ...)
  bool blocking = false;            // CPU: a call that waits for the GPU
  bool waits_outside = false;       // CPU, blocking: GPU work launched before the window ended during it
};

enum class CpSegmentKind { kCpuOp, kLaunch, kKernel, kGpuWait, kCpuWait };
const char* CpSegmentKindName(CpSegmentKind kind);

struct CpSegment {
  CpSegmentKind kind = CpSegmentKind::kCpuOp;
  uint32_t event = 0;  // the event the time is attributed to
  int64_t start_ps = 0, duration_ps = 0;
};

// An event the path passes through: when it enters and when it leaves it.
struct CpVisit {
  uint32_t event = 0;
  int64_t enter_ps = 0, leave_ps = 0;
};

struct CpResult {
  int64_t length_ps = 0;
  std::vector<CpSegment> segments;  // in path order, time-carrying edges only, alike neighbours merged
  std::vector<CpVisit> visits;      // the events the path's nodes belong to, in path order, no repeats in a row
};

// The longest path of `events` (CPU events of a lane must nest or follow one
// another). An error when the edges make a cycle (clocks that contradict
// the launches).
StatusOr<CpResult> LongestCriticalPath(const std::vector<CpEvent>& events);

}  // namespace tbprof::trace_analysis
