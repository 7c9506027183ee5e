#include "convert/analysis/trace_viewer/derived_timeline.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "convert/analysis/trace_viewer/derived_line.h"
#include "convert/analysis/common/hlo_module.h"
#include "convert/analysis/trace_viewer/host_offload_rows.h"
#include "convert/analysis/trace_viewer/launch_stats.h"
#include "convert/analysis/common/tf_op_utils.h"
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
using derived::Growth;
using derived::kNoScopeRange;
using derived::PendingEvent;

// Ids reserved per stream: name scope, framework op, module, XLA op, overhead, source.
constexpr int64_t kIdsPerStream = schema::kThreadIdSource - schema::kThreadIdTfNameScope + 1;
constexpr int64_t kNameScopeOffset = 0;
constexpr int64_t kTfOpOffset = schema::kThreadIdTfOp - schema::kThreadIdTfNameScope;
constexpr int64_t kModuleOffset = schema::kThreadIdHloModule - schema::kThreadIdTfNameScope;
constexpr int64_t kHloOpOffset = schema::kThreadIdHloOp - schema::kThreadIdTfNameScope;
constexpr int64_t kSourceOffset = schema::kThreadIdSource - schema::kThreadIdTfNameScope;
// The line ids a stream's derived lines take, in display order (ids ascending).
constexpr int64_t kDisplayOrder[] = {kNameScopeOffset, kTfOpOffset, kModuleOffset, kHloOpOffset, kSourceOffset};

// A finished derived line waiting for its plane to be done.
struct PendingLine {
  int64_t id = 0, display_id = 0;
  StrId name = kNoStr;
  bool steps = false;  // the Steps line, whose events also name their step
  std::vector<PendingEvent> events;
  std::vector<std::vector<Stat>> extras;
};

// The stats of one device event that the derivation reads.
struct KernelStats {
  bool kernel = false;
  StrId hlo_module = kNoStr, hlo_op = kNoStr, framework_op = kNoStr, level0 = kNoStr;
  bool has_program_id = false;
  uint64_t program_id = 0;
  uint64_t cuda_graph_id = 0;  // a CUDA graph's node: its graph (0: none)
  const Stat* correlation_id = nullptr;
  int64_t scope_range = kNoScopeRange;
};

// The stat ids the derivation reads (schema::StatIds: resolved once per space).
using StatNames = schema::StatIds;

KernelStats ReadKernelStats(const XPlaneModel& p, uint32_t e, const StatNames& n) {
  KernelStats k;
  auto [b, end] = p.StatsOf(e);
  for (const Stat* s = b; s != end; ++s) {
    if (s->name == kNoStr) continue;
    const bool str = s->kind == StatKind::kStr && s->str != kNoStr;
    if (s->name == n.kernel_details) {
      k.kernel |= str;
    } else if (s->name == n.cuda_graph_exec_id) {
      k.kernel |= s->IsInteger();
    } else if (s->name == n.hlo_module) {
      if (str) k.hlo_module = s->str;
    } else if (s->name == n.hlo_op) {
      if (str) k.hlo_op = s->str;
    } else if (s->name == n.program_id) {
      k.has_program_id = s->IsInteger();
      k.program_id = s->UintValue();
    } else if (s->name == n.tf_op) {
      if (str) k.framework_op = s->str;
    } else if (s->name == n.level0) {
      if (str) k.level0 = s->str;
    } else if (s->name == n.cuda_graph_id) {
      k.cuda_graph_id = s->UintValue();
    } else if (s->name == n.correlation_id) {
      k.correlation_id = s;
    } else if (s->name == n.scope_range_id) {
      if (s->IsInteger()) k.scope_range = s->IntValue();
    }
  }
  if (k.framework_op == kNoStr) k.framework_op = k.level0;
  return k;
}

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

// Builds the derived lines of one device plane into `out`.
class PlaneDeriver {
 public:
  PlaneDeriver(const DeriveContext& context, uint32_t plane_index, DerivedTimelines& out)
      : space_(context.space), plane_(space_.planes[plane_index]), plane_index_(plane_index), groups_(context.groups),
        names_(context.names), programs_(context.programs), scope_tree_(context.scope_tree),
        launches_(context.launches), out_(out) {}

