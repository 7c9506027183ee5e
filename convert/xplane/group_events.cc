#include "convert/xplane/group_events.h"
#include "convert/xplane/event_nesting.h"
#include "convert/xplane/schema.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <string_view>

#include "convert/base/run_both.h"

namespace tbprof {
namespace {

constexpr uint32_t kNoParent = UINT32_MAX;
// ConnectContextGroups skips a context with this many producers and consumers.
constexpr size_t kMaxContextFanout = 64;

bool IsGroupedPlaneName(std::string_view name) {
  return name == schema::kHostPlane || schema::IsGpuPlane(name);
}

// Roots that carry no step_name (GetGroupName's implicit roots).
bool IsImplicitRootName(std::string_view name) {
  return name == "FunctionRun" || name == "SessionRun" || name == "RunGraph" || name == "ExecutorState::Process";
}

struct StatIds {
  StrId root, async, producer_type, producer_id, consumer_type, consumer_id, correlation_id, group_id, step_name,
      iter_num, step_num;
  explicit StatIds(const XSpaceModel& s)
      : root(s.Find(schema::kIsRoot)),
        async(s.Find(schema::kIsAsync)),
        producer_type(s.Find(schema::kProducerType)),
        producer_id(s.Find(schema::kProducerId)),
        consumer_type(s.Find(schema::kConsumerType)),
        consumer_id(s.Find(schema::kConsumerId)),
        correlation_id(s.Find(schema::kCorrelationId)),
        group_id(s.Find(schema::kGroupId)),
        step_name(s.Find(schema::kStepName)),
        iter_num(s.Find(schema::kIterNum)),
        step_num(s.Find(schema::kStepNum)) {}
};

const Stat* FindIf(const XPlaneModel& p, uint32_t e, StrId name) {
  return name == kNoStr ? nullptr : p.FindStat(e, name);
}

struct EdgeRef {
  uint32_t plane;  // index into the planes being grouped
  uint32_t event;
};
struct CrossEdge {
  EdgeRef parent, child;
};

// Launch events by correlation id: open addressing in one allocation, since a
// large GPU profile has millions of launches (a node per entry costs more
// than the lookups). The first launch of an id wins.
class LaunchTable {
 public:
  explicit LaunchTable(size_t expected) {
    size_t n = 16;
    while (n < expected + expected / 2) n <<= 1;  // at most 2/3 full
    slots_.assign(n, Slot{0, {kEmpty, 0}});
  }
  void Insert(int64_t id, EdgeRef ref) {
    for (size_t i = Hash(id);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.ref.plane == kEmpty) {
        s = {id, ref};
        return;
      }
      if (s.id == id) return;
    }
  }
  // The table is far larger than the caches: callers name the slot of an id
  // some lookups ahead so that its line is loaded by the time they get there.
  void Prefetch(int64_t id) const { __builtin_prefetch(&slots_[Hash(id)]); }
  const EdgeRef* Find(int64_t id) const {
    for (size_t i = Hash(id);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (s.ref.plane == kEmpty) return nullptr;
      if (s.id == id) return &s.ref;
    }
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;  // no plane has this index
  struct Slot {
    int64_t id;
    EdgeRef ref;
  };
  size_t Hash(int64_t id) const {
    uint64_t x = static_cast<uint64_t>(id) * 0x9e3779b97f4a7c15ull;
    return static_cast<size_t>(x ^ (x >> 29)) & (slots_.size() - 1);
  }
  std::vector<Slot> slots_;
};

// One plane taking part in grouping.
struct WorkPlane {
  size_t space_index = 0;
  bool is_host = false;
  std::vector<std::vector<uint32_t>> line_orders;  // sorted event indices per raw line
  std::vector<uint32_t> nest_parent;               // innermost enclosing event on the line
  std::vector<int8_t> root_level;
};

class Grouper {
 public:
  explicit Grouper(const XSpaceModel& space) : space_(space), ids_(space) {}

