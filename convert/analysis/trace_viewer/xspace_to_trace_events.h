// XSpace → Chrome trace-event JSON, the format of xprof's trace viewer
//. One plane becomes one process (pid), one line one
// thread (tid = the line's display id), one XEvent one complete `X` event with
// ts/dur in microseconds and the event's stats as args. Host kernel launches
// and the GPU kernels they start carry flow bindings (`bind_id`, `flow_out` /
// `flow_in`, cat "gpu_launch") keyed by their `correlation_id`.
//
// Which planes and events appear (xprof's rules, see xplane_to_trace_events.cc
// in TSL and xplane_to_trace_container.cc in xprof):
//   - `/host:CPU` → pid 701, and the planes of profiled sub-processes, named
//     `/host:CPU [<pid>]`, → 702, 703, … in the order of their names (every
//     plane whose name starts with `/host:CPU`, sorted by name, one pid each);
//     `/device:GPU:<n>` (or, with no GPU plane,
//     `/device:TPU:<n>`) → pid 1 + plane id (1 when that exceeds 500);
//     `/device:CUSTOM:*` → pid 501 + plane id. Other planes are not shown.
//   - With several hosts, or in the streaming form, host i adds 1000·(i+1) to
//     every pid and prefixes process names with the host name (xprof's
//     TraceEventsContainer::Merge).
//   - Empty lines, and lines named "counters_…", are skipped; a line named
//     `_counters_` gives counter (`C`) events; tf.data
//     producer/consumer markers and allocator events (IsInternalEvent) are
//     hidden; internal stats (kernel_details, _p/_c/_pt/_ct/_r, flops,
//     bytes_accessed, program_id, symbol_id) and bytes stats are left out of args.
//   - A `step_name` stat renames the event; an event whose metadata has a
//     display name shows it and keeps the full name in args.long_name.
//   - A profile grouped here (not one that comes grouped) shows its grouping
//     as xprof writes it into the events: args group_id, step_name on named
//     roots (which renames them), is_eager on TF ops and launched kernels
//     (file_group_args.h). A PyTorch (Kineto) trace shows the args it wrote:
//     no is_eager, and not the tf_op stat its importer adds for the analyses.
//   - Args keep their types (numbers stay numbers, integers beyond 2^53
//     become strings), as in xprof's streaming JSON; xprof's non-streaming
//     form stringifies every value.
//   - The "Async XLA Ops" line is shown, as xprof's trace container shows it
//     (its older converters skipped it).
//   - GPU planes also show their derived timelines (derived_timeline.h:
//     Steps, and per stream XLA Modules, XLA Ops, Framework Ops, Framework Name
//     Scope), in the same process, as xprof adds them before converting.
//   - xprof's streaming converter also splits big host thread pools into
//     extra processes (ThreadPoolGrouper); here every line stays one thread
//     of its plane.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "convert/analysis/trace_viewer/derived_timeline.h"
#include "convert/base/status.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

inline constexpr uint32_t kTraceHostPid = 701;        // kHostThreadsDeviceId
inline constexpr uint32_t kTraceLastHostPid = 999;    // sub-process host planes stop here
inline constexpr uint32_t kTraceFirstDevicePid = 1;   // kFirstDeviceId
inline constexpr uint32_t kTraceLastDevicePid = 500;  // kLastDeviceId
inline constexpr uint32_t kTraceFirstCustomPid = 501;  // kFirstCustomPlaneDeviceId
inline constexpr uint32_t kTracePidsPerHost = 1000;
// The pid shift of host `host` (its index among a request's hosts) in the streaming viewer's answer.
inline uint32_t StreamingPidOffset(size_t host) { return kTracePidsPerHost * static_cast<uint32_t>(host + 1); }
// xprof's default cap for the non-streaming viewer.
inline constexpr int64_t kDefaultTraceMaxEvents = 1000000;

// One timeline row: a line of a shown plane.
struct TraceRow {
  uint32_t plane = 0;  // index into XSpaceModel::planes (of DerivedTimelines::space when `derived`)
  uint32_t line = 0;   // index into XPlaneModel::lines
  uint32_t pid = 0;
  uint32_t tid = 0;
  // The plane's `_counters_` line: its events are counter samples (`ph:"C"`,
  // their numeric stats as the series), on the process, not on a thread.
  bool counters = false;
  // A derived timeline (not in the file).
  bool derived = false;
};

struct TraceThread {
  uint32_t tid = 0;
  std::string name;
};

struct TraceProcess {
  uint32_t pid = 0;
  std::string name;
  std::vector<TraceThread> threads;  // sorted by tid, one per distinct tid
};

// How one host's XSpace maps onto processes and threads.
struct TraceLayout {
  std::vector<TraceProcess> processes;  // sorted by pid
  std::vector<TraceRow> rows;           // in plane, then line order
};

// Pids are a single host's; several hosts (and the streaming form) shift
// them by kTracePidsPerHost·(host index + 1) when rendering. `derived` (may be
// null) adds its lines to the processes of their device planes.
TraceLayout BuildTraceLayout(const XSpaceModel& space, const DerivedTimelines* derived = nullptr);

