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

// Launch events by correlation id, the first launch of an id winning. CUPTI
// numbers its calls from a counter, so the ids usually fill a range densely:
// then a slot per id of the range, filled and read almost in order. Otherwise
// open addressing in one allocation, since a large GPU profile has millions
// of launches (a node per entry costs more than the lookups).
class LaunchTable {
 public:
  LaunchTable(size_t count, int64_t min_id, int64_t max_id) {
    const uint64_t range = static_cast<uint64_t>(max_id) - static_cast<uint64_t>(min_id);
    dense_ = count > 0 && range < 2 * count + 64;
    base_ = min_id;
    size_t n = 16;
    if (dense_) {
      n = static_cast<size_t>(range) + 1;
    } else {
      while (n < count + count / 2) n <<= 1;  // at most 2/3 full
    }
    slots_.assign(n, Slot{0, {kEmpty, 0}});
  }
  void Insert(int64_t id, EdgeRef ref) {
    if (dense_) {
      Slot& s = slots_[static_cast<uint64_t>(id) - static_cast<uint64_t>(base_)];
      if (s.ref.plane == kEmpty) s = {id, ref};
      return;
    }
    for (size_t i = Hash(id);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.ref.plane == kEmpty) {
        s = {id, ref};
        return;
      }
      if (s.id == id) return;
    }
  }
  // A hashed table is far larger than the caches: callers name the slot of an
  // id some lookups ahead so that its line is loaded by the time they get there.
  void Prefetch(int64_t id) const {
    if (!dense_) __builtin_prefetch(&slots_[Hash(id)]);
  }
  const EdgeRef* Find(int64_t id) const {
    if (dense_) {
      const uint64_t at = static_cast<uint64_t>(id) - static_cast<uint64_t>(base_);
      if (at >= slots_.size() || slots_[at].ref.plane == kEmpty) return nullptr;
      return &slots_[at].ref;
    }
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
  bool dense_ = false;
  int64_t base_ = 0;
  std::vector<Slot> slots_;
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
  bool is_host = false;
  std::vector<LineOrder> line_orders;  // per raw line
  std::vector<uint32_t> nest_parent;   // innermost enclosing event on the line
  std::vector<int8_t> root_level;
  // Per event metadata: the root level its name gives, and whether its `_a` stat marks it async.
  std::vector<int8_t> name_root_level;
  std::vector<uint8_t> metadata_async;
};

// What the pass over one raw line's events found. Lines are read on two
// threads, each into its own record; the records are then merged in line order.
struct LineLinks {
  struct Context {
    int64_t type, id;
    bool producer;
    uint32_t event;
  };
  uint32_t plane = 0, line = 0, order = 0;  // planes_ index, line in the plane, index into its line_orders
  std::vector<std::pair<int64_t, uint32_t>> launches;    // host: (correlation id, event)
  std::vector<std::pair<int64_t, uint32_t>> correlated;  // device: (correlation id, event)
  std::vector<Context> contexts;                         // host: `_p`/`_c` ends
};

