#include "convert/analysis/trace_viewer/derived_timeline.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "convert/analysis/trace_viewer/derived_line.h"
#include "convert/analysis/trace_viewer/derived_plane_builder.h"
#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/analysis/trace_viewer/host_offload_rows.h"
#include "convert/analysis/trace_viewer/kernel_event_names.h"
#include "convert/analysis/trace_viewer/launch_stats.h"
#include "convert/analysis/trace_viewer/tpu_step_line.h"
#include "convert/base/cancellation.h"
#include "convert/base/huge_pages.h"
#include "convert/base/run_both.h"
#include "convert/grouping/device_groups.h"
#include "convert/model/event_nesting.h"
#include "convert/grouping/group_events.h"
#include "convert/model/schema.h"
#include "convert/grouping/threadpool_regions.h"

namespace tbprof {
namespace {

using derived::DerivedLine;
using derived::DerivedPlaneBuilder;
using derived::Growth;
using derived::KernelEventNames;
using derived::KernelStats;
using derived::kNoScopeRange;

// Ids reserved per stream: name scope, framework op, module, XLA op, overhead, source.
constexpr int64_t kIdsPerStream = schema::kThreadIdSource - schema::kThreadIdTfNameScope + 1;
constexpr int64_t kNameScopeOffset = 0;
constexpr int64_t kTfOpOffset = schema::kThreadIdTfOp - schema::kThreadIdTfNameScope;
constexpr int64_t kModuleOffset = schema::kThreadIdHloModule - schema::kThreadIdTfNameScope;
constexpr int64_t kHloOpOffset = schema::kThreadIdHloOp - schema::kThreadIdTfNameScope;
constexpr int64_t kSourceOffset = schema::kThreadIdSource - schema::kThreadIdTfNameScope;
// The line ids a stream's derived lines take, in display order (ids ascending).
constexpr int64_t kDisplayOrder[] = {kNameScopeOffset, kTfOpOffset, kModuleOffset, kHloOpOffset, kSourceOffset};

// The stat ids the derivation reads (schema::StatIds: resolved once per space).
using StatNames = schema::StatIds;

// What a TPU op's event says for the framework lines (DeriveLinesFromStats):
// its metadata's stats, overridden by its own.
struct TpuOpStats {
  StrId framework_op = kNoStr, source = kNoStr;
  int32_t group = kNoGroup;
  bool is_async = false;
};

void ReadTpuOpStats(const Stat* b, const Stat* end, const StatNames& n, TpuOpStats& out) {
  for (const Stat* s = b; s != end; ++s) {
    if (s->name == kNoStr) continue;
    if (s->name == n.tf_op) {
      out.framework_op = s->kind == StatKind::kStr ? s->str : kNoStr;
    } else if (s->name == n.source_info) {
      out.source = s->kind == StatKind::kStr ? s->str : kNoStr;
    } else if (s->name == n.group_id) {
      out.group = static_cast<int32_t>(s->IntValue());
    } else if (s->name == n.is_async) {
      out.is_async = s->IntValue() != 0;
    }
  }
}

// Scope range ids of kernels and their parents (the plane
// /host:__ScopeRangeCallStack__); empty when the profile has none.
using ScopeRangeTree = std::unordered_map<int64_t, int64_t>;

ScopeRangeTree ReadScopeRangeTree(const XSpaceModel& space) {
  ScopeRangeTree tree;
  const XPlaneModel* p = space.FindPlane(schema::kScopeRangeIdTreePlane);
  if (p == nullptr) return tree;
  std::unordered_map<StrId, int64_t> id_of;
  for (const auto& [name, id] : p->stat_metadata) id_of.emplace(name, id);
  for (const Stat& s : p->plane_stats) {
    if (auto it = id_of.find(s.name); it != id_of.end()) tree.emplace(it->second, s.IntValue());
  }
  return tree;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// A derived line of that kind, with or without the per-stream suffix.
bool IsDerivedLineName(std::string_view name, std::string_view kind) {
  return name == kind || (StartsWith(name, kind) && StartsWith(name.substr(kind.size()), schema::kDerivedFromStreamInfix));
}

// What to derive for one plane.
struct PlanePlan {
  uint32_t plane = 0;
  bool steps = false, streams = false;  // GPU planes
  bool tpu = false;                     // a TPU TensorCore's framework, source and host-offload lines
  bool tpu_steps = false;               // a TPU plane's step line, as grouping merged it
  std::vector<ThreadpoolRegion> regions;  // a host plane's thread pool closures, found once
  // GPU planes without a Launch Stats line: their index among the GPU planes
  // (-1: none), which launches name by device_id.
  int64_t launch_device = -1;
};

// The shared inputs of every plane's derivation.
struct DeriveContext {
  const XSpaceModel& space;
  const EventGroups& groups;
  const StatNames& names;
  const HloPrograms& programs;
  const ScopeRangeTree& scope_tree;
  const LaunchesPerGpu& launches;
};

// A file plane's events as the derivation walks them: each line's events in
// time order, the events' step groups, and all events in time order.
class PlaneEvents {
 public:
  PlaneEvents(const XPlaneModel& plane, uint32_t plane_index) : plane(plane), index(plane_index) {}

  // Each line's events in time order (files are normally sorted already),
  // the lines of derived ids left out unless `with_derived_ids` (a TPU
  // plane's are read, as xprof reads them there).
  void SortLines(bool with_derived_ids) {
    sorted_lines_.resize(plane.lines.size());
    for (uint32_t l = 0; l < plane.lines.size(); ++l) {
      if (with_derived_ids || !schema::IsDerivedThreadId(plane.lines[l].id)) {
        sorted_lines_[l] = SortedLineEvents(plane, plane.lines[l]);
      }
    }
  }
  const std::vector<uint32_t>& SortedLine(uint32_t l) const { return sorted_lines_[l]; }

  // The plane's groups. Computed groups have inherited already; a file that
  // arrives grouped keeps its groups for the tools, as in xprof, and only its
  // derived lines (which xprof does not draw for such files) inherit here.
  void InheritGroups(const EventGroups& groups) {
    if (index >= groups.group_of.size() || groups.group_of[index].size() != plane.events.size()) return;
    const std::vector<int32_t>& file_groups = groups.group_of[index];
    bool any = false, missing = false;
    for (const auto& line : sorted_lines_) {
      for (uint32_t e : line) (file_groups[e] == kNoGroup ? missing : any) = true;
    }
    if (!any) return;
    group_ = file_groups.data();
    if (!missing || groups.computed) return;
    inherited_ = file_groups;
    InheritGroupsInOrder(TimeOrder(), inherited_);
    group_ = inherited_.data();
  }
  bool has_groups() const { return group_ != nullptr; }
  int32_t GroupOf(uint32_t e) const { return group_ == nullptr ? kNoGroup : group_[e]; }

  // The events of all lines in time order (begin, then longer first): the
  // lines' sorted orders merged, once (the groups and the Steps line both walk it).
  const std::vector<uint32_t>& TimeOrder() {
    if (!time_order_ready_) time_order_ = MergeSortedLines(plane, sorted_lines_);
    time_order_ready_ = true;
    return time_order_;
  }

  const XPlaneModel& plane;
  const uint32_t index;

 private:
  std::vector<std::vector<uint32_t>> sorted_lines_;  // per line of the plane (derived ones left empty)
  const int32_t* group_ = nullptr;                   // per event of the plane; null: no groups
  std::vector<int32_t> inherited_;                   // the groups after inheritance, when some were missing
  std::vector<uint32_t> time_order_;
  bool time_order_ready_ = false;
};

// DeriveStepEventsFromGroups: every grouped event of the plane, in time order.
void DeriveSteps(PlaneEvents& events, DerivedPlaneBuilder& out) {
  DerivedLine steps(Growth::kOverAnyGap);
  std::unordered_map<int32_t, uint32_t> step_metadata;
  for (uint32_t e : events.TimeOrder()) {
    const int32_t group = events.GroupOf(e);
    if (group == kNoGroup) continue;
    auto [it, inserted] = step_metadata.try_emplace(group, 0);
    if (inserted) it->second = out.Metadata(std::to_string(group));
    const Event& ev = events.plane.events[e];
    steps.ExpandOrAdd(it->second, ev.begin_ps, ev.begin_ps + std::max<int64_t>(ev.duration_ps, 0), group);
  }
  out.AddLine(schema::kThreadIdStepInfo, 0, schema::kStepLine, steps, /*steps=*/true);
}

// A kernel's scope range ids, innermost first, then each parent's up to the
// module's (the last).
void ScopeRangesOf(int64_t scope, const ScopeRangeTree& tree, std::vector<int64_t>& out) {
  out.clear();
  if (scope == kNoScopeRange) return;
  out.push_back(scope);
  for (auto it = tree.find(scope); it != tree.end(); it = tree.find(it->second)) {
    if (std::find(out.begin() + 1, out.end(), it->second) != out.end()) break;  // a cycle
    out.push_back(it->second);
  }
}

// A CUDA graph node's XLA op event names the graph and the launch's
// correlation id (the latest node's), on its innermost level.
void MarkCudaGraphNode(const KernelStats& k, DerivedLine& hlo_ops, size_t level, DerivedPlaneBuilder& out) {
  Stat graph = out.NamedStat(schema::kCudaGraphId, StatKind::kUint64);
  graph.u64 = k.cuda_graph_id;
  hlo_ops.SetStatOfLastEvent(level, graph);
  if (k.correlation_id != nullptr) {
    Stat correlation = out.NamedStat(schema::kCorrelationId, StatKind::kInt64);
    correlation.i64 = k.correlation_id->IntValue();
    hlo_ops.SetStatOfLastEvent(level, correlation);
  }
}

// The lines of one GPU stream: its kernels' name scopes, framework ops, XLA
// modules, XLA ops and source lines, at ids from `first_id` and display ids
// from `first_display` in kDisplayOrder.
void DeriveStream(const DeriveContext& context, const PlaneEvents& events, uint32_t stream_line, int64_t first_id,
                  int64_t first_display, KernelEventNames& names, DerivedPlaneBuilder& out) {
  const std::vector<uint32_t>& sorted = events.SortedLine(stream_line);
  DerivedLine tf_ops(Growth::kOverAnyGap);
  DerivedLine name_scopes(Growth::kOverAnyGap, {&tf_ops});
  DerivedLine hlo_ops(Growth::kOverAnyGap);
  DerivedLine modules(Growth::kOverAnyGap, {&name_scopes, &hlo_ops});
  DerivedLine sources(Growth::kOverAnyGap);
  // Mostly a kernel makes at most one event per line: room for that many
  // spares the copies (and fresh pages) of growing vectors of millions.
  for (DerivedLine* line : {&tf_ops, &name_scopes, &hlo_ops, &modules, &sources}) {
    ReserveLarge(line->events(), sorted.size());
  }
  std::vector<int64_t> scopes;
  for (uint32_t e : sorted) {
    const KernelStats k = derived::ReadKernelStats(events.plane, e, context.names);
    if (!k.kernel) continue;
    const Event& ev = events.plane.events[e];
    const int64_t begin = ev.begin_ps, end = ev.begin_ps + std::max<int64_t>(ev.duration_ps, 0);
    const int32_t group = events.GroupOf(e);
    ScopeRangesOf(k.hlo_module != kNoStr || k.hlo_op != kNoStr ? k.scope_range : kNoScopeRange, context.scope_tree,
                  scopes);
    if (k.hlo_module != kNoStr) {
      modules.ExpandOrAdd(names.ModuleMetadata(k), begin, end, group, scopes.empty() ? kNoScopeRange : scopes.back());
    }
    // An XLA op's framework op and source come from its HLO instruction, any
    // other kernel's framework op from its own stat.
    const KernelEventNames::FrameworkOpEntry* op = nullptr;
    if (k.hlo_op != kNoStr) {
      const std::vector<uint32_t>& levels = names.HloOpMetadata(k);
      std::reverse(scopes.begin(), scopes.end());  // outermost first, as the levels
      hlo_ops.ExpandOrAddLevels(levels, begin, end, group, scopes);
      if (k.cuda_graph_id != 0) MarkCudaGraphNode(k, hlo_ops, levels.size() - 1, out);
      const KernelEventNames::XlaOpSymbol& symbol = names.SymbolOfXlaOp(k);
      op = symbol.op;
      if (symbol.has_source) sources.ExpandOrAdd(symbol.source, begin, end, group);
    } else if (k.framework_op != kNoStr) {
      op = &names.FrameworkOpOfStat(k.framework_op);
    }
    if (op != nullptr) {
      if (op->scoped) name_scopes.ExpandOrAddLevels(op->scopes, begin, end, group);
      tf_ops.ExpandOrAdd(op->op, begin, end, group);
    }
  }
  const std::string suffix =
      std::string(schema::kDerivedFromStreamInfix) + std::to_string(events.plane.lines[stream_line].id);
  auto add = [&](int64_t offset, std::string_view kind, DerivedLine& line) {
    const auto* at = std::find(std::begin(kDisplayOrder), std::end(kDisplayOrder), offset);
    out.AddLine(first_id + offset, first_display + (at - std::begin(kDisplayOrder)), std::string(kind) + suffix, line);
  };
  add(kNameScopeOffset, schema::kFrameworkNameScopeLine, name_scopes);
  add(kTfOpOffset, schema::kFrameworkOpLine, tf_ops);
  add(kModuleOffset, schema::kXlaModuleLine, modules);
  add(kHloOpOffset, schema::kXlaOpLine, hlo_ops);
  add(kSourceOffset, schema::kSourceLine, sources);
}

// DeriveEventsFromAnnotations for GPU planes: one set of lines per stream,
// up to xprof's id range (compute streams first, then by number of events);
// `display_ids` gets the display id of each stream line.
void DeriveStreams(const DeriveContext& context, const PlaneEvents& events, KernelEventNames& names,
                   DerivedPlaneBuilder& out, std::vector<int64_t>& display_ids) {
  const XPlaneModel& plane = events.plane;
  std::vector<uint32_t> streams;
  for (uint32_t l = 0; l < plane.lines.size(); ++l) {
    if (!schema::IsDerivedThreadId(plane.lines[l].id)) streams.push_back(l);
  }
  auto is_compute = [&](uint32_t l) {
    return context.space.Str(plane.lines[l].name).find("Compute") != std::string_view::npos;
  };
  std::stable_sort(streams.begin(), streams.end(), [&](uint32_t a, uint32_t b) {
    if (is_compute(a) != is_compute(b)) return is_compute(a);
    return plane.lines[a].num_events > plane.lines[b].num_events;
  });
  display_ids.assign(plane.lines.size(), 0);
  int64_t next_id = schema::kThreadIdDeviceDerivedMin;
  int64_t next_display = 1;
  for (uint32_t l : streams) {
    if (next_id + kIdsPerStream > schema::kThreadIdDeviceDerivedMax) break;  // xprof's id range ends here
    display_ids[l] = next_display;
    DeriveStream(context, events, l, next_id, next_display + 1, names, out);
    next_id += kIdsPerStream;
    next_display += 1 + static_cast<int64_t>(std::size(kDisplayOrder));
  }
}

// The thread pool's closure regions (threadpool_regions.h) as xprof's
// preprocessing adds them, "ThreadpoolListener::Region" with the consumer
// context, each on a line of its file line's id, which the viewer draws as
// the same thread. A region shows the group of the StartRegion that opened
// it: both hang from the same link and the same enclosing events.
void DeriveThreadpoolRegions(const DeriveContext& context, const PlaneEvents& events,
                             const std::vector<ThreadpoolRegion>& regions, DerivedPlaneBuilder& out) {
  const uint32_t metadata = out.Metadata(kThreadpoolRegionName);
  Stat id = out.NamedStat(schema::kConsumerId, StatKind::kInt64);
  Stat type = out.NamedStat(schema::kConsumerType, StatKind::kInt64);
  type.i64 = kThreadpoolEventContextType;
  for (size_t i = 0; i < regions.size();) {
    const LineModel& file_line = events.plane.lines[regions[i].line];
    DerivedLine line(Growth::kOverAnyGap);
    for (const uint32_t l = regions[i].line; i < regions.size() && regions[i].line == l; ++i) {
      id.i64 = regions[i].consumer_id;
      line.AddEvent(metadata, regions[i].begin_ps, regions[i].end_ps,
                    context.groups.Group(events.index, regions[i].start_event), {id, type});
    }
    out.AddLine(file_line.id, file_line.display_id, context.space.Str(file_line.name), line);
  }
}

// DeriveEventsFromHostTrace: one event per step that launched kernels on
// this GPU, spanning the launches, named after the step.
void DeriveLaunchStats(const EventGroups& groups, const std::map<int32_t, LaunchGroup>& launches,
                       DerivedPlaneBuilder& out) {
  DerivedLine line(Growth::kOverAnyGap);
  for (const auto& [group, g] : launches) {
    auto name = groups.group_names.find(group);
    if (name == groups.group_names.end()) continue;
    Stat count = out.NamedStat("num_launches", StatKind::kInt64),
         max = out.NamedStat("max_launch_time_us", StatKind::kDouble),
         avg = out.NamedStat("avg_launch_time_us", StatKind::kDouble);
    count.i64 = g.count;
    max.f64 = static_cast<double>(g.max_ps) / 1e6;
    avg.f64 = g.sum_ps / static_cast<double>(g.count) / 1e6;
    line.AddEvent(out.Metadata("Launch Stats for " + name->second), g.begin_ps, g.end_ps, group, {count, max, avg});
  }
  out.AddLine(schema::kThreadIdKernelLaunch, 0, schema::kKernelLaunchLine, line);
}

// DeriveLinesFromStats on a TPU TensorCore plane: the framework op and the
// source line of every op that names them (stats of the op's metadata, its
// own overriding), over all lines in time order, asynchronous ops left out;
// and the host-offload copies (host_offload_rows.h).
void DeriveTpuLines(const DeriveContext& context, PlaneEvents& events, KernelEventNames& names,
                    DerivedPlaneBuilder& out) {
  const XSpaceModel& space = context.space;
  const XPlaneModel& plane = events.plane;
  DerivedLine tf_ops(Growth::kOverShortGaps);
  DerivedLine name_scopes(Growth::kOverShortGaps, {&tf_ops});
  DerivedLine sources(Growth::kOverShortGaps);
  std::vector<TpuOpStats> of_metadata(plane.event_metadata.size());
  std::vector<uint8_t> metadata_read(plane.event_metadata.size(), 0);
  std::unordered_map<StrId, uint32_t> source_metadata;
  derived::HostOffloadRows offloads(space, plane, out.plane(), out.strings());
  for (uint32_t e : events.TimeOrder()) {
    const Event& ev = plane.events[e];
    const uint32_t md = ev.metadata;
    if (!metadata_read[md]) {
      auto [mb, me] = plane.MetadataStatsOf(md);
      ReadTpuOpStats(mb, me, context.names, of_metadata[md]);
      metadata_read[md] = 1;
    }
    TpuOpStats op = of_metadata[md];
    auto [b, end] = plane.StatsOf(e);
    ReadTpuOpStats(b, end, context.names, op);
    if (op.is_async) continue;
    const int64_t begin_ps = ev.begin_ps, end_ps = ev.begin_ps + std::max<int64_t>(ev.duration_ps, 0);
    if (op.framework_op != kNoStr && !space.Str(op.framework_op).empty()) {
      const KernelEventNames::FrameworkOpEntry& entry = names.FrameworkOpOfStat(op.framework_op);
      if (entry.scoped) name_scopes.ExpandOrAddLevels(entry.scopes, begin_ps, end_ps, op.group);
      tf_ops.ExpandOrAdd(entry.op, begin_ps, end_ps, op.group);
    }
    if (op.source != kNoStr && !space.Str(op.source).empty()) {
      auto [it, fresh] = source_metadata.try_emplace(op.source, 0);
      if (fresh) it->second = out.Metadata(space.Str(op.source));
      sources.ExpandOrAdd(it->second, begin_ps, end_ps, op.group);
    }
    offloads.Add(e);
  }
  name_scopes.ResetLastEvents(0);
  out.AddLine(schema::kThreadIdTfNameScope, 0, schema::kFrameworkNameScopeLine, name_scopes);
  out.AddLine(schema::kThreadIdTfOp, 0, schema::kFrameworkOpLine, tf_ops);
  out.AddLine(schema::kThreadIdSource, 0, schema::kSourceLine, sources);
  for (size_t row = 0; row < offloads.NumRows(); ++row) {
    out.AddLine(schema::kThreadIdHostOffloadOpStart + static_cast<int64_t>(row), 0,
                std::string(schema::kHostOffloadOpLine) + " row " + std::to_string(row), offloads.Row(row));
  }
}

// GroupTpuXPlaneEvents' step line (tpu_step_line.h), in place of the file's.
void DeriveTpuSteps(const DeriveContext& context, const PlaneEvents& events, DerivedPlaneBuilder& out) {
  const XSpaceModel& space = context.space;
  const XPlaneModel& plane = events.plane;
  const std::optional<uint32_t> step_line = derived::TpuStepLine(space, plane);
  if (!context.groups.computed || !step_line) return;
  std::vector<derived::MergedTpuStep> steps =
      derived::MergeTpuSteps(space, events.index, context.groups, out.strings());
  if (steps.empty()) return;
  DerivedLine line(Growth::kOverAnyGap);
  for (derived::MergedTpuStep& step : steps) {
    line.AddEvent(out.Metadata(space.Str(plane.EventName(step.first_event))), step.begin_ps, step.end_ps, step.group,
                  std::move(step.stats));
  }
  const LineModel& file_line = plane.lines[*step_line];
  out.AddLine(file_line.id, file_line.display_id, space.Str(file_line.name), line);
  out.ReplaceFileLine(*step_line);
}

// The derived lines of one plane, into `out`, in the order of the plan's steps.
void DerivePlane(const DeriveContext& context, const PlanePlan& plan, DerivedTimelines& out) {
  const XPlaneModel& plane = context.space.planes[plan.plane];
  DerivedPlaneBuilder derived(plane.id, context.space.Str(plane.name), context.groups, out.space.strings);
  KernelEventNames names(context.space, context.programs, derived);
  PlaneEvents events(plane, plan.plane);
  std::vector<int64_t> display_ids;
  if (plan.steps || plan.streams || plan.tpu) events.SortLines(/*with_derived_ids=*/plan.tpu);
  if (plan.steps || plan.streams) events.InheritGroups(context.groups);
  if (plan.steps && events.has_groups()) DeriveSteps(events, derived);
  if (plan.streams) DeriveStreams(context, events, names, derived, display_ids);
  if (plan.launch_device >= 0 && static_cast<size_t>(plan.launch_device) < context.launches.size()) {
    DeriveLaunchStats(context.groups, context.launches[plan.launch_device], derived);
  }
  if (plan.tpu) DeriveTpuLines(context, events, names, derived);
  if (plan.tpu_steps) DeriveTpuSteps(context, events, derived);
  if (!plan.regions.empty()) DeriveThreadpoolRegions(context, events, plan.regions, derived);
  std::optional<derived::DerivedPlane> finished = std::move(derived).Finish();
  if (!finished) return;
  out.space.planes.push_back(std::move(finished->plane));
  out.file_plane.push_back(plan.plane);
  out.group_runs.push_back(std::move(finished->group_runs));
  out.replaced_file_lines.push_back(std::move(finished->replaced_file_lines));
  display_ids.resize(plane.lines.size(), 0);
  out.file_line_display_ids.push_back(std::move(display_ids));
}

// Moves the planes of `part` behind those of `out`. `part`'s strings are
// interned into `out`'s table in `part`'s id order, which is the order their
// first uses had: the merged table is the one a single table would have become.
void AppendDerived(DerivedTimelines& part, DerivedTimelines& out) {
  if (part.empty()) return;
  std::vector<StrId> to_out(part.space.strings.size());
  for (StrId id = 0; id < to_out.size(); ++id) to_out[id] = out.space.strings.Intern(part.space.Str(id));
  for (XPlaneModel& plane : part.space.planes) {
    plane.name = to_out[plane.name];
    for (LineModel& line : plane.lines) {
      line.name = to_out[line.name];
      line.display_name = to_out[line.display_name];
    }
    for (EventMetadata& md : plane.event_metadata) {
      md.name = to_out[md.name];
      md.display_name = to_out[md.display_name];
    }
    for (Stat& st : plane.event_stats) {
      st.name = to_out[st.name];
      if (st.kind == StatKind::kStr) st.str = to_out[st.str];
    }
    out.space.planes.push_back(std::move(plane));
  }
  out.file_plane.insert(out.file_plane.end(), part.file_plane.begin(), part.file_plane.end());
  for (auto& runs : part.group_runs) out.group_runs.push_back(std::move(runs));
  for (auto& lines : part.replaced_file_lines) out.replaced_file_lines.push_back(std::move(lines));
  for (auto& ids : part.file_line_display_ids) out.file_line_display_ids.push_back(std::move(ids));
}

}  // namespace

int32_t DerivedTimelines::Group(size_t plane, uint32_t event) const {
  return group_runs[plane].Find(event, kNoGroup);
}

size_t DerivedTimelines::MemoryBytes() const {
  size_t bytes = space.planes.empty() ? 0 : space.MemoryBytes();
  bytes += file_plane.capacity() * sizeof(uint32_t);
  for (const GroupRuns& runs : group_runs) bytes += runs.MemoryBytes();
  for (const auto& ids : file_line_display_ids) bytes += ids.capacity() * sizeof(int64_t);
  return bytes + file_groups.MemoryBytes();
}

DerivedTimelines GenerateDerivedTimelines(const XSpaceModel& space, std::shared_ptr<const EventGroups>* known_groups) {
  DerivedTimelines out;
  const StatNames names(space);
  const bool any_kernel_stat = names.kernel_details != kNoStr || names.cuda_graph_exec_id != kNoStr;
  std::vector<PlanePlan> plans;
  std::vector<uint32_t> gpu_planes;  // in file order: the launches' device ids index them
  const bool may_have_regions = MayHaveThreadpoolRegions(space);
  for (uint32_t i = 0; i < space.planes.size(); ++i) {
    const XPlaneModel& p = space.planes[i];
    const std::string_view plane_name = space.Str(p.name);
    const bool gpu = schema::IsGpuPlane(plane_name);
    if (gpu) gpu_planes.push_back(i);
    const bool tensor_core = schema::IsTpuCorePlane(plane_name);
    if (!gpu && !tensor_core && !schema::IsSparseCorePlane(plane_name)) {
      if (!may_have_regions) continue;
      PlanePlan plan;
      plan.plane = i;
      plan.regions = FindThreadpoolRegions(space, p);
      if (!plan.regions.empty()) plans.push_back(std::move(plan));
      continue;
    }
    PlanePlan plan;
    plan.plane = i;
    plan.steps = gpu;
    plan.streams = gpu && any_kernel_stat;
    plan.tpu = tensor_core;
    plan.tpu_steps = !gpu;
    for (const LineModel& line : p.lines) {
      const std::string_view name = space.Str(line.name);
      if (name == schema::kStepLine || line.id == schema::kThreadIdStepInfo) plan.steps = false;
      const bool annotation_line =
          (line.id >= schema::kThreadIdTfNameScope && line.id <= schema::kThreadIdSource) ||
          (line.id >= schema::kThreadIdDeviceDerivedMin && line.id <= schema::kThreadIdDeviceDerivedMax);
      for (std::string_view kind : {schema::kXlaModuleLine, schema::kXlaOpLine, schema::kFrameworkOpLine,
                                    schema::kFrameworkNameScopeLine, schema::kTensorFlowOpLine,
                                    schema::kTensorFlowNameScopeLine, schema::kSourceLine}) {
        if (gpu && (annotation_line || IsDerivedLineName(name, kind))) plan.streams = false;
      }
      // A TPU plane written after this processing has its framework lines.
      if (!gpu && (annotation_line || name == schema::kFrameworkOpLine || name == schema::kTensorFlowOpLine)) {
        plan.tpu = false;
      }
    }
    if (p.events.empty()) plan.steps = plan.streams = plan.tpu = plan.tpu_steps = false;
    plans.push_back(std::move(plan));
  }
  // Every event shows its group, so every profile is grouped.
  const bool need_groups = space.NumEvents() > 0;
  // The HLO programs name the framework ops and source lines of XLA kernels.
  const bool xla_kernels = names.hlo_op != kNoStr && names.program_id != kNoStr &&
                           std::any_of(plans.begin(), plans.end(), [](const PlanePlan& p) { return p.streams; });
  std::shared_ptr<const EventGroups> shared_groups = known_groups != nullptr ? *known_groups : nullptr;
  HloPrograms programs;
  RunBoth(
      [&] {
        if (need_groups && !shared_groups) {
          const auto start = std::chrono::steady_clock::now();
          shared_groups = std::make_shared<const EventGroups>(GroupEvents(space));
          out.grouping_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        }
      },
      [&] {
        if (xla_kernels) programs = LoadHloPrograms(space);
      });
  if (known_groups != nullptr && need_groups) *known_groups = shared_groups;
  static const EventGroups kNoGroups;
  const EventGroups& groups = shared_groups ? *shared_groups : kNoGroups;
  out.file_groups = MakeFileGroupArgs(space, groups);
  if (plans.empty()) return out;
  // Launch Stats need the host's launches; a plane that already has the line
  // gets none.
  const bool any_launches = need_groups && names.device_id != kNoStr && names.correlation_id != kNoStr;
  for (PlanePlan& plan : plans) {
    // gpu_planes is in file order, ascending: a search, not a scan (200,000 devices made this quadratic).
    auto gpu = std::lower_bound(gpu_planes.begin(), gpu_planes.end(), plan.plane);
    if (!any_launches || gpu == gpu_planes.end() || *gpu != plan.plane) continue;
    const XPlaneModel& p = space.planes[plan.plane];
    const bool has_line = std::any_of(p.lines.begin(), p.lines.end(), [&](const LineModel& l) {
      return l.id == schema::kThreadIdKernelLaunch || space.Str(l.name) == schema::kKernelLaunchLine;
    });
    if (!has_line) plan.launch_device = gpu - gpu_planes.begin();
  }
  std::erase_if(plans, [](const PlanePlan& p) {
    return !p.steps && !p.streams && !p.tpu && !p.tpu_steps && p.regions.empty() && p.launch_device < 0;
  });
  const ScopeRangeTree scope_tree = names.scope_range_id != kNoStr ? ReadScopeRangeTree(space) : ScopeRangeTree{};
  // The host's launches first (on two threads of their own), then the
  // planes: they are independent, each derived into a space of its own, the
  // planes shared out between two threads by event count, then merged in order.
  const bool launch_lines = std::any_of(plans.begin(), plans.end(), [](const PlanePlan& p) { return p.launch_device >= 0; });
  const LaunchesPerGpu launches =
      launch_lines && !CancelRequested() ? CollectLaunches(space, names, groups, gpu_planes.size()) : LaunchesPerGpu{};
  const DeriveContext context{space, groups, names, programs, scope_tree, launches};
  std::vector<DerivedTimelines> parts(plans.size());
  ForEachOnBoth(
      plans.size(), [&](size_t i) { return space.planes[plans[i].plane].events.size(); },
      [&](size_t i) {
        if (CancelRequested()) return;  // the caller discards a partial result
        DerivePlane(context, plans[i], parts[i]);
      });
  for (DerivedTimelines& part : parts) AppendDerived(part, out);
  return out;
}

}  // namespace tbprof
