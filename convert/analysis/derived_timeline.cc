#include "convert/analysis/derived_timeline.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "convert/analysis/hlo_module.h"
#include "convert/analysis/tf_op_utils.h"
#include "convert/base/cancellation.h"
#include "convert/base/run_both.h"
#include "convert/xplane/group_events.h"
#include "convert/xplane/schema.h"

namespace tbprof {
namespace {

constexpr size_t kNoEvent = SIZE_MAX;
// Ids reserved per stream: name scope, framework op, module, XLA op, overhead, source.
constexpr int64_t kIdsPerStream = schema::kThreadIdSource - schema::kThreadIdTfNameScope + 1;
constexpr int64_t kNameScopeOffset = 0;
constexpr int64_t kTfOpOffset = schema::kThreadIdTfOp - schema::kThreadIdTfNameScope;
constexpr int64_t kModuleOffset = schema::kThreadIdHloModule - schema::kThreadIdTfNameScope;
constexpr int64_t kHloOpOffset = schema::kThreadIdHloOp - schema::kThreadIdTfNameScope;
// The line ids a stream's derived lines take, in display order (ids ascending).
constexpr int64_t kDisplayOrder[] = {kNameScopeOffset, kTfOpOffset, kModuleOffset, kHloOpOffset,
                                     schema::kThreadIdSource - schema::kThreadIdTfNameScope};

struct PendingEvent {
  int64_t begin_ps = 0, end_ps = 0;
  uint32_t metadata = 0;
  int32_t group = kNoGroup;
};

// A finished derived line waiting for its plane to be done.
struct PendingLine {
  int64_t id = 0, display_id = 0;
  StrId name = kNoStr;
  bool steps = false;  // the Steps line, whose events also name their step
  std::vector<PendingEvent> events;
};

// One derived line under construction: the last event of each nesting depth
// is extended while kernels repeat it, and replaced when they do not.
class DerivedLine {
 public:
  explicit DerivedLine(std::vector<DerivedLine*> dependents = {}) : dependents_(std::move(dependents)) {}
  std::vector<PendingEvent>& events() { return events_; }

  void ExpandOrAdd(uint32_t metadata, int64_t begin, int64_t end, int32_t group) {
    ExpandOrAddLevel(metadata, begin, end, group, 0);
  }
  // One event per depth (outermost first); deeper events of the previous call end.
  void ExpandOrAddLevels(const std::vector<uint32_t>& per_level, int64_t begin, int64_t end, int32_t group) {
    if (per_level.empty()) return;
    for (size_t level = 0; level < per_level.size(); ++level) ExpandOrAddLevel(per_level[level], begin, end, group, level);
    ResetLastEvents(per_level.size());
  }
  // Events at `level` and deeper can no longer grow; at level 0 neither can
  // the dependent lines' events.
  void ResetLastEvents(size_t level) {
    ShortenStackedEvents(level);
    for (size_t i = level; i < last_.size(); ++i) last_[i] = kNoEvent;
    if (level == 0) {
      for (DerivedLine* d : dependents_) d->ResetLastEvents(0);
    }
  }

 private:
  void ExpandOrAddLevel(uint32_t metadata, int64_t begin, int64_t end, int32_t group, size_t level) {
    if (level >= last_.size()) last_.resize(level + 1, kNoEvent);
    if (last_[level] != kNoEvent) {
      PendingEvent& last = events_[last_[level]];
      // On GPU planes an event extends over any gap while the kernels repeat it.
      if (last.metadata == metadata && last.group == group) {
        last.begin_ps = std::min(last.begin_ps, begin);
        last.end_ps = std::max(last.end_ps, end);
        return;
      }
    }
    ResetLastEvents(level);
    last_[level] = events_.size();
    events_.push_back(PendingEvent{begin, end, metadata, group});
  }

