// The derived timelines of device planes, as xprof's derived_timeline.cc
// adds them before the trace viewer reads a profile.
// GPU planes:
//   - "Steps" (line id kThreadIdStepInfo): one event per run of consecutive
//     device events of one step group, named by the group id, with the stat
//     step_name (the host step's name, which the trace viewer shows instead).
//   - Every derived event of a step group shows it as the arg group_id; the
//     groups are kept beside the events (DerivedTimelines::Group), not as a
//     stat per event, since millions of derived events share a few steps.
//   - Per GPU stream, up to 16 streams (compute streams first, then by number
//     of events): "Framework Name Scope - from #<stream>", "Framework Ops - from
//     #<stream>", "XLA Modules - from #<stream>", "XLA Ops - from #<stream>" and
//     "Source code - from #<stream>", built from the stream's kernels (events
//     with kernel_details, or CUDA graph launches): hlo_module (+ program_id) →
//     an XLA Modules event named "module(program_id)"; hlo_op ("::"-separated
//     levels) → nested XLA Ops events named "<program_id or module>/<op>" shown
//     as "<op>"; the framework op → a Framework Ops event named
//     "scope/name:Type" shown as its type, and one name-scope event per '/'
//     component of its name, nested by depth. An XLA kernel's framework op and
//     source line ("<file basename>:<line>") come from its HLO instruction's
//     metadata (found by program id and innermost op name in the
//     /host:metadata plane's HLO protos); any other kernel's framework op is
//     its tf_op stat, or `level 0` as TensorFlow up to 2.4 wrote it. A kernel
//     that is a CUDA graph node (cuda_graph_id) marks its innermost XLA op
//     event with cuda_graph_id and correlation_id.
//   - Consecutive kernels with the same name and step group extend one derived
//     event (on GPU planes gaps do not split it; kernels of another
//     scope_range_id do); a new event at one depth ends the deeper ones, a new
//     module ends the name scopes and XLA ops, a new outermost name scope ends
//     the framework op. Nested events that would end together are shortened
//     by 1 ns per depth (never below 1 ns for the innermost) so that the
//     viewer stacks them in order.
//   - The stream lines and their derived lines get display ids 1, 2, … in
//     that order (stream, name scope, framework op, module, XLA op, source),
//     which the trace viewer uses as thread ids.
//   - "Launch Stats" (kThreadIdKernelLaunch): per named step, the host's
//     kernel launches to this GPU (host events of /host:CPU with device_id, the
//     index of the GPU plane, and correlation_id, not named "cu…"): one event
//     "Launch Stats for <step>" over them with num_launches,
//     max_launch_time_us and avg_launch_time_us.
// TPU TensorCore planes ("/device:TPU:<n>"): over all lines in time order,
// asynchronous ops (`_a`) left out, the ops' tf_op and source stats (their
// metadata's, overridden by their own) make "Framework Name Scope",
// "Framework Ops" and "Source code" lines (fixed ids); without a group_id a
// repeat extends an event only across a gap of at most twice its length. Host
// offloads (copy / dynamic-slice start and done of a shape in memory space
// S(5)) make "Host Offload Ops row <n>" lines: one event "offload-<op>.<n>"
// from the start to its done, on the first row free when it begins.
// Host planes: the thread pool's closure regions (threadpool_regions.h), one
// "ThreadpoolListener::Region" event per region with its consumer context, on
// a line of the file line's id (drawn as the same thread), showing the group
// of the StartRegion that opened it.
// A plane that already carries such lines (files written after this
// processing, or TensorFlow's "TensorFlow Ops" era) gets none added of that
// kind. Not derived here: the XLA:CPU lines of host planes.
// TPU planes grouped here (TensorCores and SparseCores): the "Steps" / "Sparse
// Core Steps" line as xprof's grouping rewrites it (MergeHostSteps): the
// steps of one group become one event (the first step's, to the last one's
// end; device_offset_ps / device_duration_ps over their device time;
// step_idle_time_ps summed), ungrouped steps are dropped unless no step has a
// group, and each grouped step is named by its group (step_name). It replaces
// the file's line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <memory>

#include "convert/analysis/trace_viewer/file_group_args.h"
#include "convert/grouping/group_events.h"
#include "convert/grouping/group_runs.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

struct DerivedTimelines {
  // One plane per file plane that got derived lines (same name and id),
  // holding only those lines, with names interned in this space's own table.
  XSpaceModel space;
  // Derived plane i belongs to the file's plane file_plane[i].
  std::vector<uint32_t> file_plane;
  // Derived plane i: the display id each line of its file plane takes (0: the
  // line keeps its own).
  std::vector<std::vector<int64_t>> file_line_display_ids;

  // Derived plane i: the lines of its file plane that a derived line replaces
  // (not shown), by index.
  std::vector<std::vector<uint32_t>> replaced_file_lines;
  // Derived plane i: its events' step groups.
  std::vector<GroupRuns> group_runs;
  // The grouping's stats on the file's own events.
  FileGroupArgs file_groups;
  // How long grouping took here (0: the grouping was given).
  double grouping_ms = 0;

  // The step group of derived plane `plane`'s event (kNoGroup: none).
  int32_t Group(size_t plane, uint32_t event) const;
  bool empty() const { return space.planes.empty(); }
  size_t NumEvents() const { return space.NumEvents(); }
  size_t MemoryBytes() const;
};

// Derives the timelines of every GPU and TPU TensorCore plane of `space`, the
// host planes' thread pool regions, and the grouping's stats on its events
// (for which host-only profiles are grouped too). `groups`, when given: the space's GroupEvents result if
// already known (then not computed again), and on return the one used (left
// as it was when no plane is grouped).
DerivedTimelines GenerateDerivedTimelines(const XSpaceModel& space,
                                          std::shared_ptr<const EventGroups>* groups = nullptr);

}  // namespace tbprof
