#include "convert/grouping/group_events.h"
#include "convert/base/cancellation.h"
#include "convert/grouping/device_groups.h"
#include "convert/model/event_nesting.h"
#include "convert/grouping/existing_groups.h"
#include "convert/grouping/implied_contexts.h"
#include "convert/grouping/launch_table.h"
#include "convert/model/schema.h"
#include "convert/grouping/tf_loop_steps.h"
#include "convert/grouping/threadpool_regions.h"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "convert/base/huge_pages.h"
#include "convert/base/run_both.h"

namespace tbprof {
namespace {

using grouping::EdgeRef;
using grouping::LaunchTable;

// ConnectContextGroups skips a context with this many producers and consumers.
constexpr size_t kMaxContextFanout = 64;

// No process: the plane has no `process_id` and the event no `_pid`.
constexpr int64_t kNoPid = INT64_MIN;

// Roots that carry no step_name (GetGroupName's implicit roots).
bool IsImplicitRootName(std::string_view name) {
  return name == "FunctionRun" || name == "SessionRun" || name == "RunGraph" || name == "ExecutorState::Process";
}

// The stats grouping reads: the model's common ones (schema::StatIds) and
// those of roots, producer/consumer links and steps that only grouping reads.
struct GroupingStatIds : schema::StatIds {
  StrId root, producer_type, producer_id, consumer_type, consumer_id, consumer_pid, process_id, step_name, iter_num,
      graph_type, step_id;
  explicit GroupingStatIds(const XSpaceModel& s)
      : schema::StatIds(s),
        root(s.Find(schema::kIsRoot)),
        producer_type(s.Find(schema::kProducerType)),
        producer_id(s.Find(schema::kProducerId)),
        consumer_type(s.Find(schema::kConsumerType)),
        consumer_id(s.Find(schema::kConsumerId)),
        consumer_pid(s.Find(schema::kConsumerPid)),
        process_id(s.Find(schema::kProcessId)),
        step_name(s.Find(schema::kStepName)),
        iter_num(s.Find(schema::kIterNum)),
        graph_type(s.Find(schema::kGraphType)),
        step_id(s.Find(schema::kId)) {}
};

// Every event in no group: what a space with TF loop ops gets, and what
// grouping stopped by cancellation returns (a well-formed answer nobody keeps).
EventGroups NoGroups(const XSpaceModel& space) {
  EventGroups none;
  none.group_of.resize(space.planes.size());
  none.has_step_name.resize(space.planes.size());
  none.tpu_steps.resize(space.planes.size());
  for (size_t i = 0; i < space.planes.size(); ++i) none.group_of[i].assign(space.planes[i].events.size(), kNoGroup);
  return none;
}

const Stat* FindIf(const XPlaneModel& p, uint32_t e, StrId name) {
  return name == kNoStr ? nullptr : p.FindStat(e, name);
}

struct CrossEdge {
  EdgeRef parent, child;
};

// A raw line's events in SortedLineEvents order. Files are nearly always
// sorted already: then the line's own range is the order and nothing is stored.
struct LineOrder {
  uint32_t first = 0, count = 0;
  std::vector<uint32_t> sorted;  // empty: first, first + 1, …

  template <typename Visit>
  void ForEach(Visit&& visit) const {
    if (!sorted.empty()) {
      for (uint32_t e : sorted) visit(e);
      return;
    }
    for (uint32_t e = first; e < first + count; ++e) visit(e);
  }
};

// One plane taking part in grouping.
struct WorkPlane {
  size_t space_index = 0;
  // Host planes (all but TPU ones) carry roots and links; the process's own
  // also launches: a correlation_id there is a launch, elsewhere a kernel. A
  // GPU plane that declares no root or link stat (CUPTI's) is read for its
  // kernels only, and skips the host planes' passes.
  bool is_host = false;
  bool is_gpu = false;  // its ungrouped events inherit (InheritGroupsOnDevice)
  bool launches_kernels = false;
  int64_t pid = kNoPid;  // the plane's process_id
  bool is_tpu = false, tensor_core = false;
  // TPU: the events of the line the plane groups by (its steps, else its
  // modules), in time order; and its "Steps" line, if any.
  std::vector<uint32_t> grouping;
  const LineModel* step_line = nullptr;
  // Host: per event metadata, the implied-context role its name takes.
  std::vector<uint8_t> roles;
  std::vector<LineOrder> line_orders;  // per raw line
  std::vector<uint32_t> nest_parent;   // innermost enclosing event on the line
  std::vector<int8_t> root_level;
  // Per event metadata: the root level its name gives, and whether its `_a` stat marks it async.
  std::vector<int8_t> name_root_level;
  std::vector<uint8_t> name_level_wins;  // the name's level overrides `_r`
  std::vector<uint8_t> metadata_async;
  // Host: the thread pool's closure regions, by line (threadpool_regions.h).
  std::vector<ThreadpoolRegion> regions;
};

// What the pass over one raw line's events found. Lines are read on two
// threads, each into its own record; the records are then merged in line order.
struct LineLinks {
  struct Context {
    int64_t type, id;
    bool producer;
    uint32_t event;
    int64_t pid;  // the process whose events it links (kNoPid: none)
  };
  uint32_t plane = 0, line = 0, order = 0;  // planes_ index, line in the plane, index into its line_orders
  std::vector<std::pair<int64_t, uint32_t>> launches;    // host: (correlation id, event)
  std::vector<std::pair<int64_t, uint32_t>> correlated;  // device: (correlation id, event)
  std::vector<Context> contexts;                         // host: `_p`/`_c` ends
};

class Grouper {
 public:
  explicit Grouper(const XSpaceModel& space)
      : space_(space), ids_(space), implied_(space), has_regions_(MayHaveThreadpoolRegions(space)) {
    const StrId link_ids[kLinkStats] = {ids_.root,          ids_.is_async,      ids_.correlation_id,
                                        ids_.producer_id,   ids_.producer_type, ids_.consumer_id,
                                        ids_.consumer_type, ids_.consumer_pid};
    for (int k = 0; k < kLinkStats; ++k) {
      if (link_ids[k] == kNoStr) continue;
      if (link_ids[k] >= link_stat_of_.size()) link_stat_of_.resize(link_ids[k] + 1, kNotALinkStat);
      link_stat_of_[link_ids[k]] = static_cast<uint8_t>(k);
    }
  }