  // Events stacked from `level` down with identical spans would be drawn in
  // an arbitrary order: each one deeper ends 1 ns earlier than the one above
  // it, as long as the innermost keeps at least 1 ns.
  void ShortenStackedEvents(size_t level) {
    if (level >= last_.size() || last_[level] == kNoEvent) return;
    size_t deepest = level;
    while (deepest + 1 < last_.size() && last_[deepest + 1] != kNoEvent) ++deepest;
    if (deepest == level) return;
    const PendingEvent& top = events_[last_[deepest]];
    const int64_t max_shrink_ns = (top.end_ps - top.begin_ps) / 1000 - 1;
    int64_t shrink_ns = 0;
    bool has_previous = false;
    int64_t previous_begin = 0, previous_end = 0;
    for (size_t i = level; i <= deepest; ++i) {
      PendingEvent& e = events_[last_[i]];
      if (shrink_ns < max_shrink_ns && has_previous && previous_begin == e.begin_ps && previous_end == e.end_ps) {
        ++shrink_ns;
      }
      has_previous = true;
      previous_begin = e.begin_ps;
      previous_end = e.end_ps;
      e.end_ps -= 1000 * shrink_ns;
    }
  }

  std::vector<PendingEvent> events_;
  std::vector<size_t> last_;  // per depth: index into events_, or kNoEvent
  std::vector<DerivedLine*> dependents_;
};

// The stats of one device event that the derivation reads.
struct KernelStats {
  bool kernel = false;
  StrId hlo_module = kNoStr, hlo_op = kNoStr, framework_op = kNoStr, level0 = kNoStr;
  bool has_program_id = false;
  uint64_t program_id = 0;
};

struct StatNames {
  explicit StatNames(const XSpaceModel& s)
      : kernel_details(s.Find(schema::kKernelDetails)),
        cuda_graph_exec_id(s.Find(schema::kCudaGraphExecId)),
        hlo_module(s.Find(schema::kHloModule)),
        hlo_op(s.Find(schema::kHloOp)),
        program_id(s.Find(schema::kProgramId)),
        tf_op(s.Find(schema::kTfOp)),
        level0(s.Find(schema::kLevel0)) {}
  StrId kernel_details, cuda_graph_exec_id, hlo_module, hlo_op, program_id, tf_op, level0;
};

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
    }
  }
  if (k.framework_op == kNoStr) k.framework_op = k.level0;
  return k;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// A derived line of that kind, with or without the per-stream suffix.
bool IsDerivedLineName(std::string_view name, std::string_view kind) {
  return name == kind || (StartsWith(name, kind) && StartsWith(name.substr(kind.size()), schema::kDerivedFromStreamInfix));
}

// The display name of a framework op's event (TfOpEventName): its type, or for
// names that are not ops the name itself.
std::string FrameworkOpEventName(const TfOp& op) {
  if (op.category == TfOpCategory::kUnknown) {
    std::string_view n = op.name;
    while (!n.empty() && (n.back() == ' ' || n.back() == '\t' || n.back() == '\n' || n.back() == '\r')) n.remove_suffix(1);
    return std::string(n);
  }
  if (op.category == TfOpCategory::kTfData) {
    constexpr std::string_view kIteratorPrefix = "Iterator::";
    std::string_view n = op.name;
    size_t at = n.rfind(kIteratorPrefix);
    return "Iterator::" + std::string(at == std::string_view::npos ? n : n.substr(at + kIteratorPrefix.size()));
  }
  return op.type;
}

// Builds the derived lines of one GPU plane into `out`.
class PlaneDeriver {
 public:
  PlaneDeriver(const XSpaceModel& space, uint32_t plane_index, const EventGroups& groups, const StatNames& names,
               const HloPrograms& programs, DerivedTimelines& out)
      : space_(space), plane_(space.planes[plane_index]), plane_index_(plane_index), groups_(groups), names_(names),
        programs_(programs), out_(out) {}