  void Run(const PlanePlan& plan) {
    XPlaneModel derived;
    derived.id = plane_.id;
    derived.name = out_.space.strings.Intern(space_.Str(plane_.name));
    derived.event_metadata.emplace_back();  // index 0: the nameless placeholder
    derived_ = &derived;
    step_name_ = out_.space.strings.Intern(schema::kStepName);
    std::vector<int64_t> display_ids;
    // Each line's events in time order (files are normally sorted already).
    // A TPU plane's derived-id lines are read too, as xprof reads them there.
    sorted_lines_.resize(plane_.lines.size());
    if (plan.steps || plan.streams || plan.tpu) {
      for (uint32_t l = 0; l < plane_.lines.size(); ++l) {
        if (plan.tpu || !schema::IsDerivedThreadId(plane_.lines[l].id)) {
          sorted_lines_[l] = SortedLineEvents(plane_, plane_.lines[l]);
        }
      }
    }
    if (plan.steps || plan.streams) InheritGroups();
    if (plan.steps && group_ != nullptr) DeriveSteps();
    if (plan.streams) DeriveStreams(display_ids);
    if (plan.launch_device >= 0) {
      if (static_cast<size_t>(plan.launch_device) < launches_.size()) DeriveLaunchStats(launches_[plan.launch_device]);
    }
    if (plan.tpu) DeriveTpuLines();
    if (plan.tpu_steps) DeriveTpuSteps();
    if (!plan.regions.empty()) DeriveThreadpoolRegions(plan.regions);
    EmitLines();
    if (derived.lines.empty()) return;
    out_.space.planes.push_back(std::move(derived));
    out_.file_plane.push_back(plane_index_);
    out_.group_runs.push_back(std::move(group_runs_));
    out_.replaced_file_lines.push_back(std::move(replaced_lines_));
    display_ids.resize(plane_.lines.size(), 0);
    out_.file_line_display_ids.push_back(std::move(display_ids));
  }

 private:
  int32_t GroupOf(uint32_t e) const { return group_ == nullptr ? kNoGroup : group_[e]; }

  // The events of all streams in time order (begin, then longer first): the
  // streams' sorted orders merged, once (the groups and the Steps line both walk it).
  const std::vector<uint32_t>& TimeOrder() {
    if (!time_order_ready_) time_order_ = MergeSortedLines(plane_, sorted_lines_);
    time_order_ready_ = true;
    return time_order_;
  }

  // The plane's groups. Computed groups have inherited already; a file that
  // arrives grouped keeps its groups for the tools, as in xprof, and only its
  // derived lines (which xprof does not draw for such files) inherit here.
  void InheritGroups() {
    if (plane_index_ >= groups_.group_of.size() || groups_.group_of[plane_index_].size() != plane_.events.size()) return;
    const std::vector<int32_t>& file_groups = groups_.group_of[plane_index_];
    bool any = false, missing = false;
    for (const auto& line : sorted_lines_) {
      for (uint32_t e : line) (file_groups[e] == kNoGroup ? missing : any) = true;
    }
    if (!any) return;
    group_ = file_groups.data();
    if (!missing || groups_.computed) return;
    inherited_ = file_groups;
    InheritGroupsInOrder(TimeOrder(), inherited_);
    group_ = inherited_.data();
  }

  // The plane's metadata named `name` (created on first use).
  uint32_t Metadata(std::string_view name, std::string_view display_name = {}) {
    auto [it, inserted] = metadata_.try_emplace(std::string(name), 0);
    if (inserted) it->second = NewMetadata(name);
    EventMetadata& md = derived_->event_metadata[it->second];
    if (md.display_name == kNoStr && !display_name.empty()) md.display_name = out_.space.strings.Intern(display_name);
    return it->second;
  }

  uint32_t NewMetadata(std::string_view name) {
    const auto index = static_cast<uint32_t>(derived_->event_metadata.size());
    EventMetadata md;
    md.id = static_cast<int64_t>(index);
    md.name = out_.space.strings.Intern(name);
    derived_->event_metadata.push_back(std::move(md));
    return index;
  }

  // Lines are kept until the plane is done so that its events and stats are
  // allocated once, at their exact sizes.
  void AddLine(int64_t id, int64_t display_id, std::string_view name, DerivedLine& source, bool steps = false) {
    std::vector<PendingEvent>& events = source.events();
    if (events.empty()) return;
    PendingLine line;
    line.id = id;
    line.display_id = display_id;
    line.name = out_.space.strings.Intern(name);
    line.steps = steps;
    // Step names take their string ids in the order the events name them.
    if (steps) {
      for (const PendingEvent& pe : events) {
        if (auto it = groups_.group_names.find(pe.group); pe.group != kNoGroup && it != groups_.group_names.end()) {
          out_.space.strings.Intern(it->second);
        }
      }
    }
    line.events.swap(events);
    line.extras.swap(source.extras());
    pending_lines_.push_back(std::move(line));
  }