  EventGroups Run() {
    EventGroups out;
    out.group_of.resize(space_.planes.size());
    out.has_step_name.resize(space_.planes.size());
    out.tpu_steps.resize(space_.planes.size());
    for (size_t i = 0; i < space_.planes.size(); ++i) {
      const XPlaneModel& p = space_.planes[i];
      if (!IsGroupedPlaneName(space_.Str(p.name))) continue;
      WorkPlane w;
      w.space_index = i;
      w.is_tpu = IsTpuPlaneName(space_.Str(p.name));
      w.is_gpu = schema::IsGpuPlane(space_.Str(p.name));
      w.is_host = !w.is_tpu && (!w.is_gpu || DeclaresRootsOrLinks(p));
      w.launches_kernels = space_.Str(p.name) == schema::kHostPlane;
      for (const Stat& st : p.plane_stats) {
        if (st.name == ids_.process_id && ids_.process_id != kNoStr && st.IsInteger()) w.pid = st.IntValue();
      }
      w.tensor_core = schema::IsTpuCorePlane(space_.Str(p.name));
      planes_.push_back(std::move(w));
    }
    // Host plane first so that launch edges always point to computed values.
    std::stable_sort(planes_.begin(), planes_.end(),
                     [](const WorkPlane& a, const WorkPlane& b) { return a.is_host > b.is_host; });
    std::vector<LineLinks> lines = ReadLines();
    if (CancelRequested()) return NoGroups(space_);
    BuildCrossEdges(lines);
    lines.clear();
    if (CancelRequested()) return NoGroups(space_);

    // TensorFlow loops, when present, are the only roots (ProcessTensorFlowLoop).
    const std::vector<uint32_t> hosts = HostSpacePlanes();
    tf_data_step_ids_ = TfDataStepIds(space_, hosts);  // ProcessTfDataSteps
    std::vector<Root> roots = TfLoopRoots(hosts);
    // Per plane and event: pass 1's levels, then pass 2's groups in the same
    // arrays (memory already mapped costs less than fresh).
    std::vector<std::vector<int32_t>> group(planes_.size());
    if (roots.empty()) {
      // Pass 1: highest root level among strict ancestors, to find group roots.
      // Roots are host events, so the device planes are left out.
      std::vector<std::vector<int32_t>>& anc_level = group;
      for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
        if (planes_[pi].is_host) AssignLarge(anc_level[pi], planes_[pi].nest_parent.size(), 0);
      }
      Propagate(
          anc_level, [](const WorkPlane& pw, uint32_t pe, int32_t pv) { return std::max<int32_t>(pw.root_level[pe], pv); },
          [](int32_t a, int32_t b) { return std::max(a, b); }, /*host_only=*/true);
      for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
        const WorkPlane& w = planes_[pi];
        if (!w.is_host) continue;
        const XPlaneModel& p = space_.planes[w.space_index];
        for (uint32_t e = 0; e < w.root_level.size(); ++e) {
          if (w.root_level[e] > 0 && anc_level[pi][e] < w.root_level[e] && !IsTfDataStep(p, e)) {
            roots.push_back({w.root_level[e], p.events[e].begin_ps, pi, e});
          }
        }
      }
    }
    if (CancelRequested()) return NoGroups(space_);
    std::stable_sort(roots.begin(), roots.end(), [](const Root& a, const Root& b) {
      return a.level != b.level ? a.level > b.level : a.begin < b.begin;
    });
    // Pass 2: each event joins the earliest-processed group root among its ancestors-or-self.
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) AssignLarge(group[pi], planes_[pi].nest_parent.size(), INT32_MAX);
    for (size_t g = 0; g < roots.size(); ++g) {
      group[roots[g].plane][roots[g].event] = static_cast<int32_t>(g);
      NameGroup(static_cast<int32_t>(g), roots[g].plane, roots[g].event, out);
    }
    PropagateGroups(group);
    if (CancelRequested()) return NoGroups(space_);
    GroupTpuStepsInLockStep(group, static_cast<int32_t>(roots.size()), out);
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
      std::vector<int32_t>& g = group[pi];
      for (int32_t& v : g) {
        if (v == INT32_MAX) v = kNoGroup;
      }
      size_t si = planes_[pi].space_index;
      const WorkPlane& w = planes_[pi];
      if (w.is_tpu) GroupTpuPlane(space_.planes[si], w.step_line, w.grouping, g, out.tpu_steps[si]);
      if (w.is_gpu) InheritGroupsOnDevice(space_.planes[si], g);
      out.group_of[si] = std::move(g);
    }
    MarkEagerEvents(out);
    out.computed = true;
    for (const Root& r : roots) {
      size_t si = planes_[r.plane].space_index;
      const XPlaneModel& p = space_.planes[si];
      if (IsImplicitRootName(space_.Str(p.EventName(r.event)))) continue;
      auto& named = out.has_step_name[si];
      if (named.empty()) named.assign(p.events.size(), 0);
      named[r.event] = 1;
    }
    return out;
  }

 private:
  struct Root {
    int level;
    int64_t begin;
    uint32_t plane, event;
  };

  bool DeclaresRootsOrLinks(const XPlaneModel& p) const {
    return std::any_of(p.stat_metadata.begin(), p.stat_metadata.end(), [&](const auto& m) {
      return m.first != kNoStr && (m.first == ids_.root || m.first == ids_.producer_id || m.first == ids_.consumer_id);
    });
  }

  // The space indices of the host planes.
  std::vector<uint32_t> HostSpacePlanes() const {
    std::vector<uint32_t> out;
    for (const WorkPlane& w : planes_) {
      if (w.is_host) out.push_back(static_cast<uint32_t>(w.space_index));
    }
    return out;
  }

  bool IsTfDataStep(const XPlaneModel& p, uint32_t e) const {
    if (tf_data_step_ids_.empty()) return false;
    const Stat* id = FindIf(p, e, ids_.step_id);
    return id != nullptr && tf_data_step_ids_.count(id->IntValue()) != 0;
  }

  // ProcessTensorFlowLoop (tf_loop_steps.h): each iteration a root holding
  // the iteration's other events.
  std::vector<Root> TfLoopRoots(const std::vector<uint32_t>& hosts) {
    std::vector<Root> roots;
    std::vector<uint32_t> work_index(space_.planes.size(), 0);
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) work_index[planes_[pi].space_index] = pi;
    for (const TfLoopIteration& it : TfLoopIterations(space_, hosts, tf_data_step_ids_)) {
      const EdgeRef root{work_index[it.root.plane], it.root.event};
      for (const TfEventRef& m : it.members) context_edges_.push_back({root, {work_index[m.plane], m.event}});
      roots.push_back({1, space_.planes[it.root.plane].events[it.root.event].begin_ps, root.plane, root.event});
    }
    return roots;
  }

  // Orders, nests and reads the stats of every raw line, one pass per line.
  std::vector<LineLinks> ReadLines() {
    std::vector<LineLinks> lines;
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
      WorkPlane& w = planes_[pi];
      const XPlaneModel& p = space_.planes[w.space_index];
      AssignLarge(w.nest_parent, p.events.size(), kNoEnclosingEvent);
      AssignLarge(w.root_level, p.events.size(), 0);
      if (w.is_tpu) continue;  // ReadTpuPlane
      w.name_root_level.assign(p.event_metadata.size(), 0);
      w.name_level_wins.assign(p.event_metadata.size(), 0);
      w.metadata_async.assign(p.event_metadata.size(), 0);
      if (w.is_host) w.roles = implied_.RolesOf(p);
      if (w.is_host && has_regions_) w.regions = FindThreadpoolRegions(space_, p);
      for (size_t m = 0; m < p.event_metadata.size(); ++m) {
        if (w.is_host) {
          auto [level, wins] = NameRootLevel(space_.Str(p.event_metadata[m].name));
          w.name_root_level[m] = static_cast<int8_t>(level);
          w.name_level_wins[m] = wins;
        }
        if (ids_.is_async == kNoStr) continue;
        auto [b, end] = p.MetadataStatsOf(static_cast<uint32_t>(m));
        const Stat* async = std::find_if(b, end, [&](const Stat& st) { return st.name == ids_.is_async; });
        w.metadata_async[m] = async != end && async->IntValue() != 0;
      }
      for (uint32_t l = 0; l < p.lines.size(); ++l) {
        if (schema::IsDerivedThreadId(p.lines[l].id)) continue;
        LineLinks links;
        links.plane = pi;
        links.line = l;
        links.order = static_cast<uint32_t>(w.line_orders.size());
        w.line_orders.emplace_back();
        lines.push_back(std::move(links));
      }
    }
    ForEachOnBoth(
        lines.size(),
        [&](size_t i) { return space_.planes[planes_[lines[i].plane].space_index].lines[lines[i].line].num_events; },
        [&](size_t i) { ReadLine(lines[i]); });
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
      if (planes_[pi].is_tpu) lines.push_back(ReadTpuPlane(pi));
    }
    return lines;
  }

  // ConnectIntraThreadTPU: a TPU plane's events do not nest. The plane groups
  // by its steps, or by its modules when it has no steps; those events are
  // its only nodes, and each event of another line that one of them holds
  // lends it its producer/consumer contexts.
  LineLinks ReadTpuPlane(uint32_t pi) {
    WorkPlane& w = planes_[pi];
    const XPlaneModel& p = space_.planes[w.space_index];
    LineLinks links;
    links.plane = pi;
    const LineModel* modules = nullptr;
    for (const LineModel& l : p.lines) {
      std::string_view name = space_.Str(l.name);
      if (IsTpuStepLineName(name)) w.step_line = &l;
      if (name == schema::kXlaModuleLine || name == schema::kSparseCoreModuleLine) modules = &l;
    }
    const LineModel* grouping = w.step_line && w.step_line->num_events > 0 ? w.step_line
                                : modules && modules->num_events > 0   ? modules
                                                                       : nullptr;
    if (grouping == nullptr) return links;
    w.grouping = SortedLineEvents(p, *grouping);
    // A TensorCore's device ordinal is its plane name's number.
    uint64_t ordinal = 0;
    std::string_view plane_name = space_.Str(p.name);
    for (char c : plane_name.substr(schema::kTpuPlanePrefix.size())) {
      if (c < '0' || c > '9') break;
      ordinal = ordinal * 10 + static_cast<uint64_t>(c - '0');
    }
    // The line whose events take launch contexts, if any.
    const LineModel* launch_line = w.tensor_core && modules && space_.Str(modules->name) == schema::kXlaModuleLine &&
                                           implied_.KeysModuleLaunches(p)
                                       ? modules
                                       : nullptr;
    auto add_contexts = [&](const LineModel& line, uint32_t e, uint32_t node) {
      const Stat* found[kLinkStats] = {};
      FindLinkStats(p, e, found);
      const Stat *prod = found[kProducerId], *pt = found[kProducerType], *cid = found[kConsumerId],
                 *ct = found[kConsumerType];
      const int64_t pid = ProcessOf(w, found);
      std::optional<ImpliedContext> launch;
      if (&line == launch_line) launch = implied_.ModuleContext(p, ordinal, e);
      if (prod) links.contexts.push_back({pt ? pt->IntValue() : 0, prod->IntValue(), true, node, pid});
      if (launch) {
        links.contexts.push_back({launch->type, launch->id, false, node, pid});
      } else if (cid) {
        links.contexts.push_back({ct ? ct->IntValue() : 0, cid->IntValue(), false, node, pid});
      }
    };
    for (uint32_t e : w.grouping) add_contexts(*grouping, e, e);
    for (const LineModel& line : p.lines) {
      if (&line == grouping) continue;
      size_t at = 0;
      for (uint32_t e : SortedLineEvents(p, line)) {
        const Event& ev = p.events[e];
        while (at < w.grouping.size() && p.events[w.grouping[at]].end_ps() <= ev.begin_ps) ++at;
        if (at == w.grouping.size()) break;
        const Event& holder = p.events[w.grouping[at]];
        if (holder.begin_ps <= ev.begin_ps && ev.end_ps() <= holder.end_ps()) add_contexts(line, e, w.grouping[at]);
      }
    }
    return links;
  }

  void ReadLine(LineLinks& links) {
    WorkPlane& w = planes_[links.plane];
    const XPlaneModel& p = space_.planes[w.space_index];
    const LineModel& line = p.lines[links.line];
    LineOrder& order = w.line_orders[links.order];
    order.first = line.first_event;
    order.count = line.num_events;
    for (uint32_t e = line.first_event + 1; e < line.first_event + line.num_events; ++e) {
      if (OuterFirst(p.events[e], p.events[e - 1])) {
        order.sorted = SortedLineEvents(p, line);
        break;
      }
    }
    const auto first_region = std::partition_point(w.regions.begin(), w.regions.end(),
                                                   [&](const ThreadpoolRegion& r) { return r.line < links.line; });
    const std::pair regions{first_region, std::partition_point(first_region, w.regions.end(), [&](const ThreadpoolRegion& r) {
                              return r.line == links.line;
                            })};
    // At most one launch (or kernel) per event. Reserving that takes address
    // space only, and saves the growth's copies, each onto fresh pages.
    ReserveLarge(w.launches_kernels ? links.launches : links.correlated, line.num_events);
    std::vector<uint32_t> async_events;  // kept only where regions need them
    LineNester nester;
    CancellationPoll cancel;
    bool cancelled = false;  // the rest of the line is skipped: Run() then drops what was read
    order.ForEach([&](uint32_t e) {
      if (cancelled || (cancelled = cancel.Due())) return;
      const Stat* found[kLinkStats] = {};
      FindLinkStats(p, e, found);
      const Stat *root = found[kRoot], *async = found[kAsync], *corr = found[kCorrelation], *prod = found[kProducerId],
                 *pt = found[kProducerType], *cid = found[kConsumerId], *ct = found[kConsumerType];
      const uint32_t md = p.events[e].metadata;
      // A `_r` stat sets the root level; the name does otherwise.
      if (w.is_host) {
        w.root_level[e] = root && !w.name_level_wins[md] ? static_cast<int8_t>(std::clamp<int64_t>(root->IntValue(), 0, 100))
                                                         : w.name_root_level[md];
      }
      // The event's own `_a` first, then its metadata's: async events neither nest nor contain.
      const bool is_async = async != nullptr ? async->IntValue() != 0 : w.metadata_async[md] != 0;
      if (!is_async) nester.Add(p, e, [&](uint32_t parent, uint32_t child) { w.nest_parent[child] = parent; });
      if (is_async && regions.first != regions.second) async_events.push_back(e);
      if (corr) (w.launches_kernels ? links.launches : links.correlated).emplace_back(corr->IntValue(), e);
      if (!w.is_host) return;
      // A context the event's name implies replaces its own one of that side.
      // (Most events take none: the call is made only for the few names that do.)
      const std::optional<ImpliedContext> implied =
          w.roles[md] == ImpliedContexts::kNone ? std::nullopt : implied_.HostContext(p, w.roles[md], e);
      const int64_t pid = ProcessOf(w, found);
      if (implied) links.contexts.push_back({implied->type, implied->id, implied->producer, e, pid});
      if (prod && !(implied && implied->producer)) {
        links.contexts.push_back({pt ? pt->IntValue() : 0, prod->IntValue(), true, e, pid});
      }
      if (cid && !(implied && !implied->producer)) {
        links.contexts.push_back({ct ? ct->IntValue() : 0, cid->IntValue(), false, e, pid});
      }
    });
    if (regions.first != regions.second) {
      // The work a closure region holds takes the region's link (xprof adds the
      // region as an event, which becomes that work's parent).
      std::sort(async_events.begin(), async_events.end());
      std::vector<uint32_t> sorted_line;
      order.ForEach([&](uint32_t e) { sorted_line.push_back(e); });
      for (auto r = regions.first; r != regions.second; ++r) {
        // Regions opened by one start (several stops after it) nest in the
        // longest, the last: its link reaches all of their work, so only it is
        // read (a start followed by many stops costs one pass, not one each).
        if (r + 1 != regions.second && (r + 1)->start_event == r->start_event) continue;
        for (uint32_t e : EventsHeldDirectly(p, *r, sorted_line, w.nest_parent, async_events)) {
          links.contexts.push_back({kThreadpoolEventContextType, r->consumer_id, false, e, w.pid});
        }
      }
    }
  }

  // The process an event's links join: its own `_pid`, else its plane's.
  static int64_t ProcessOf(const WorkPlane& w, const Stat* const* found) {
    return found[kConsumerPid] != nullptr ? found[kConsumerPid]->IntValue() : w.pid;
  }

  // One pass over the event's stats; the first of each name counts, as with FindStat.
  // `found` has room for every LinkStat.
  void FindLinkStats(const XPlaneModel& p, uint32_t e, const Stat** found) const {
    auto [sb, se] = p.StatsOf(e);
    for (const Stat* st = sb; st != se; ++st) {
      if (st->name >= link_stat_of_.size()) continue;
      const uint8_t k = link_stat_of_[st->name];
      if (k != kNotALinkStat && found[k] == nullptr) found[k] = st;
    }
  }

  // The root level an event's name gives, and whether it overrides the
  // event's `_r` (xprof's preprocessing sets it on the batching events; a
  // TraceContext is a root only when it carries no `_r`).
  static std::pair<int, bool> NameRootLevel(std::string_view name) {
    if (name == "TraceContext") return {1, false};
    if (name == "BatchingSessionRun") return {1, true};
    if (name == "ProcessBatch" || name == "OrbaxServing::ProcessBatch") return {2, true};
    return {0, false};
  }

  void BuildCrossEdges(std::vector<LineLinks>& lines) {
    // Host launch (CUPTI API call with correlation_id) -> device activity.
    size_t count = 0;
    int64_t min_id = INT64_MAX, max_id = INT64_MIN;
    for (const LineLinks& links : lines) {
      count += links.launches.size();
      for (const auto& [id, e] : links.launches) {
        min_id = std::min(min_id, id);
        max_id = std::max(max_id, id);
      }
    }
    LaunchTable launch_of(count, min_id, max_id);
    constexpr size_t kPrefetchDistance = 16;
    for (const LineLinks& links : lines) {
      const auto& launches = links.launches;
      for (size_t i = 0; i < launches.size(); ++i) {
        if (i + kPrefetchDistance < launches.size()) launch_of.Prefetch(launches[i + kPrefetchDistance].first);
        launch_of.Insert(launches[i].first, EdgeRef{links.plane, launches[i].second});
      }
    }
    std::vector<std::vector<CrossEdge>> edges_of(lines.size());  // device line -> its launch edges
    ForEachOnBoth(
        lines.size(), [&](size_t i) { return lines[i].correlated.size(); },
        [&](size_t i) {
          const auto& correlated = lines[i].correlated;
          ReserveLarge(edges_of[i], correlated.size());  // most kernels find their launch
          for (size_t c = 0; c < correlated.size(); ++c) {
            if (c + kPrefetchDistance < correlated.size()) launch_of.Prefetch(correlated[c + kPrefetchDistance].first);
            const auto [id, e] = correlated[c];
            if (const EdgeRef* launch = launch_of.Find(id)) edges_of[i].push_back({*launch, {lines[i].plane, e}});
          }
        });
    // Kept per line: one array of millions of edges would be a copy of them.
    launch_edges_ = std::move(edges_of);
    // ConnectContextGroups: a context's producers link to its consumers of the same process.
    std::map<std::tuple<int64_t, int64_t, int64_t>, std::pair<std::vector<EdgeRef>, std::vector<EdgeRef>>> contexts;
    for (const LineLinks& links : lines) {
      for (const LineLinks::Context& c : links.contexts) {
        auto& ends = contexts[{c.type, c.id, c.pid}];
        (c.producer ? ends.first : ends.second).push_back({links.plane, c.event});
      }
    }
    for (auto& [key, pc] : contexts) {
      auto& [producers, consumers] = pc;
      if (producers.size() >= kMaxContextFanout && consumers.size() >= kMaxContextFanout) continue;
      for (const EdgeRef& prod : producers) {
        for (const EdgeRef& cons : consumers) context_edges_.push_back({prod, cons});
      }
    }
  }

  // Fixpoint over the DAG of parents: val(e) = merge(val(e), contrib(parent)…),
  // `val` holding each event's own value on entry. `host_only`: the device
  // planes (and the launch edges into them) are left alone.
  template <typename Contrib, typename Merge>
  void Propagate(std::vector<std::vector<int32_t>>& val, Contrib contrib, Merge merge, bool host_only) {
    auto apply = [&](const CrossEdge& edge) -> bool {
      // A pass over the host alone has no values for the other planes.
      if (val[edge.child.plane].empty() || val[edge.parent.plane].empty()) return false;
      int32_t& cv = val[edge.child.plane][edge.child.event];
      int32_t nv = merge(cv, contrib(planes_[edge.parent.plane], edge.parent.event,
                                      val[edge.parent.plane][edge.parent.event]));
      if (nv == cv) return false;
      cv = nv;
      return true;
    };
    // Lines are independent here (an event's parent is on its line): each
    // nest pass shares the lines out between two threads.
    auto nest_pass = [&](bool host) {
      std::vector<std::pair<uint32_t, uint32_t>> lines;  // (plane, index into its line_orders)
      for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
        if (planes_[pi].is_host != host) continue;
        for (uint32_t oi = 0; oi < planes_[pi].line_orders.size(); ++oi) lines.emplace_back(pi, oi);
      }
      ForEachOnBoth(
          lines.size(), [&](size_t i) { return planes_[lines[i].first].line_orders[lines[i].second].count; },
          [&](size_t i) {
            const WorkPlane& w = planes_[lines[i].first];
            std::vector<int32_t>& v = val[lines[i].first];
            w.line_orders[lines[i].second].ForEach([&](uint32_t e) {
              uint32_t parent = w.nest_parent[e];
              if (parent != kNoEnclosingEvent) v[e] = merge(v[e], contrib(w, parent, v[parent]));
            });
          });
    };
    // Producer/consumer edges may point backwards in time: iterate host planes.
    for (int round = 0; round < 8; ++round) {
      bool changed = false;
      nest_pass(/*host=*/true);
      for (const CrossEdge& edge : context_edges_) changed |= apply(edge);
      if (!changed) break;
    }
    if (host_only) return;
    for (const std::vector<CrossEdge>& edges : launch_edges_) {
      for (const CrossEdge& edge : edges) apply(edge);
    }
    nest_pass(/*host=*/false);
  }

  // Pass 2's spread: every event takes the lowest group among its
  // ancestors-or-self.
  void PropagateGroups(std::vector<std::vector<int32_t>>& group) {
    Propagate(
        group, [](const WorkPlane&, uint32_t, int32_t pv) { return pv; },
        [](int32_t a, int32_t b) { return std::min(a, b); }, /*host_only=*/false);
  }

  // MarkEagerlyExecuted…: the nearest EagerKernelExecute above an event (the
  // event itself first) decides. Values: 0 none above, 1 a single op above,
  // 2 a function above; 3 and 4: the event is itself one (op, function) and
  // keeps that. Where two kinds reach an event (only across links, which
  // xprof walks breadth-first), the function wins.
  void MarkEagerEvents(EventGroups& out) {
    const StrId eager_execute = space_.Find(schema::kEagerKernelExecute);
    if (eager_execute == kNoStr) return;
    const StrId is_func = space_.Find(schema::kIsFunc);
    constexpr int32_t kOpAbove = 1, kSelfOp = 3, kSelfFunction = 4;
    // The EagerKernelExecute events first: a TF2 profile has many, mostly
    // function calls, and then no per-event table is needed at all.
    struct Execute {
      uint32_t plane, event;
      int32_t state;
    };
    std::vector<Execute> executes;
    bool any_op = false;
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
      if (!planes_[pi].is_host) continue;
      const XPlaneModel& p = space_.planes[planes_[pi].space_index];
      for (uint32_t e = 0; e < p.events.size(); ++e) {
        if (p.EventName(e) != eager_execute) continue;
        const Stat* f = FindIf(p, e, is_func);
        const bool single_op = f != nullptr && f->IntValue() == 0;
        executes.push_back({pi, e, single_op ? kSelfOp : kSelfFunction});
        any_op |= single_op;
      }
    }
    if (!any_op) return;  // nothing can be eager
    std::vector<std::vector<int32_t>> state(planes_.size());
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) AssignLarge(state[pi], planes_[pi].nest_parent.size(), 0);
    for (const Execute& x : executes) state[x.plane][x.event] = x.state;
    Propagate(
        state, [](const WorkPlane&, uint32_t, int32_t pv) { return pv >= kSelfOp ? pv - 2 : pv; },
        [](int32_t own, int32_t from_parent) { return own >= kSelfOp ? own : std::max(own, from_parent); },
        /*host_only=*/false);
    out.is_eager.resize(space_.planes.size());
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
      const std::vector<int32_t>& v = state[pi];
      if (std::none_of(v.begin(), v.end(), [](int32_t s) { return s == kOpAbove || s == kSelfOp; })) continue;
      std::vector<uint8_t>& eager = out.is_eager[planes_[pi].space_index];
      eager.resize(v.size());
      for (size_t e = 0; e < v.size(); ++e) eager[e] = v[e] == kOpAbove || v[e] == kSelfOp;
    }
  }

  // CreateEventGroups' TPU fallback: when no TensorCore step joined a host
  // step, each core's steps are numbered in time order from the next free
  // group id, so that the cores' k-th steps share a group (a cheap alignment
  // of the cores, as xprof makes it).
  void GroupTpuStepsInLockStep(std::vector<std::vector<int32_t>>& group, int32_t first_id, EventGroups& out) {
    bool any = false;
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
      if (!planes_[pi].tensor_core) continue;
      for (uint32_t e : planes_[pi].grouping) {
        if (group[pi][e] != INT32_MAX) return;
        any = true;
      }
    }
    if (!any) return;
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
      if (!planes_[pi].tensor_core) continue;
      int32_t id = first_id;
      for (uint32_t e : planes_[pi].grouping) {
        if (group[pi][e] != INT32_MAX) continue;
        group[pi][e] = id;
        NameGroup(id, pi, e, out, /*implicit_root=*/true);
        ++id;
      }
    }
    PropagateGroups(group);
  }

  // GetContextStat: the event's own stat, else that of the nearest ancestor
  // that has one, breadth first (an event's enclosing event, then the
  // producers linked to it).
  const Stat* ContextStat(uint32_t pi, uint32_t e, StrId name) {
    if (name == kNoStr) return nullptr;
    if (!producers_ready_) {
      for (const CrossEdge& edge : context_edges_) {
        producers_of_.emplace(NodeKey(edge.child), edge.parent);
      }
      producers_ready_ = true;
    }
    constexpr size_t kMaxVisits = 4096;  // ancestors of a root are few; a cycle or a fan stops here
    std::vector<EdgeRef> queue = {{pi, e}};
    std::set<uint64_t> seen = {NodeKey({pi, e})};
    for (size_t at = 0; at < queue.size() && at < kMaxVisits; ++at) {
      const EdgeRef node = queue[at];
      const WorkPlane& w = planes_[node.plane];
      if (const Stat* s = FindIf(space_.planes[w.space_index], node.event, name)) return s;
      auto visit = [&](EdgeRef parent) {
        if (seen.insert(NodeKey(parent)).second) queue.push_back(parent);
      };
      if (node.event < w.nest_parent.size() && w.nest_parent[node.event] != kNoEnclosingEvent) {
        visit({node.plane, w.nest_parent[node.event]});
      }
      auto [first, last] = producers_of_.equal_range(NodeKey(node));
      for (auto it = first; it != last; ++it) visit(it->second);
    }
    return nullptr;
  }
  static uint64_t NodeKey(EdgeRef r) { return uint64_t{r.plane} << 32 | r.event; }

  // GetGroupName: the graph_type of the root or an ancestor, else the root's
  // name unless it is an implicit root, then the iter_num of the root or an
  // ancestor, else a step_num, else the group id.
  void NameGroup(int32_t group, uint32_t pi, uint32_t e, EventGroups& out, bool implicit_root = false) {
    const XPlaneModel& p = space_.planes[planes_[pi].space_index];
    std::string_view name = space_.Str(p.EventName(e));
    std::string text = implicit_root || IsImplicitRootName(name) ? "" : std::string(name) + " ";
    if (const Stat* graph = ContextStat(pi, e, ids_.graph_type); graph && graph->kind == StatKind::kStr) {
      text = std::string(space_.Str(graph->str)) + " ";
    }
    if (const Stat* s = ContextStat(pi, e, ids_.iter_num); s && s->IsInteger()) {
      text += std::to_string(s->IntValue());
    } else if (const Stat* s2 = ContextStat(pi, e, ids_.step_num); s2 && s2->IsInteger()) {
      text += std::to_string(s2->IntValue());
    } else {
      text += std::to_string(group);
    }
    out.group_names[group] = std::move(text);
  }

  // The stats ReadLine looks for, and by string id which of them a stat is.
  enum LinkStat : uint8_t {
    kRoot,
    kAsync,
    kCorrelation,
    kProducerId,
    kProducerType,
    kConsumerId,
    kConsumerType,
    kConsumerPid,
    kLinkStats
  };
  static constexpr uint8_t kNotALinkStat = 0xff;

  const XSpaceModel& space_;
  GroupingStatIds ids_;
  ImpliedContexts implied_;
  bool has_regions_;
  // Consumer -> its producers (NodeKey), made when a group is first named.
  std::unordered_multimap<uint64_t, EdgeRef> producers_of_;
  bool producers_ready_ = false;
  std::set<int64_t> tf_data_step_ids_;
  std::vector<uint8_t> link_stat_of_;
  std::vector<WorkPlane> planes_;
  std::vector<std::vector<CrossEdge>> launch_edges_;  // per line read, in line order
  std::vector<CrossEdge> context_edges_;
};

}  // namespace