  EventGroups Run() {
    EventGroups out;
    out.group_of.resize(space_.planes.size());
    out.has_step_name.resize(space_.planes.size());
    for (size_t i = 0; i < space_.planes.size(); ++i) {
      const XPlaneModel& p = space_.planes[i];
      if (!IsGroupedPlaneName(space_.Str(p.name))) continue;
      WorkPlane w;
      w.space_index = i;
      w.is_host = space_.Str(p.name) == schema::kHostPlane;
      planes_.push_back(std::move(w));
    }
    ForEachPlaneOnTwoThreads([](const WorkPlane&) { return true; },
                             [&](uint32_t pi) { BuildNesting(space_.planes[planes_[pi].space_index], planes_[pi]); });
    // Host plane first so that launch edges always point to computed values.
    std::stable_sort(planes_.begin(), planes_.end(),
                     [](const WorkPlane& a, const WorkPlane& b) { return a.is_host > b.is_host; });
    BuildCrossEdges();

    // TensorFlow loops, when present, are the only roots (ProcessTensorFlowLoop).
    std::vector<Root> roots = TfLoopRoots();
    if (roots.empty()) {
      // Pass 1: highest root level among strict ancestors, to find group roots.
      std::vector<std::vector<int32_t>> anc_level = Propagate(
          [](const WorkPlane&, uint32_t) { return int32_t{0}; },
          [](const WorkPlane& pw, uint32_t pe, int32_t pv) { return std::max<int32_t>(pw.root_level[pe], pv); },
          [](int32_t a, int32_t b) { return std::max(a, b); });
      for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
        const WorkPlane& w = planes_[pi];
        const XPlaneModel& p = space_.planes[w.space_index];
        for (uint32_t e = 0; e < w.root_level.size(); ++e) {
          if (w.root_level[e] > 0 && anc_level[pi][e] < w.root_level[e]) {
            roots.push_back({w.root_level[e], p.events[e].begin_ps, pi, e});
          }
        }
      }
    }
    std::stable_sort(roots.begin(), roots.end(), [](const Root& a, const Root& b) {
      return a.level != b.level ? a.level > b.level : a.begin < b.begin;
    });
    std::vector<std::vector<int32_t>> own_group(planes_.size());
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) own_group[pi].assign(planes_[pi].root_level.size(), INT32_MAX);
    for (size_t g = 0; g < roots.size(); ++g) {
      own_group[roots[g].plane][roots[g].event] = static_cast<int32_t>(g);
      NameGroup(static_cast<int32_t>(g), roots[g].plane, roots[g].event, out);
    }
    // Pass 2: each event joins the earliest-processed group root among its ancestors-or-self.
    std::vector<std::vector<int32_t>> group = Propagate(
        [&](const WorkPlane& w, uint32_t e) { return own_group[&w - planes_.data()][e]; },
        [](const WorkPlane&, uint32_t, int32_t pv) { return pv; },
        [](int32_t a, int32_t b) { return std::min(a, b); });
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
      std::vector<int32_t>& g = group[pi];
      for (int32_t& v : g) {
        if (v == INT32_MAX) v = kNoGroup;
      }
      size_t si = planes_[pi].space_index;
      if (!planes_[pi].is_host) InheritGroupsOnDevice(space_.planes[si], g);
      out.group_of[si] = std::move(g);
    }
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