  void Run(bool derive_steps, bool derive_streams) {
    XPlaneModel derived;
    derived.id = plane_.id;
    derived.name = out_.space.strings.Intern(space_.Str(plane_.name));
    derived.event_metadata.emplace_back();  // index 0: the nameless placeholder
    derived_ = &derived;
    step_name_ = out_.space.strings.Intern(schema::kStepName);
    std::vector<int64_t> display_ids;
    // Each stream's events in time order (files are normally sorted already).
    sorted_lines_.resize(plane_.lines.size());
    for (uint32_t l = 0; l < plane_.lines.size(); ++l) {
      if (!schema::IsDerivedThreadId(plane_.lines[l].id)) sorted_lines_[l] = SortedLineEvents(plane_, plane_.lines[l]);
    }
    InheritGroups();
    if (derive_steps && group_ != nullptr) DeriveSteps();
    if (derive_streams) DeriveStreams(display_ids);
    EmitLines();
    if (derived.lines.empty()) return;
    out_.space.planes.push_back(std::move(derived));
    out_.file_plane.push_back(plane_index_);
    out_.group_runs.push_back(std::move(group_runs_));
    display_ids.resize(plane_.lines.size(), 0);
    out_.file_line_display_ids.push_back(std::move(display_ids));
  }

 private:
  int32_t GroupOf(uint32_t e) const { return group_ == nullptr ? kNoGroup : group_[e]; }

  // The events of all streams in time order (begin, then longer first): the
  // streams' sorted orders merged, once (the groups and the Steps line both walk it).
  const std::vector<uint32_t>& TimeOrder() {
    if (!time_order_ready_) time_order_ = MergedTimeOrder();
    time_order_ready_ = true;
    return time_order_;
  }

  std::vector<uint32_t> MergedTimeOrder() const {
    std::vector<uint32_t> order;
    size_t total = 0;
    for (const auto& line : sorted_lines_) total += line.size();
    order.reserve(total);
    auto later = [&](const std::pair<uint32_t, size_t>& a, const std::pair<uint32_t, size_t>& b) {
      const Event& x = plane_.events[sorted_lines_[a.first][a.second]];
      const Event& y = plane_.events[sorted_lines_[b.first][b.second]];
      if (x.begin_ps != y.begin_ps) return x.begin_ps > y.begin_ps;
      if (x.duration_ps != y.duration_ps) return x.duration_ps < y.duration_ps;
      return a.first > b.first;
    };
    std::vector<std::pair<uint32_t, size_t>> heads;  // (line, position), a heap on `later`
    for (uint32_t l = 0; l < sorted_lines_.size(); ++l) {
      if (!sorted_lines_[l].empty()) heads.emplace_back(l, 0);
    }
    std::make_heap(heads.begin(), heads.end(), later);
    while (!heads.empty()) {
      std::pop_heap(heads.begin(), heads.end(), later);
      auto& [line, pos] = heads.back();
      order.push_back(sorted_lines_[line][pos]);
      if (++pos < sorted_lines_[line].size()) {
        std::push_heap(heads.begin(), heads.end(), later);
      } else {
        heads.pop_back();
      }
    }
    return order;
  }

  // ProcessUngroupedEvents: an event of the plane without a group takes the
  // group of the latest earlier event (eager ops after a step belong to it).
  void InheritGroups() {
    if (plane_index_ >= groups_.group_of.size() || groups_.group_of[plane_index_].size() != plane_.events.size()) return;
    const std::vector<int32_t>& file_groups = groups_.group_of[plane_index_];
    bool any = false, missing = false;
    for (const auto& line : sorted_lines_) {
      for (uint32_t e : line) (file_groups[e] == kNoGroup ? missing : any) = true;
    }
    if (!any) return;
    group_ = file_groups.data();
    if (!missing) return;
    inherited_ = file_groups;
    int32_t last = kNoGroup;
    for (uint32_t e : TimeOrder()) {
      if (inherited_[e] == kNoGroup) {
        inherited_[e] = last;
      } else {
        last = inherited_[e];
      }
    }
    group_ = inherited_.data();
  }

  uint32_t Metadata(std::string_view name, std::string_view display_name = {}) {
    auto [it, inserted] = metadata_.try_emplace(std::string(name), 0);
    if (inserted) {
      it->second = static_cast<uint32_t>(derived_->event_metadata.size());
      EventMetadata md;
      md.id = static_cast<int64_t>(it->second);
      md.name = out_.space.strings.Intern(name);
      derived_->event_metadata.push_back(std::move(md));
    }
    EventMetadata& md = derived_->event_metadata[it->second];
    if (md.display_name == kNoStr && !display_name.empty()) md.display_name = out_.space.strings.Intern(display_name);
    return it->second;
  }