class Grouper {
 public:
  explicit Grouper(const XSpaceModel& space) : space_(space), ids_(space) {
    const StrId link_ids[kLinkStats] = {ids_.root,        ids_.async,       ids_.correlation_id, ids_.producer_id,
                                        ids_.producer_type, ids_.consumer_id, ids_.consumer_type};
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
    for (size_t i = 0; i < space_.planes.size(); ++i) {
      const XPlaneModel& p = space_.planes[i];
      if (!IsGroupedPlaneName(space_.Str(p.name))) continue;
      WorkPlane w;
      w.space_index = i;
      w.is_host = space_.Str(p.name) == schema::kHostPlane;
      planes_.push_back(std::move(w));
    }
    // Host plane first so that launch edges always point to computed values.
    std::stable_sort(planes_.begin(), planes_.end(),
                     [](const WorkPlane& a, const WorkPlane& b) { return a.is_host > b.is_host; });
    std::vector<LineLinks> lines = ReadLines();
    BuildCrossEdges(lines);
    lines.clear();

    // TensorFlow loops, when present, are the only roots (ProcessTensorFlowLoop).
    std::vector<Root> roots = TfLoopRoots();
    if (roots.empty()) {
      // Pass 1: highest root level among strict ancestors, to find group roots.
      // Roots are host events, so the device planes are left out.
      std::vector<std::vector<int32_t>> anc_level(planes_.size());
      for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
        if (planes_[pi].is_host) anc_level[pi].assign(planes_[pi].nest_parent.size(), 0);
      }
      Propagate(
          anc_level, [](const WorkPlane& pw, uint32_t pe, int32_t pv) { return std::max<int32_t>(pw.root_level[pe], pv); },
          [](int32_t a, int32_t b) { return std::max(a, b); }, /*host_only=*/true);
      for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
        const WorkPlane& w = planes_[pi];
        if (!w.is_host) continue;
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
    // Pass 2: each event joins the earliest-processed group root among its ancestors-or-self.
    std::vector<std::vector<int32_t>> group(planes_.size());
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) group[pi].assign(planes_[pi].nest_parent.size(), INT32_MAX);
    for (size_t g = 0; g < roots.size(); ++g) {
      group[roots[g].plane][roots[g].event] = static_cast<int32_t>(g);
      NameGroup(static_cast<int32_t>(g), roots[g].plane, roots[g].event, out);
    }
    Propagate(
        group, [](const WorkPlane&, uint32_t, int32_t pv) { return pv; },
        [](int32_t a, int32_t b) { return std::min(a, b); }, /*host_only=*/false);
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
      for (const LineOrder& order : planes_[pi].line_orders) {
        order.ForEach([&](uint32_t e) {
          const uint8_t kind = kind_of[p.events[e].metadata];
          if (kind == kOther) return;
          const Stat* id = FindIf(p, e, id_stat);
          if (!id) return;
          if (kind == kTfDataFunction) tf_data_ids.insert(id->IntValue());
          if (kind != kExecutorProcess) return;
          const Stat* iter = FindIf(p, e, ids_.iter_num);
          if (iter) loops[id->IntValue()][iter->IntValue()].push_back({pi, e});
        });
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

  // Calls work(i) for every item, shared out between two threads by
  // weight(i); work on different items must not share state.
  template <typename Weight, typename Work>
  static void ForEachOnTwoThreads(size_t items, Weight&& weight, Work&& work) {
    std::vector<size_t> chosen(items);
    for (size_t i = 0; i < items; ++i) chosen[i] = i;
    std::stable_sort(chosen.begin(), chosen.end(), [&](size_t a, size_t b) { return weight(a) > weight(b); });
    std::vector<size_t> halves[2];
    size_t load[2] = {0, 0};
    for (size_t i : chosen) {
      int lighter = load[1] < load[0];
      halves[lighter].push_back(i);
      load[lighter] += weight(i);
    }
    RunBoth([&] { for (size_t i : halves[0]) work(i); }, [&] { for (size_t i : halves[1]) work(i); });
  }

  // Orders, nests and reads the stats of every raw line, one pass per line.
  std::vector<LineLinks> ReadLines() {
    std::vector<LineLinks> lines;
    for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
      WorkPlane& w = planes_[pi];
      const XPlaneModel& p = space_.planes[w.space_index];
      w.nest_parent.assign(p.events.size(), kNoParent);
      w.root_level.assign(p.events.size(), 0);
      w.name_root_level.assign(p.event_metadata.size(), 0);
      w.metadata_async.assign(p.event_metadata.size(), 0);
      for (size_t m = 0; m < p.event_metadata.size(); ++m) {
        if (w.is_host) w.name_root_level[m] = static_cast<int8_t>(NameRootLevel(space_.Str(p.event_metadata[m].name)));
        if (ids_.async == kNoStr) continue;
        auto [b, end] = p.MetadataStatsOf(static_cast<uint32_t>(m));
        const Stat* async = std::find_if(b, end, [&](const Stat& st) { return st.name == ids_.async; });
        w.metadata_async[m] = async != end && async->IntValue() != 0;
      }
      for (uint32_t l = 0; l < p.lines.size(); ++l) {
        if (IsDerivedLineId(p.lines[l].id)) continue;
        LineLinks links;
        links.plane = pi;
        links.line = l;
        links.order = static_cast<uint32_t>(w.line_orders.size());
        w.line_orders.emplace_back();
        lines.push_back(std::move(links));
      }
    }
    ForEachOnTwoThreads(
        lines.size(),
        [&](size_t i) { return space_.planes[planes_[lines[i].plane].space_index].lines[lines[i].line].num_events; },
        [&](size_t i) { ReadLine(lines[i]); });
    return lines;
  }