  // ExecutorState::Process events with a step `id` and `iter_num` (ids of
  // tf.data's InstantiatedCapturedFunction excluded): each iteration of a loop
  // that reaches iter_num > 0 becomes a group whose root is its earliest
  // event; the iteration's other events become the root's children.
  std::vector<Root> TfLoopRoots() {
    std::vector<Root> roots;
    StrId id_stat = space_.Find(schema::kId);
    if (id_stat == kNoStr || ids_.iter_num == kNoStr) return roots;
    std::set<int64_t> tf_data_ids;
    std::map<int64_t, std::map<int64_t, std::vector<EdgeRef>>> loops;  // step id -> iter -> events
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
      if (!planes_[pi].is_host) continue;
      const XPlaneModel& p = space_.planes[planes_[pi].space_index];
      // Only two kinds of events matter; the names are told apart once per metadata, not per event.
      enum : uint8_t { kOther, kTfDataFunction, kExecutorProcess };
      std::vector<uint8_t> kind_of(p.event_metadata.size(), kOther);
      for (size_t m = 0; m < p.event_metadata.size(); ++m) {
        std::string_view name = space_.Str(p.event_metadata[m].name);
        if (name.starts_with("InstantiatedCapturedFunction::")) kind_of[m] = kTfDataFunction;
        if (name == "ExecutorState::Process") kind_of[m] = kExecutorProcess;
      }
      for (const auto& order : planes_[pi].line_orders) {
        for (uint32_t e : order) {
          const uint8_t kind = kind_of[p.events[e].metadata];
          if (kind == kOther) continue;
          const Stat* id = FindIf(p, e, id_stat);
          if (!id) continue;
          if (kind == kTfDataFunction) tf_data_ids.insert(id->IntValue());
          if (kind != kExecutorProcess) continue;
          const Stat* iter = FindIf(p, e, ids_.iter_num);
          if (iter) loops[id->IntValue()][iter->IntValue()].push_back({pi, e});
        }
      }
    }
    for (const auto& [step_id, iterations] : loops) {
      if (tf_data_ids.count(step_id) || iterations.rbegin()->first == 0) continue;
      for (const auto& [iter, events] : iterations) {
        auto begin_of = [&](const EdgeRef& r) {
          return space_.planes[planes_[r.plane].space_index].events[r.event].begin_ps;
        };
        EdgeRef root = *std::min_element(events.begin(), events.end(), [&](const EdgeRef& a, const EdgeRef& b) {
          return begin_of(a) < begin_of(b);
        });
        for (const EdgeRef& member : events) {
          if (member.plane != root.plane || member.event != root.event) context_edges_.push_back({root, member});
        }
        roots.push_back({1, begin_of(root), root.plane, root.event});
      }
    }
    return roots;
  }

  // Calls work(pi) for the planes that `select`s, shared out between two
  // threads by event count; work on different planes must not share state.
  template <typename Select, typename Work>
  void ForEachPlaneOnTwoThreads(Select&& select, Work&& work) {
    std::vector<uint32_t> chosen;
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
      if (select(planes_[pi])) chosen.push_back(pi);
    }
    auto events = [&](uint32_t pi) { return space_.planes[planes_[pi].space_index].events.size(); };
    std::stable_sort(chosen.begin(), chosen.end(), [&](uint32_t a, uint32_t b) { return events(a) > events(b); });
    std::vector<uint32_t> halves[2];
    size_t load[2] = {0, 0};
    for (uint32_t pi : chosen) {
      int lighter = load[1] < load[0];
      halves[lighter].push_back(pi);
      load[lighter] += events(pi);
    }
    RunBoth([&] { for (uint32_t pi : halves[0]) work(pi); }, [&] { for (uint32_t pi : halves[1]) work(pi); });
  }

  void BuildNesting(const XPlaneModel& p, WorkPlane& w) {
    w.nest_parent.assign(p.events.size(), kNoParent);
    w.root_level.assign(p.events.size(), 0);
    bool is_host = space_.Str(p.name) == schema::kHostPlane;
    for (const LineModel& line : p.lines) {
      if (IsDerivedLineId(line.id)) continue;
      std::vector<uint32_t> order = SortedLineEvents(p, line);
      if (is_host) {
        for (uint32_t e : order) w.root_level[e] = static_cast<int8_t>(RootLevel(p, e));
      }
      NestLineEvents(p, order, ids_.async, [&](uint32_t parent, uint32_t child) { w.nest_parent[child] = parent; });
      w.line_orders.push_back(std::move(order));
    }
  }

  int RootLevel(const XPlaneModel& p, uint32_t e) const {
    if (const Stat* r = FindIf(p, e, ids_.root)) return static_cast<int>(std::clamp<int64_t>(r->IntValue(), 0, 100));
    std::string_view name = space_.Str(p.EventName(e));
    if (name == "TraceContext" || name == "BatchingSessionRun") return 1;
    if (name == "ProcessBatch" || name == "OrbaxServing::ProcessBatch") return 2;
    return 0;
  }

  void BuildCrossEdges() {
    // Host launch (CUPTI API call with correlation_id) -> device activity.
    std::vector<std::pair<int64_t, EdgeRef>> launches;
    std::map<std::pair<int64_t, int64_t>, std::pair<std::vector<EdgeRef>, std::vector<EdgeRef>>> contexts;
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
      const WorkPlane& w = planes_[pi];
      const XPlaneModel& p = space_.planes[w.space_index];
      for (const auto& order : w.line_orders) {
        for (uint32_t e : order) {
          if (w.is_host) {
            // One pass over the event's stats; the first of each name counts, as with FindStat.
            const Stat *corr = nullptr, *pid = nullptr, *pt = nullptr, *cid = nullptr, *ct = nullptr;
            auto [sb, se] = p.StatsOf(e);
            for (const Stat* st = sb; st != se; ++st) {
              if (st->name == kNoStr) continue;
              if (st->name == ids_.correlation_id && !corr) corr = st;
              if (st->name == ids_.producer_id && !pid) pid = st;
              if (st->name == ids_.producer_type && !pt) pt = st;
              if (st->name == ids_.consumer_id && !cid) cid = st;
              if (st->name == ids_.consumer_type && !ct) ct = st;
            }
            if (corr) launches.push_back({corr->IntValue(), EdgeRef{pi, e}});
            if (pid) contexts[{pt ? pt->IntValue() : 0, pid->IntValue()}].first.push_back({pi, e});
            if (cid) contexts[{ct ? ct->IntValue() : 0, cid->IntValue()}].second.push_back({pi, e});
          }
        }
      }
    }
    LaunchTable launch_of(launches.size());
    constexpr size_t kPrefetchDistance = 16;
    for (size_t i = 0; i < launches.size(); ++i) {
      if (i + kPrefetchDistance < launches.size()) launch_of.Prefetch(launches[i + kPrefetchDistance].first);
      launch_of.Insert(launches[i].first, launches[i].second);
    }
    std::vector<std::vector<CrossEdge>> edges_of(planes_.size());  // device plane -> its launch edges
    ForEachPlaneOnTwoThreads([](const WorkPlane& w) { return !w.is_host; }, [&](uint32_t pi) {
      const WorkPlane& w = planes_[pi];
      const XPlaneModel& p = space_.planes[w.space_index];
      std::vector<std::pair<int64_t, uint32_t>> correlated;  // (correlation id, event), in line order
      for (const auto& order : w.line_orders) {
        for (uint32_t e : order) {
          if (const Stat* c = FindIf(p, e, ids_.correlation_id)) correlated.emplace_back(c->IntValue(), e);
        }
      }
      for (size_t i = 0; i < correlated.size(); ++i) {
        if (i + kPrefetchDistance < correlated.size()) launch_of.Prefetch(correlated[i + kPrefetchDistance].first);
        const auto [id, e] = correlated[i];
        if (const EdgeRef* launch = launch_of.Find(id)) edges_of[pi].push_back({*launch, {pi, e}});
      }
    });
    launch_edges_.reserve(launches.size());
    for (const auto& edges : edges_of) launch_edges_.insert(launch_edges_.end(), edges.begin(), edges.end());
    for (auto& [key, pc] : contexts) {
      auto& [producers, consumers] = pc;
      if (producers.size() >= kMaxContextFanout && consumers.size() >= kMaxContextFanout) continue;
      for (const EdgeRef& prod : producers) {
        for (const EdgeRef& cons : consumers) context_edges_.push_back({prod, cons});
      }
    }
  }

  // Fixpoint over the DAG of parents: value(e) = merge(init(e), contrib(parent)…).
  template <typename Init, typename Contrib, typename Merge>
  std::vector<std::vector<int32_t>> Propagate(Init init, Contrib contrib, Merge merge) {
    std::vector<std::vector<int32_t>> val(planes_.size());
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
      val[pi].resize(planes_[pi].nest_parent.size());
      for (uint32_t e = 0; e < val[pi].size(); ++e) val[pi][e] = init(planes_[pi], e);
    }
    auto apply = [&](const CrossEdge& edge) -> bool {
      int32_t& cv = val[edge.child.plane][edge.child.event];
      int32_t nv = merge(cv, contrib(planes_[edge.parent.plane], edge.parent.event,
                                      val[edge.parent.plane][edge.parent.event]));
      if (nv == cv) return false;
      cv = nv;
      return true;
    };
    auto nest_pass = [&](uint32_t pi) {
      const WorkPlane& w = planes_[pi];
      std::vector<int32_t>& v = val[pi];
      for (const auto& order : w.line_orders) {
        for (uint32_t e : order) {
          uint32_t parent = w.nest_parent[e];
          if (parent != kNoParent) v[e] = merge(v[e], contrib(w, parent, v[parent]));
        }
      }
    };
    // Producer/consumer edges may point backwards in time: iterate host planes.
    for (int round = 0; round < 8; ++round) {
      bool changed = false;
      for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
        if (planes_[pi].is_host) nest_pass(pi);
      }
      for (const CrossEdge& edge : context_edges_) changed |= apply(edge);
      if (!changed) break;
    }
    for (const CrossEdge& edge : launch_edges_) apply(edge);
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
      if (!planes_[pi].is_host) nest_pass(pi);
    }
    return val;
  }

  void NameGroup(int32_t group, uint32_t pi, uint32_t e, EventGroups& out) const {
    const XPlaneModel& p = space_.planes[planes_[pi].space_index];
    std::string_view name = space_.Str(p.EventName(e));
    std::string text = IsImplicitRootName(name) ? "" : std::string(name) + " ";
    if (const Stat* s = FindIf(p, e, ids_.iter_num); s && s->IsInteger()) {
      text += std::to_string(s->IntValue());
    } else if (const Stat* s2 = FindIf(p, e, ids_.step_num); s2 && s2->IsInteger()) {
      text += std::to_string(s2->IntValue());
    } else {
      text += std::to_string(group);
    }
    out.group_names[group] = std::move(text);
  }

  // ProcessUngroupedEvents: device events without a group take the group of the
  // latest earlier event of the plane.
  void InheritGroupsOnDevice(const XPlaneModel& p, std::vector<int32_t>& g) const {
    std::vector<uint32_t> all;
    for (const LineModel& line : p.lines) {
      if (IsDerivedLineId(line.id)) continue;
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) all.push_back(e);
    }
    std::stable_sort(all.begin(), all.end(),
                     [&](uint32_t a, uint32_t b) { return p.events[a].begin_ps < p.events[b].begin_ps; });
    int32_t last = kNoGroup;
    for (uint32_t e : all) {
      if (g[e] == kNoGroup) {
        g[e] = last;
      } else {
        last = g[e];
      }
    }
  }

  const XSpaceModel& space_;
  StatIds ids_;
  std::vector<WorkPlane> planes_;
  std::vector<CrossEdge> launch_edges_, context_edges_;
};