  void EmitLines() {
    size_t num_events = 0, num_stats = 0;
    for (const PendingLine& line : pending_lines_) {
      num_events += line.events.size();
      for (const PendingEvent& pe : line.events) {
        num_stats += line.steps && pe.group != kNoGroup && groups_.group_names.count(pe.group) != 0;
      }
      for (const std::vector<Stat>& extra : line.extras) num_stats += extra.size();
    }
    ReserveLarge(derived_->events, num_events);
    ReserveLarge(derived_->event_stats, num_stats);
    for (PendingLine& line : pending_lines_) EmitLine(line);
    std::vector<PendingLine>().swap(pending_lines_);
  }

  void EmitLine(PendingLine& pending) {
    XPlaneModel& p = *derived_;
    std::vector<PendingEvent>& events = pending.events;
    const bool steps = pending.steps;
    LineModel line;
    line.id = pending.id;
    line.display_id = pending.display_id;
    line.name = pending.name;
    line.first_event = static_cast<uint32_t>(p.events.size());
    line.num_events = static_cast<uint32_t>(events.size());
    for (const PendingEvent& pe : events) {
      Event e;
      e.begin_ps = pe.begin_ps;
      e.duration_ps = pe.end_ps - pe.begin_ps;
      e.metadata = pe.metadata;
      e.first_stat = static_cast<uint32_t>(p.event_stats.size());
      group_runs_.Add(static_cast<uint32_t>(p.events.size()), pe.group);
      p.events.push_back(e);
      if (pe.group != kNoGroup && steps) {
        if (auto it = groups_.group_names.find(pe.group); it != groups_.group_names.end()) {
          Stat n;
          n.name = step_name_;
          n.kind = StatKind::kStr;
          n.str = out_.space.strings.Intern(it->second);
          p.event_stats.push_back(n);
        }
      }
      if (pe.extra != 0) {
        const std::vector<Stat>& extra = pending.extras[pe.extra - 1];
        p.event_stats.insert(p.event_stats.end(), extra.begin(), extra.end());
      }
    }
    p.lines.push_back(line);
    std::vector<PendingEvent>().swap(events);
    std::vector<std::vector<Stat>>().swap(pending.extras);
  }

  // DeriveStepEventsFromGroups: every grouped event of the plane, in time order.
  void DeriveSteps() {
    DerivedLine steps(Growth::kOverAnyGap);
    std::unordered_map<int32_t, uint32_t> step_metadata;
    for (uint32_t e : TimeOrder()) {
      const int32_t group = GroupOf(e);
      if (group == kNoGroup) continue;
      auto [it, inserted] = step_metadata.try_emplace(group, 0);
      if (inserted) it->second = Metadata(std::to_string(group));
      const Event& ev = plane_.events[e];
      steps.ExpandOrAdd(it->second, ev.begin_ps, ev.begin_ps + std::max<int64_t>(ev.duration_ps, 0), group);
    }
    AddLine(schema::kThreadIdStepInfo, 0, schema::kStepLine, steps, /*steps=*/true);
  }

  struct FrameworkOpEntry {
    bool scoped = false;  // TensorFlow and JAX ops have name scopes
    std::vector<uint32_t> scopes;
    uint32_t op = 0;
  };

  const FrameworkOpEntry& FrameworkOp(std::string_view text) {
    auto [it, inserted] = framework_ops_.try_emplace(std::string(text));
    if (!inserted) return it->second;
    FrameworkOpEntry& entry = it->second;
    const TfOp op = ParseTfOpFullname(text);
    entry.scoped = op.category == TfOpCategory::kTensorFlow || op.category == TfOpCategory::kJax;
    if (entry.scoped) {
      // Every '/' component of the name but the last (the op itself).
      std::string_view rest = op.name;
      for (size_t slash = rest.find('/'); slash != std::string_view::npos; slash = rest.find('/')) {
        entry.scopes.push_back(Metadata(rest.substr(0, slash)));
        rest.remove_prefix(slash + 1);
      }
    }
    entry.op = Metadata(text, TfOpEventName(op));
    return entry;
  }