std::span<const std::string_view> GroupingStatNames() {
  // Links, roots and names (GroupingStatIds), the TF-loop and eager passes' stats,
  // then the implied contexts' keys.
  static const std::vector<std::string_view> kNames = [] {
    std::vector<std::string_view> names = {
        schema::kIsRoot,  schema::kIsAsync, schema::kProducerType, schema::kProducerId, schema::kConsumerType,
        schema::kConsumerId, schema::kConsumerPid, schema::kCorrelationId, schema::kGroupId, schema::kStepName, schema::kIterNum,
        schema::kStepNum, schema::kGraphType, schema::kId, schema::kIsFunc};
    for (std::string_view key : ImpliedContexts::KeyStatNames()) {
      if (std::find(names.begin(), names.end(), key) == names.end()) names.push_back(key);
    }
    return names;
  }();
  return kNames;
}

// CheckLoopOp: xla's GroupTfEvents does not group spaces that run TF loop ops.
bool HasLoopOps(const XSpaceModel& space) {
  for (const char* name : {"WhileOp-EvalCond", "WhileOp-StartBody", "ForOp", "ParallelForOp", "ForeverOp"}) {
    StrId id = space.Find(name);
    if (id == kNoStr) continue;
    for (const XPlaneModel& p : space.planes) {
      for (const EventMetadata& m : p.event_metadata) {
        if (m.name == id) return true;
      }
    }
  }
  return false;
}

EventGroups GroupEvents(const XSpaceModel& space) {
  if (IsXSpaceGrouped(space)) return ReadExistingGroups(space);
  if (HasLoopOps(space)) return NoGroups(space);
  return Grouper(space).Run();
}

}  // namespace tbprof