// How one event is rendered.
struct TraceEventStyle {
  // Streaming form: zero-length events become `X` with a 1 ps duration (as
  // xprof's TraceEventsToJson); otherwise they are instants (`ph:"i"`).
  bool streaming = false;
  // When >= 0, written as args.uid (the key of event-details requests) and
  // as "z", which keeps events with equal pid and ts apart in the viewer.
  int64_t uid = -1;
  uint32_t host_index = 0;  // folds into flow ids so hosts never share one
  uint32_t pid_offset = 0;  // added to the row's pid
  // Whether the event's stats (its metadata's, its own and the grouping's)
  // are written as args: a search without search_metadata answers with the
  // events alone, as xprof's does.
  bool with_stats = true;
};

// Renders the events of one host's XSpace and of its derived timelines.
// Resolves the stat names it needs once, so rendering an event is a walk over
// its stats.
class TraceEventRenderer {
 public:
  explicit TraceEventRenderer(const XSpaceModel& space, const DerivedTimelines* derived = nullptr);

  const XSpaceModel& space() const { return *sources_[0].space; }
  // The plane a row's events live in.
  const XPlaneModel& Plane(const TraceRow& row) const { return sources_[row.derived].space->planes[row.plane]; }
  // Internal tf.data producer/consumer and allocator events are not shown.
  bool Hidden(const TraceRow& row, uint32_t event) const { return HiddenMetadata(row)[Plane(row).events[event].metadata]; }
  // The same per event metadata of the row's plane, for walks over many events.
  const std::vector<bool>& HiddenMetadata(const TraceRow& row) const { return sources_[row.derived].hidden[row.plane]; }
  // The name the viewer shows: the step name of a named root (grouped here),
  // else its step_name stat, else display name, else name.
  std::string_view Name(const TraceRow& row, uint32_t event) const;
  // Hits are scattered over the planes' events, so rendering them waits on
  // memory more than it computes: a caller names an event some hits ahead
  // (PrefetchEvent), then its stats and metadata a few hits later (PrefetchStats).
  void PrefetchEvent(const TraceRow& row, uint32_t event) const { __builtin_prefetch(&Plane(row).events[event]); }
  void PrefetchStats(const TraceRow& row, uint32_t event) const {
    const XPlaneModel& p = Plane(row);
    const Event& e = p.events[event];
    const Stat* stats = p.event_stats.data() + e.first_stat;
    __builtin_prefetch(stats);
    __builtin_prefetch(reinterpret_cast<const char*>(stats) + 64);
    __builtin_prefetch(&p.event_metadata[e.metadata]);
  }
  // Appends one event object (no separator).
  void Append(const TraceRow& row, uint32_t event, const TraceEventStyle& style, std::string& out) const;

 private:
  // The file's space, or the derived one: the names each resolves once.
  struct Source {
    const XSpaceModel* space = nullptr;
    std::vector<std::vector<bool>> hidden;  // per plane, per event metadata
    std::vector<bool> host_plane;           // per plane: flows start there
    std::vector<StrId> internal_stats;
    StrId step_name = kNoStr, correlation_id = kNoStr, is_eager = kNoStr;
    // Per plane, per event metadata: a TF op's name ("name:Type"), which
    // xprof's grouping marks with is_eager (only with FileGroupArgs, never on
    // a PyTorch trace: empty).
    std::vector<std::vector<bool>> tf_op_named;
  };
  static Source Resolve(const XSpaceModel& space);
  bool InternalStat(const Source& src, StrId name) const;
  // The grouping's stats on the file's events, when the profile was grouped here.
  const FileGroupArgs* FileGroups() const {
    return derived_ != nullptr && derived_->file_groups.present ? &derived_->file_groups : nullptr;
  }
  void AppendCounter(const TraceRow& row, uint32_t event, const TraceEventStyle& style, std::string& out) const;
  void AppendStatValue(const XSpaceModel& space, const Stat& s, std::string& out) const;

  // Correlation ids only one side (host or device) of the file carries,
  // sorted: no flow is drawn for them, in the file or its derived lines.
  static std::vector<uint64_t> OneEndedCorrelations(const Source& file);

  Source sources_[2];  // [0]: the file, [1]: its derived timelines
  std::vector<uint64_t> one_ended_correlations_;
  const DerivedTimelines* derived_ = nullptr;
};

// Appends the process/thread metadata events of `layout`, each followed by
// ",", shifting pids by `pid_offset` and prefixing process names with
// `host_name` (when non-empty).
void AppendTraceMetadataJson(const TraceLayout& layout, bool streaming, uint32_t pid_offset,
                             std::string_view host_name, std::string& out);

struct TraceHostInput {
  const XSpaceModel* space = nullptr;
  std::string host_name;
  // The space's derived timelines when already built (a cached TraceIndex
  // holds them); null: derived here.
  const DerivedTimelines* derived = nullptr;
};

struct TraceJsonOptions {
  // Keep at most about this many events: the earliest ones, all ties at the
  // cutoff included (MaybeDropEventsForTraceViewer). <= 0 means no cap.
  int64_t max_events = kDefaultTraceMaxEvents;
};

struct TraceJsonResult {
  std::string json;
  // Not OK when the memory for the document was refused (memory_grant.h):
  // `json` is then incomplete.
  Status status;
  int64_t total_events = 0;
  int64_t returned_events = 0;
  int64_t dropped_events = 0;
};

// The non-streaming `trace_viewer` document for one or more hosts. Besides
// xprof's fields it carries "eventLimit": {maxEvents, totalEvents,
// returnedEvents, droppedEvents[, message]} so a truncated trace says so.
TraceJsonResult ConvertXSpacesToTraceJson(const std::vector<TraceHostInput>& hosts,
                                          const TraceJsonOptions& options);

}  // namespace tbprof