EventGroups ReadExistingGroups(const XSpaceModel& space) {
  EventGroups out;
  out.was_grouped = true;
  out.group_of.resize(space.planes.size());
  out.has_step_name.resize(space.planes.size());
  StrId group_id = space.Find(schema::kGroupId), step_name = space.Find(schema::kStepName);
  for (size_t i = 0; i < space.planes.size(); ++i) {
    const XPlaneModel& p = space.planes[i];
    if (!IsGroupedPlaneName(space.Str(p.name))) continue;
    auto& g = out.group_of[i];
    g.assign(p.events.size(), kNoGroup);
    for (uint32_t e = 0; e < p.events.size(); ++e) {
      const Stat* s = group_id == kNoStr ? nullptr : p.FindStat(e, group_id);
      if (!s || !s->IsInteger()) continue;
      g[e] = static_cast<int32_t>(s->IntValue());
      const Stat* n = step_name == kNoStr ? nullptr : p.FindStat(e, step_name);
      if (n && n->kind == StatKind::kStr) {
        if (out.has_step_name[i].empty()) out.has_step_name[i].assign(p.events.size(), 0);
        out.has_step_name[i][e] = 1;
        out.group_names.emplace(g[e], std::string(space.Str(n->str)));
      }
    }
  }
  return out;
}

}  // namespace