  // A kernel's framework op named by its own stat (tf_op, or level 0).
  const FrameworkOpEntry& FrameworkOpOfStat(StrId fullname) {
    if (fullname >= framework_op_of_stat_.size()) framework_op_of_stat_.resize(space_.strings.size(), nullptr);
    const FrameworkOpEntry*& entry = framework_op_of_stat_[fullname];
    if (entry == nullptr) entry = &FrameworkOp(space_.Str(fullname));
    return *entry;
  }

  // What the HLO protos tell of an XLA op (xprof's symbol resolver): its
  // framework op, as its instruction's metadata names it ("op_name:op_type"),
  // and its source line; unknown program, instruction or fact: null / none.
  struct XlaOpSymbol {
    const FrameworkOpEntry* op = nullptr;
    bool has_source = false;
    uint32_t source = 0;  // metadata of the source line's event
  };
  const XlaOpSymbol& SymbolOfXlaOp(const KernelStats& k) {
    static const XlaOpSymbol kUnknown;
    if (!k.has_program_id) return kUnknown;
    auto [it, inserted] = symbols_.try_emplace(std::make_pair(k.program_id, k.hlo_op));
    if (!inserted) return it->second;
    const HloProgram* program = programs_.Find(k.program_id);
    if (program == nullptr) return it->second;
    std::string_view innermost = space_.Str(k.hlo_op);
    if (size_t at = innermost.rfind("::"); at != std::string_view::npos) innermost.remove_prefix(at + 2);
    const HloInstruction* inst = program->FindInstruction(innermost);
    if (inst == nullptr) return it->second;
    if (!inst->metadata().op_name().empty()) {
      it->second.op = &FrameworkOp(inst->metadata().op_name() + ":" + inst->metadata().op_type());
    }
    if (std::string source = InstructionSourceInfo(*inst); !source.empty()) {
      it->second.has_source = true;
      it->second.source = Metadata(source);
    }
    return it->second;
  }

  uint32_t ModuleMetadata(const KernelStats& k) {
    auto [it, inserted] = modules_.try_emplace(std::make_tuple(k.has_program_id, k.program_id, k.hlo_module), 0);
    if (inserted) {
      std::string name(space_.Str(k.hlo_module));
      if (k.has_program_id) name += "(" + std::to_string(k.program_id) + ")";
      it->second = Metadata(name);
    }
    return it->second;
  }

  // The XLA op's events per depth: "<program id or module>/<op>", shown as "<op>".
  const std::vector<uint32_t>& HloOpMetadata(const KernelStats& k) {
    const auto key = std::make_tuple(k.has_program_id, k.has_program_id ? k.program_id : 0,
                                     k.has_program_id ? kNoStr : k.hlo_module, k.hlo_op);
    auto [it, inserted] = hlo_ops_.try_emplace(key);
    if (!inserted) return it->second;
    const std::string prefix =
        (k.has_program_id ? std::to_string(k.program_id) : std::string(space_.Str(k.hlo_module))) + "/";
    std::string_view rest = space_.Str(k.hlo_op);
    constexpr std::string_view kLevelSeparator = "::";
    while (true) {
      const size_t at = rest.find(kLevelSeparator);
      const std::string_view op = rest.substr(0, at);
      it->second.push_back(Metadata(prefix + std::string(op), op));
      if (at == std::string_view::npos) break;
      rest.remove_prefix(at + kLevelSeparator.size());
    }
    return it->second;
  }

  // DeriveEventsFromAnnotations for GPU planes: one set of lines per stream.
  void DeriveStreams(std::vector<int64_t>& display_ids) {
    std::vector<uint32_t> streams;
    for (uint32_t l = 0; l < plane_.lines.size(); ++l) {
      if (!schema::IsDerivedThreadId(plane_.lines[l].id)) streams.push_back(l);
    }
    auto is_compute = [&](uint32_t l) {
      return space_.Str(plane_.lines[l].name).find("Compute") != std::string_view::npos;
    };
    std::stable_sort(streams.begin(), streams.end(), [&](uint32_t a, uint32_t b) {
      if (is_compute(a) != is_compute(b)) return is_compute(a);
      return plane_.lines[a].num_events > plane_.lines[b].num_events;
    });
    display_ids.assign(plane_.lines.size(), 0);
    int64_t next_id = schema::kThreadIdDeviceDerivedMin;
    int64_t next_display = 1;
    for (uint32_t l : streams) {
      if (next_id + kIdsPerStream > schema::kThreadIdDeviceDerivedMax) break;  // xprof's id range ends here
      display_ids[l] = next_display;
      DeriveStream(plane_.lines[l], sorted_lines_[l], next_id, next_display + 1);
      next_id += kIdsPerStream;
      next_display += 1 + static_cast<int64_t>(std::size(kDisplayOrder));
    }
  }