  // Lines are kept until the plane is done so that its events and stats are
  // allocated once, at their exact sizes.
  void AddLine(int64_t id, int64_t display_id, std::string_view name, std::vector<PendingEvent>& events,
               bool steps) {
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
    pending_lines_.push_back(std::move(line));
  }

  void EmitLines() {
    size_t num_events = 0, num_stats = 0;
    for (const PendingLine& line : pending_lines_) {
      num_events += line.events.size();
      for (const PendingEvent& pe : line.events) {
        num_stats += line.steps && pe.group != kNoGroup && groups_.group_names.count(pe.group) != 0;
      }
    }
    derived_->events.reserve(num_events);
    derived_->event_stats.reserve(num_stats);
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
      if (group_runs_.empty() || group_runs_.back().group != pe.group) {
        group_runs_.push_back(DerivedGroupRun{static_cast<uint32_t>(p.events.size()), pe.group});
      }
      p.events.push_back(e);
      if (pe.group == kNoGroup || !steps) continue;
      if (auto it = groups_.group_names.find(pe.group); it != groups_.group_names.end()) {
        Stat n;
        n.name = step_name_;
        n.kind = StatKind::kStr;
        n.str = out_.space.strings.Intern(it->second);
        p.event_stats.push_back(n);
      }
    }
    p.lines.push_back(line);
    std::vector<PendingEvent>().swap(events);
  }

  // DeriveStepEventsFromGroups: every grouped event of the plane, in time order.
  void DeriveSteps() {
    DerivedLine steps;
    std::unordered_map<int32_t, uint32_t> step_metadata;
    for (uint32_t e : TimeOrder()) {
      const int32_t group = GroupOf(e);
      if (group == kNoGroup) continue;
      auto [it, inserted] = step_metadata.try_emplace(group, 0);
      if (inserted) it->second = Metadata(std::to_string(group));
      const Event& ev = plane_.events[e];
      steps.ExpandOrAdd(it->second, ev.begin_ps, ev.begin_ps + std::max<int64_t>(ev.duration_ps, 0), group);
    }
    AddLine(schema::kThreadIdStepInfo, 0, schema::kStepLine, steps.events(), /*steps=*/true);
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
    entry.op = Metadata(text, FrameworkOpEventName(op));
    return entry;
  }

  // A kernel's framework op named by its own stat (tf_op, or level 0).
  const FrameworkOpEntry& FrameworkOpOfStat(StrId fullname) {
    if (fullname >= framework_op_of_stat_.size()) framework_op_of_stat_.resize(space_.strings.size(), nullptr);
    const FrameworkOpEntry*& entry = framework_op_of_stat_[fullname];
    if (entry == nullptr) entry = &FrameworkOp(space_.Str(fullname));
    return *entry;
  }

  // An XLA op's framework op, as its HLO instruction's metadata names it
  // ("op_name:op_type"); null when the program or the name is unknown.
  const FrameworkOpEntry* FrameworkOpOfXlaOp(const KernelStats& k) {
    if (!k.has_program_id) return nullptr;
    auto [it, inserted] = framework_op_of_xla_op_.try_emplace(std::make_pair(k.program_id, k.hlo_op), nullptr);
    if (!inserted) return it->second;
    const HloProgram* program = programs_.Find(k.program_id);
    if (program == nullptr) return nullptr;
    std::string_view innermost = space_.Str(k.hlo_op);
    if (size_t at = innermost.rfind("::"); at != std::string_view::npos) innermost.remove_prefix(at + 2);
    const HloInstruction* inst = program->FindInstruction(innermost);
    if (inst == nullptr || inst->metadata().op_name().empty()) return nullptr;
    it->second = &FrameworkOp(inst->metadata().op_name() + ":" + inst->metadata().op_type());
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

  void DeriveStream(const LineModel& stream, const std::vector<uint32_t>& sorted, int64_t first_id,
                    int64_t first_display) {
    DerivedLine tf_ops;
    DerivedLine name_scopes({&tf_ops});
    DerivedLine hlo_ops;
    DerivedLine modules({&name_scopes, &hlo_ops});
    // Mostly a kernel makes at most one event per line: room for that many
    // spares the copies (and fresh pages) of growing vectors of millions.
    for (DerivedLine* line : {&tf_ops, &name_scopes, &hlo_ops, &modules}) line->events().reserve(sorted.size());
    for (uint32_t e : sorted) {
      const KernelStats k = ReadKernelStats(plane_, e, names_);
      if (!k.kernel) continue;
      const Event& ev = plane_.events[e];
      const int64_t begin = ev.begin_ps, end = ev.begin_ps + std::max<int64_t>(ev.duration_ps, 0);
      const int32_t group = GroupOf(e);
      if (k.hlo_module != kNoStr) modules.ExpandOrAdd(ModuleMetadata(k), begin, end, group);
      // An XLA op's framework op comes from its HLO instruction, any other
      // kernel's from its own stat.
      const FrameworkOpEntry* op = nullptr;
      if (k.hlo_op != kNoStr) {
        hlo_ops.ExpandOrAddLevels(HloOpMetadata(k), begin, end, group);
        op = FrameworkOpOfXlaOp(k);
      } else if (k.framework_op != kNoStr) {
        op = &FrameworkOpOfStat(k.framework_op);
      }
      if (op != nullptr) {
        if (op->scoped) name_scopes.ExpandOrAddLevels(op->scopes, begin, end, group);
        tf_ops.ExpandOrAdd(op->op, begin, end, group);
      }
    }
    const std::string suffix = std::string(schema::kDerivedFromStreamInfix) + std::to_string(stream.id);
    auto display_of = [&](int64_t offset) {
      const auto* at = std::find(std::begin(kDisplayOrder), std::end(kDisplayOrder), offset);
      return first_display + (at - std::begin(kDisplayOrder));
    };
    AddLine(first_id + kNameScopeOffset, display_of(kNameScopeOffset),
            std::string(schema::kFrameworkNameScopeLine) + suffix, name_scopes.events(), false);
    AddLine(first_id + kTfOpOffset, display_of(kTfOpOffset), std::string(schema::kFrameworkOpLine) + suffix,
            tf_ops.events(), false);
    AddLine(first_id + kModuleOffset, display_of(kModuleOffset), std::string(schema::kXlaModuleLine) + suffix,
            modules.events(), false);
    AddLine(first_id + kHloOpOffset, display_of(kHloOpOffset), std::string(schema::kXlaOpLine) + suffix,
            hlo_ops.events(), false);
  }

  const XSpaceModel& space_;
  const XPlaneModel& plane_;
  const uint32_t plane_index_;
  const EventGroups& groups_;
  const StatNames& names_;
  const HloPrograms& programs_;
  DerivedTimelines& out_;
  XPlaneModel* derived_ = nullptr;
  std::vector<PendingLine> pending_lines_;
  std::vector<std::vector<uint32_t>> sorted_lines_;  // per line of the plane (derived ones left empty)
  const int32_t* group_ = nullptr;                   // per event of the plane; null: no groups
  std::vector<int32_t> inherited_;                   // the groups after inheritance, when some were missing
  std::vector<uint32_t> time_order_;
  bool time_order_ready_ = false;
  StrId step_name_ = kNoStr;
  std::vector<DerivedGroupRun> group_runs_;  // of the derived plane being built
  std::unordered_map<std::string, uint32_t> metadata_;
  std::unordered_map<std::string, FrameworkOpEntry> framework_ops_;  // node-based: entries stay in place
  // By string id of the file: one pointer per string, read once per kernel (a
  // hash map lookup per kernel cost more than the rest of the stream).
  std::vector<const FrameworkOpEntry*> framework_op_of_stat_;
  std::map<std::pair<uint64_t, StrId>, const FrameworkOpEntry*> framework_op_of_xla_op_;
  std::map<std::tuple<bool, uint64_t, StrId>, uint32_t> modules_;
  std::map<std::tuple<bool, uint64_t, StrId, StrId>, std::vector<uint32_t>> hlo_ops_;
};