bool IsDerivedLineId(int64_t id) { return schema::IsDerivedThreadId(id); }

std::vector<uint32_t> SortedLineEvents(const XPlaneModel& plane, const LineModel& line) {
  std::vector<uint32_t> order(line.num_events);
  for (uint32_t i = 0; i < line.num_events; ++i) order[i] = line.first_event + i;
  auto less = [&](uint32_t a, uint32_t b) {
    const Event& x = plane.events[a];
    const Event& y = plane.events[b];
    return x.begin_ps != y.begin_ps ? x.begin_ps < y.begin_ps : x.duration_ps > y.duration_ps;
  };
  if (!std::is_sorted(order.begin(), order.end(), less)) std::stable_sort(order.begin(), order.end(), less);
  return order;
}

bool IsXSpaceGrouped(const XSpaceModel& space) {
  StrId group_id = space.Find(schema::kGroupId);
  if (group_id == kNoStr) return false;
  bool any = false;
  for (const XPlaneModel& p : space.planes) {
    if (!IsGroupedPlaneName(space.Str(p.name))) continue;
    any = true;
    bool has = false;
    for (const auto& [name, id] : p.stat_metadata) has |= name == group_id;
    if (!has) return false;
  }
  return any;
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
  if (HasLoopOps(space)) {
    EventGroups none;
    none.group_of.resize(space.planes.size());
    none.has_step_name.resize(space.planes.size());
    for (size_t i = 0; i < space.planes.size(); ++i) none.group_of[i].assign(space.planes[i].events.size(), kNoGroup);
    return none;
  }
  return Grouper(space).Run();
}

}  // namespace tbprof