  void ReadLine(LineLinks& links) {
    WorkPlane& w = planes_[links.plane];
    const XPlaneModel& p = space_.planes[w.space_index];
    const LineModel& line = p.lines[links.line];
    LineOrder& order = w.line_orders[links.order];
    order.first = line.first_event;
    order.count = line.num_events;
    for (uint32_t e = line.first_event + 1; e < line.first_event + line.num_events; ++e) {
      const Event& a = p.events[e - 1];
      const Event& b = p.events[e];
      if (b.begin_ps < a.begin_ps || (b.begin_ps == a.begin_ps && b.duration_ps > a.duration_ps)) {
        order.sorted = SortedLineEvents(p, line);
        break;
      }
    }
    LineNester nester;
    order.ForEach([&](uint32_t e) {
      // One pass over the event's stats; the first of each name counts, as with FindStat.
      const Stat* found[kLinkStats] = {};
      auto [sb, se] = p.StatsOf(e);
      for (const Stat* st = sb; st != se; ++st) {
        if (st->name >= link_stat_of_.size()) continue;
        const uint8_t k = link_stat_of_[st->name];
        if (k != kNotALinkStat && found[k] == nullptr) found[k] = st;
      }
      const Stat *root = found[kRoot], *async = found[kAsync], *corr = found[kCorrelation], *pid = found[kProducerId],
                 *pt = found[kProducerType], *cid = found[kConsumerId], *ct = found[kConsumerType];
      const uint32_t md = p.events[e].metadata;
      // A `_r` stat sets the root level; the name does otherwise.
      if (w.is_host) {
        w.root_level[e] = root ? static_cast<int8_t>(std::clamp<int64_t>(root->IntValue(), 0, 100)) : w.name_root_level[md];
      }
      // The event's own `_a` first, then its metadata's: async events neither nest nor contain.
      const bool is_async = async != nullptr ? async->IntValue() != 0 : w.metadata_async[md] != 0;
      if (!is_async) nester.Add(p, e, [&](uint32_t parent, uint32_t child) { w.nest_parent[child] = parent; });
      if (!w.is_host) {
        if (corr) links.correlated.emplace_back(corr->IntValue(), e);
        return;
      }
      if (corr) links.launches.emplace_back(corr->IntValue(), e);
      if (pid) links.contexts.push_back({pt ? pt->IntValue() : 0, pid->IntValue(), true, e});
      if (cid) links.contexts.push_back({ct ? ct->IntValue() : 0, cid->IntValue(), false, e});
    });
  }

  static int NameRootLevel(std::string_view name) {
    if (name == "TraceContext" || name == "BatchingSessionRun") return 1;
    if (name == "ProcessBatch" || name == "OrbaxServing::ProcessBatch") return 2;
    return 0;
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
    ForEachOnTwoThreads(
        lines.size(), [&](size_t i) { return lines[i].correlated.size(); },
        [&](size_t i) {
          const auto& correlated = lines[i].correlated;
          for (size_t c = 0; c < correlated.size(); ++c) {
            if (c + kPrefetchDistance < correlated.size()) launch_of.Prefetch(correlated[c + kPrefetchDistance].first);
            const auto [id, e] = correlated[c];
            if (const EdgeRef* launch = launch_of.Find(id)) edges_of[i].push_back({*launch, {lines[i].plane, e}});
          }
        });
    launch_edges_.reserve(count);
    for (const auto& edges : edges_of) launch_edges_.insert(launch_edges_.end(), edges.begin(), edges.end());
    std::map<std::pair<int64_t, int64_t>, std::pair<std::vector<EdgeRef>, std::vector<EdgeRef>>> contexts;
    for (const LineLinks& links : lines) {
      for (const LineLinks::Context& c : links.contexts) {
        auto& ends = contexts[{c.type, c.id}];
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
      ForEachOnTwoThreads(
          lines.size(), [&](size_t i) { return planes_[lines[i].first].line_orders[lines[i].second].count; },
          [&](size_t i) {
            const WorkPlane& w = planes_[lines[i].first];
            std::vector<int32_t>& v = val[lines[i].first];
            w.line_orders[lines[i].second].ForEach([&](uint32_t e) {
              uint32_t parent = w.nest_parent[e];
              if (parent != kNoParent) v[e] = merge(v[e], contrib(w, parent, v[parent]));
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
    for (const CrossEdge& edge : launch_edges_) apply(edge);
    nest_pass(/*host=*/false);
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
  // latest earlier event of the plane (by begin; events beginning together in
  // line order, then in the order of the line).
  void InheritGroupsOnDevice(const XPlaneModel& p, std::vector<int32_t>& g) const {
    std::vector<uint32_t> all;
    all.reserve(p.events.size());
    auto earlier = [&](uint32_t a, uint32_t b) { return p.events[a].begin_ps < p.events[b].begin_ps; };
    // Each line sorted on its own, then merged into the lines before it: a
    // stable sort of all of them, in linear time for the usual sorted lines.
    for (const LineModel& line : p.lines) {
      if (IsDerivedLineId(line.id)) continue;
      const size_t mid = all.size();
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) all.push_back(e);
      if (!std::is_sorted(all.begin() + mid, all.end(), earlier)) std::stable_sort(all.begin() + mid, all.end(), earlier);
      std::inplace_merge(all.begin(), all.begin() + mid, all.end(), earlier);
    }
    int32_t last = kNoGroup;
    for (uint32_t e : all) {
      if (g[e] == kNoGroup) {
        g[e] = last;
      } else {
        last = g[e];
      }
    }
  }

  // The stats ReadLine looks for, and by string id which of them a stat is.
  enum LinkStat : uint8_t { kRoot, kAsync, kCorrelation, kProducerId, kProducerType, kConsumerId, kConsumerType, kLinkStats };
  static constexpr uint8_t kNotALinkStat = 0xff;

  const XSpaceModel& space_;
  StatIds ids_;
  std::vector<uint8_t> link_stat_of_;
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