struct PlanePlan {
  uint32_t plane = 0;
  bool steps = false, streams = false;
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
  for (auto& ids : part.file_line_display_ids) out.file_line_display_ids.push_back(std::move(ids));
}

}  // namespace

int32_t DerivedTimelines::Group(size_t plane, uint32_t event) const {
  const std::vector<DerivedGroupRun>& runs = group_runs[plane];
  auto after = std::upper_bound(runs.begin(), runs.end(), event,
                                [](uint32_t e, const DerivedGroupRun& run) { return e < run.first_event; });
  return after == runs.begin() ? kNoGroup : std::prev(after)->group;
}

size_t DerivedTimelines::MemoryBytes() const {
  size_t bytes = space.planes.empty() ? 0 : space.MemoryBytes();
  bytes += file_plane.capacity() * sizeof(uint32_t);
  for (const auto& runs : group_runs) bytes += runs.capacity() * sizeof(DerivedGroupRun);
  for (const auto& ids : file_line_display_ids) bytes += ids.capacity() * sizeof(int64_t);
  return bytes;
}

DerivedTimelines GenerateDerivedTimelines(const XSpaceModel& space, std::shared_ptr<const EventGroups>* known_groups) {
  DerivedTimelines out;
  const StatNames names(space);
  const bool any_kernel_stat = names.kernel_details != kNoStr || names.cuda_graph_exec_id != kNoStr;
  std::vector<PlanePlan> plans;
  for (uint32_t i = 0; i < space.planes.size(); ++i) {
    const XPlaneModel& p = space.planes[i];
    if (!schema::IsGpuPlane(space.Str(p.name)) || p.events.empty()) continue;
    PlanePlan plan{i, true, any_kernel_stat};
    for (const LineModel& line : p.lines) {
      const std::string_view name = space.Str(line.name);
      if (name == schema::kStepLine || line.id == schema::kThreadIdStepInfo) plan.steps = false;
      const bool annotation_line =
          (line.id >= schema::kThreadIdTfNameScope && line.id <= schema::kThreadIdHloOp) ||
          (line.id >= schema::kThreadIdDeviceDerivedMin && line.id <= schema::kThreadIdDeviceDerivedMax);
      for (std::string_view kind : {schema::kXlaModuleLine, schema::kXlaOpLine, schema::kFrameworkOpLine,
                                    schema::kFrameworkNameScopeLine, schema::kTensorFlowOpLine,
                                    schema::kTensorFlowNameScopeLine}) {
        if (annotation_line || IsDerivedLineName(name, kind)) plan.streams = false;
      }
    }
    if (plan.steps || plan.streams) plans.push_back(plan);
  }
  if (plans.empty()) return out;
  // The HLO programs name the framework ops of XLA kernels.
  const bool xla_kernels = names.hlo_op != kNoStr && names.program_id != kNoStr &&
                           std::any_of(plans.begin(), plans.end(), [](const PlanePlan& p) { return p.streams; });
  std::shared_ptr<const EventGroups> shared_groups = known_groups != nullptr ? *known_groups : nullptr;
  HloPrograms programs;
  RunBoth(
      [&] {
        if (!shared_groups) shared_groups = std::make_shared<const EventGroups>(GroupEvents(space));
      },
      [&] {
        if (xla_kernels) programs = LoadHloPrograms(space);
      });
  if (known_groups != nullptr) *known_groups = shared_groups;
  const EventGroups& groups = *shared_groups;
  // The planes are independent: each is derived into a space of its own, the
  // planes shared out between two threads by event count, then merged in order.
  std::vector<DerivedTimelines> parts(plans.size());
  std::vector<size_t> halves[2];
  size_t load[2] = {0, 0};
  for (size_t i = 0; i < plans.size(); ++i) {
    const int lighter = load[1] < load[0];
    halves[lighter].push_back(i);
    load[lighter] += space.planes[plans[i].plane].events.size();
  }
  auto derive = [&](const std::vector<size_t>& half) {
    for (size_t i : half) {
      if (CancelRequested()) return;  // the caller discards a partial result
      PlaneDeriver(space, plans[i].plane, groups, names, programs, parts[i]).Run(plans[i].steps, plans[i].streams);
    }
  };
  RunBoth([&] { derive(halves[0]); }, [&] { derive(halves[1]); });
  for (DerivedTimelines& part : parts) AppendDerived(part, out);
  return out;
}

}  // namespace tbprof