  // A kernel's scope range ids, innermost first, then each parent's up to the
  // module's (the last).
  void ScopeRangesOf(int64_t scope, std::vector<int64_t>& out) const {
    out.clear();
    if (scope == kNoScopeRange) return;
    out.push_back(scope);
    for (auto it = scope_tree_.find(scope); it != scope_tree_.end(); it = scope_tree_.find(it->second)) {
      if (std::find(out.begin() + 1, out.end(), it->second) != out.end()) break;  // a cycle
      out.push_back(it->second);
    }
  }

  void DeriveStream(const LineModel& stream, const std::vector<uint32_t>& sorted, int64_t first_id,
                    int64_t first_display) {
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
      const KernelStats k = ReadKernelStats(plane_, e, names_);
      if (!k.kernel) continue;
      const Event& ev = plane_.events[e];
      const int64_t begin = ev.begin_ps, end = ev.begin_ps + std::max<int64_t>(ev.duration_ps, 0);
      const int32_t group = GroupOf(e);
      ScopeRangesOf(k.hlo_module != kNoStr || k.hlo_op != kNoStr ? k.scope_range : kNoScopeRange, scopes);
      if (k.hlo_module != kNoStr) {
        modules.ExpandOrAdd(ModuleMetadata(k), begin, end, group, scopes.empty() ? kNoScopeRange : scopes.back());
      }
      // An XLA op's framework op and source come from its HLO instruction, any
      // other kernel's framework op from its own stat.
      const FrameworkOpEntry* op = nullptr;
      if (k.hlo_op != kNoStr) {
        const std::vector<uint32_t>& levels = HloOpMetadata(k);
        std::reverse(scopes.begin(), scopes.end());  // outermost first, as the levels
        hlo_ops.ExpandOrAddLevels(levels, begin, end, group, scopes);
        if (k.cuda_graph_id != 0) MarkCudaGraphNode(k, hlo_ops, levels.size() - 1);
        const XlaOpSymbol& symbol = SymbolOfXlaOp(k);
        op = symbol.op;
        if (symbol.has_source) sources.ExpandOrAdd(symbol.source, begin, end, group);
      } else if (k.framework_op != kNoStr) {
        op = &FrameworkOpOfStat(k.framework_op);
      }
      if (op != nullptr) {
        if (op->scoped) name_scopes.ExpandOrAddLevels(op->scopes, begin, end, group);
        tf_ops.ExpandOrAdd(op->op, begin, end, group);
      }
    }
    const std::string suffix = std::string(schema::kDerivedFromStreamInfix) + std::to_string(stream.id);
    auto add = [&](int64_t offset, std::string_view kind, DerivedLine& line) {
      const auto* at = std::find(std::begin(kDisplayOrder), std::end(kDisplayOrder), offset);
      AddLine(first_id + offset, first_display + (at - std::begin(kDisplayOrder)), std::string(kind) + suffix, line);
    };
    add(kNameScopeOffset, schema::kFrameworkNameScopeLine, name_scopes);
    add(kTfOpOffset, schema::kFrameworkOpLine, tf_ops);
    add(kModuleOffset, schema::kXlaModuleLine, modules);
    add(kHloOpOffset, schema::kXlaOpLine, hlo_ops);
    add(kSourceOffset, schema::kSourceLine, sources);
  }

  // A CUDA graph node's XLA op event names the graph and the launch's
  // correlation id (the latest node's), on its innermost level.
  void MarkCudaGraphNode(const KernelStats& k, DerivedLine& hlo_ops, size_t level) {
    Stat graph = NamedStat(schema::kCudaGraphId, StatKind::kUint64);
    graph.u64 = k.cuda_graph_id;
    hlo_ops.SetStatOfLastEvent(level, graph);
    if (k.correlation_id != nullptr) {
      Stat correlation = NamedStat(schema::kCorrelationId, StatKind::kInt64);
      correlation.i64 = k.correlation_id->IntValue();
      hlo_ops.SetStatOfLastEvent(level, correlation);
    }
  }

  Stat NamedStat(std::string_view name, StatKind kind) {
    Stat s;
    s.name = out_.space.strings.Intern(name);
    s.kind = kind;
    return s;
  }

  // The thread pool's closure regions (threadpool_regions.h) as xprof's
  // preprocessing adds them, "ThreadpoolListener::Region" with the consumer
  // context, each on a line of its file line's id, which the viewer draws as
  // the same thread. A region shows the group of the StartRegion that opened
  // it: both hang from the same link and the same enclosing events.
  void DeriveThreadpoolRegions(const std::vector<ThreadpoolRegion>& regions) {
    const uint32_t metadata = Metadata(kThreadpoolRegionName);
    Stat id = NamedStat(schema::kConsumerId, StatKind::kInt64);
    Stat type = NamedStat(schema::kConsumerType, StatKind::kInt64);
    type.i64 = kThreadpoolEventContextType;
    for (size_t i = 0; i < regions.size();) {
      const LineModel& file_line = plane_.lines[regions[i].line];
      DerivedLine line(Growth::kOverAnyGap);
      for (const uint32_t l = regions[i].line; i < regions.size() && regions[i].line == l; ++i) {
        id.i64 = regions[i].consumer_id;
        line.AddEvent(metadata, regions[i].begin_ps, regions[i].end_ps, groups_.Group(plane_index_, regions[i].start_event),
                      {id, type});
      }
      AddLine(file_line.id, file_line.display_id, space_.Str(file_line.name), line);
    }
  }

  // DeriveEventsFromHostTrace: one event per step that launched kernels on
  // this GPU, spanning the launches, named after the step.
  void DeriveLaunchStats(const std::map<int32_t, LaunchGroup>& launches) {
    DerivedLine line(Growth::kOverAnyGap);
    for (const auto& [group, g] : launches) {
      auto name = groups_.group_names.find(group);
      if (name == groups_.group_names.end()) continue;
      Stat count = NamedStat("num_launches", StatKind::kInt64), max = NamedStat("max_launch_time_us", StatKind::kDouble),
           avg = NamedStat("avg_launch_time_us", StatKind::kDouble);
      count.i64 = g.count;
      max.f64 = static_cast<double>(g.max_ps) / 1e6;
      avg.f64 = g.sum_ps / static_cast<double>(g.count) / 1e6;
      line.AddEvent(Metadata("Launch Stats for " + name->second), g.begin_ps, g.end_ps, group, {count, max, avg});
    }
    AddLine(schema::kThreadIdKernelLaunch, 0, schema::kKernelLaunchLine, line);
  }

  // DeriveLinesFromStats on a TPU TensorCore plane: the framework op and the
  // source line of every op that names them (stats of the op's metadata, its
  // own overriding), over all lines in time order, asynchronous ops left out;
  // and the host-offload copies (host_offload_rows.h).
  void DeriveTpuLines() {
    DerivedLine tf_ops(Growth::kOverShortGaps);
    DerivedLine name_scopes(Growth::kOverShortGaps, {&tf_ops});
    DerivedLine sources(Growth::kOverShortGaps);
    std::vector<TpuOpStats> of_metadata(plane_.event_metadata.size());
    std::vector<uint8_t> metadata_read(plane_.event_metadata.size(), 0);
    std::unordered_map<StrId, uint32_t> source_metadata;
    derived::HostOffloadRows offloads(space_, plane_, *derived_, out_.space.strings);
    for (uint32_t e : TimeOrder()) {
      const Event& ev = plane_.events[e];
      const uint32_t md = ev.metadata;
      if (!metadata_read[md]) {
        auto [mb, me] = plane_.MetadataStatsOf(md);
        ReadTpuOpStats(mb, me, names_, of_metadata[md]);
        metadata_read[md] = 1;
      }
      TpuOpStats op = of_metadata[md];
      auto [b, end] = plane_.StatsOf(e);
      ReadTpuOpStats(b, end, names_, op);
      if (op.is_async) continue;
      const int64_t begin_ps = ev.begin_ps, end_ps = ev.begin_ps + std::max<int64_t>(ev.duration_ps, 0);
      if (op.framework_op != kNoStr && !space_.Str(op.framework_op).empty()) {
        const FrameworkOpEntry& entry = FrameworkOpOfStat(op.framework_op);
        if (entry.scoped) name_scopes.ExpandOrAddLevels(entry.scopes, begin_ps, end_ps, op.group);
        tf_ops.ExpandOrAdd(entry.op, begin_ps, end_ps, op.group);
      }
      if (op.source != kNoStr && !space_.Str(op.source).empty()) {
        auto [it, fresh] = source_metadata.try_emplace(op.source, 0);
        if (fresh) it->second = Metadata(space_.Str(op.source));
        sources.ExpandOrAdd(it->second, begin_ps, end_ps, op.group);
      }
      offloads.Add(e);
    }
    name_scopes.ResetLastEvents(0);
    AddLine(schema::kThreadIdTfNameScope, 0, schema::kFrameworkNameScopeLine, name_scopes);
    AddLine(schema::kThreadIdTfOp, 0, schema::kFrameworkOpLine, tf_ops);
    AddLine(schema::kThreadIdSource, 0, schema::kSourceLine, sources);
    for (size_t row = 0; row < offloads.NumRows(); ++row) {
      AddLine(schema::kThreadIdHostOffloadOpStart + static_cast<int64_t>(row), 0,
              std::string(schema::kHostOffloadOpLine) + " row " + std::to_string(row), offloads.Row(row));
    }
  }

  // GroupTpuXPlaneEvents' step line (tpu_step_line.h), in place of the file's.
  void DeriveTpuSteps() {
    const std::optional<uint32_t> step_line = derived::TpuStepLine(space_, plane_);
    if (!groups_.computed || !step_line) return;
    std::vector<derived::MergedTpuStep> steps = derived::MergeTpuSteps(space_, plane_index_, groups_, out_.space.strings);
    if (steps.empty()) return;
    DerivedLine line(Growth::kOverAnyGap);
    for (derived::MergedTpuStep& step : steps) {
      line.AddEvent(Metadata(space_.Str(plane_.EventName(step.first_event))), step.begin_ps, step.end_ps, step.group,
                    std::move(step.stats));
    }
    const LineModel& file_line = plane_.lines[*step_line];
    AddLine(file_line.id, file_line.display_id, space_.Str(file_line.name), line);
    replaced_lines_.push_back(*step_line);
  }

  const XSpaceModel& space_;
  const XPlaneModel& plane_;
  const uint32_t plane_index_;
  const EventGroups& groups_;
  const StatNames& names_;
  const HloPrograms& programs_;
  const ScopeRangeTree& scope_tree_;
  const LaunchesPerGpu& launches_;
  DerivedTimelines& out_;
  XPlaneModel* derived_ = nullptr;
  std::vector<PendingLine> pending_lines_;
  std::vector<std::vector<uint32_t>> sorted_lines_;  // per line of the plane (derived ones left empty)
  const int32_t* group_ = nullptr;                   // per event of the plane; null: no groups
  std::vector<int32_t> inherited_;                   // the groups after inheritance, when some were missing
  std::vector<uint32_t> time_order_;
  bool time_order_ready_ = false;
  StrId step_name_ = kNoStr;
  GroupRuns group_runs_;  // of the derived plane being built
  std::vector<uint32_t> replaced_lines_;  // file lines a derived line replaces
  std::unordered_map<std::string, uint32_t> metadata_;
  std::unordered_map<std::string, FrameworkOpEntry> framework_ops_;  // node-based: entries stay in place
  // By string id of the file: one pointer per string, read once per kernel (a
  // hash map lookup per kernel cost more than the rest of the stream).
  std::vector<const FrameworkOpEntry*> framework_op_of_stat_;
  std::map<std::pair<uint64_t, StrId>, XlaOpSymbol> symbols_;
  std::map<std::tuple<bool, uint64_t, StrId>, uint32_t> modules_;
  std::map<std::tuple<bool, uint64_t, StrId, StrId>, std::vector<uint32_t>> hlo_ops_;
};


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
    auto gpu = std::find(gpu_planes.begin(), gpu_planes.end(), plan.plane);
    if (!any_launches || gpu == gpu_planes.end()) continue;
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
        PlaneDeriver(context, plans[i].plane, parts[i]).Run(plans[i]);
      });
  for (DerivedTimelines& part : parts) AppendDerived(part, out);
  return out;
}

}  // namespace tbprof
