#include "convert/analysis/trace_analysis/critical_path_graph.h"

#include <algorithm>
#include <limits>

namespace tbprof::trace_analysis {
namespace {

constexpr uint32_t kNoNode = UINT32_MAX;

struct CpEdge {
  uint32_t from = 0, to = 0;
  int64_t weight = 0;
  uint32_t event = kNoCpEvent;  // attributed to; none for dependency edges
  CpSegmentKind kind = CpSegmentKind::kCpuOp;
};

uint32_t Start(uint32_t e) { return 2 * e; }
uint32_t End(uint32_t e) { return 2 * e + 1; }

class GraphBuilder {
 public:
  explicit GraphBuilder(const std::vector<CpEvent>& events) : ev_(events), waited_(events.size(), 0) {}

  int64_t Ts(uint32_t node) const { return node % 2 == 0 ? ev_[node / 2].begin_ps : ev_[node / 2].end_ps; }

  void Add(uint32_t from, uint32_t to, bool weighted, uint32_t event, CpSegmentKind kind) {
    const int64_t w = weighted ? std::max<int64_t>(0, Ts(to) - Ts(from)) : 0;
    edges_.push_back({from, to, w, event, kind});
  }

  CpSegmentKind CpuKind(uint32_t e) const { return ev_[e].runtime ? CpSegmentKind::kLaunch : CpSegmentKind::kCpuOp; }

  // One thread's events in call-stack order: enter and exit as HTA's walk does.
  void AddCpuLane(std::vector<uint32_t>& lane) {
    std::sort(lane.begin(), lane.end(), [&](uint32_t a, uint32_t b) {
      return ev_[a].begin_ps != ev_[b].begin_ps ? ev_[a].begin_ps < ev_[b].begin_ps : ev_[a].end_ps > ev_[b].end_ps;
    });
    std::vector<uint32_t> stack;
    uint32_t last_node = kNoNode, last_top = kNoNode;
    auto exit = [&] {
      const uint32_t e = stack.back();
      stack.pop_back();
      if (last_node != kNoNode) {
        const CpSegmentKind kind = ev_[e].blocking && ev_[e].waits_outside ? CpSegmentKind::kCpuWait : CpuKind(e);
        Add(last_node, End(e), !waited_[e], e, kind);
      }
      if (stack.empty()) {
        last_node = kNoNode;
        last_top = End(e);
      } else {
        last_node = End(e);
      }
    };
    for (uint32_t e : lane) {
      while (!stack.empty() && ev_[stack.back()].end_ps < ev_[e].end_ps) exit();
      if (stack.empty() && last_top != kNoNode) Add(last_top, Start(e), false, kNoCpEvent, CpSegmentKind::kCpuOp);
      if (last_node != kNoNode) Add(last_node, Start(e), true, stack.back(), CpuKind(stack.back()));
      stack.push_back(e);
      last_node = Start(e);
    }
    while (!stack.empty()) exit();
  }

  void AddGpuLane(std::vector<uint32_t>& lane) {
    std::sort(lane.begin(), lane.end(), [&](uint32_t a, uint32_t b) {
      return ev_[a].begin_ps != ev_[b].begin_ps ? ev_[a].begin_ps < ev_[b].begin_ps : a < b;
    });
    uint32_t prev = kNoCpEvent;
    for (uint32_t e : lane) {
      Add(Start(e), End(e), true, e, CpSegmentKind::kKernel);
      const uint32_t launch = ev_[e].launch;
      if (launch != kNoCpEvent && (prev == kNoCpEvent || ev_[prev].end_ps < ev_[launch].begin_ps)) {
        Add(Start(launch), Start(e), true, launch, CpSegmentKind::kLaunch);
      } else if (prev != kNoCpEvent) {
        Add(End(prev), Start(e), true, prev, CpSegmentKind::kGpuWait);
      }
      prev = e;
    }
  }

  // `by_end`: each GPU lane's events sorted by end. A copy the call itself
// launched (cudaMemcpy) counts as one it waits for.
  void AddSyncEdges(const std::vector<std::vector<uint32_t>>& by_end) {
    constexpr int kLookBack = 64;  // kernels launched after the call began, skipped
    for (uint32_t s = 0; s < ev_.size(); ++s) {
      if (ev_[s].gpu || !ev_[s].blocking) continue;
      for (const std::vector<uint32_t>& lane : by_end) {
        auto it = std::upper_bound(lane.begin(), lane.end(), ev_[s].end_ps,
                                   [&](int64_t t, uint32_t g) { return t < ev_[g].end_ps; });
        for (int step = 0; it != lane.begin() && step < kLookBack; ++step) {
          const uint32_t g = *--it;
          if (ev_[g].end_ps < ev_[s].begin_ps) break;
          const uint32_t launch = ev_[g].launch;
          if (launch != kNoCpEvent && launch != s && ev_[launch].begin_ps >= ev_[s].begin_ps) continue;
          Add(End(g), End(s), true, s, CpSegmentKind::kCpuWait);
          waited_[s] = 1;
          break;
        }
      }
    }
  }

  std::vector<CpEdge>& edges() { return edges_; }

 private:
  const std::vector<CpEvent>& ev_;
  std::vector<char> waited_;  // a blocking call that GPU work ended in (a sync edge reaches its end)
  std::vector<CpEdge> edges_;
};

// The nodes in a topological order (Kahn's); fewer than all when there is a cycle.
std::vector<uint32_t> TopologicalOrder(size_t nodes, const std::vector<uint32_t>& first_edge,
                                       const std::vector<CpEdge>& edges) {
  std::vector<uint32_t> indegree(nodes, 0);
  for (const CpEdge& e : edges) ++indegree[e.to];
  std::vector<uint32_t> order;
  order.reserve(nodes);
  for (uint32_t n = 0; n < nodes; ++n) {
    if (indegree[n] == 0) order.push_back(n);
  }
  for (size_t i = 0; i < order.size(); ++i) {
    const uint32_t u = order[i];
    for (uint32_t k = first_edge[u]; k < first_edge[u + 1]; ++k) {
      if (--indegree[edges[k].to] == 0) order.push_back(edges[k].to);
    }
  }
  return order;
}

CpResult PathResult(const std::vector<CpEdge>& edges, const std::vector<uint32_t>& path, const GraphBuilder& g) {
  CpResult r;
  auto visit = [&](uint32_t node) {
    if (r.visits.empty() || r.visits.back().event != node / 2) {
      r.visits.push_back({node / 2, g.Ts(node), g.Ts(node)});
    } else {
      r.visits.back().leave_ps = g.Ts(node);
    }
  };
  for (uint32_t k : path) {
    const CpEdge& e = edges[k];
    if (r.visits.empty()) visit(e.from);
    visit(e.to);
    r.length_ps += e.weight;
    if (e.weight <= 0 || e.event == kNoCpEvent) continue;
    if (!r.segments.empty() && r.segments.back().event == e.event && r.segments.back().kind == e.kind) {
      r.segments.back().duration_ps += e.weight;
    } else {
      r.segments.push_back({e.kind, e.event, g.Ts(e.from), e.weight});
    }
  }
  return r;
}

}  // namespace

const char* CpSegmentKindName(CpSegmentKind kind) {
  switch (kind) {
    case CpSegmentKind::kCpuOp: return "cpu_op";
    case CpSegmentKind::kLaunch: return "launch";
    case CpSegmentKind::kKernel: return "kernel";
    case CpSegmentKind::kGpuWait: return "gpu_wait";
    case CpSegmentKind::kCpuWait: return "cpu_wait";
  }
  return "cpu_op";
}

StatusOr<CpResult> LongestCriticalPath(const std::vector<CpEvent>& events) {
  if (events.size() >= std::numeric_limits<uint32_t>::max() / 2) return InvalidArgument("critical path: too many events");
  GraphBuilder g(events);
  uint32_t cpu_lanes = 0, gpu_lanes = 0;
  for (const CpEvent& e : events) (e.gpu ? gpu_lanes : cpu_lanes) = std::max(e.gpu ? gpu_lanes : cpu_lanes, e.lane + 1);
  std::vector<std::vector<uint32_t>> cpu(cpu_lanes), gpu(gpu_lanes);
  for (uint32_t i = 0; i < events.size(); ++i) (events[i].gpu ? gpu : cpu)[events[i].lane].push_back(i);
  // Sync edges first: they tell which blocking calls waited for the GPU.
  std::vector<std::vector<uint32_t>> by_end = gpu;
  for (std::vector<uint32_t>& lane : by_end) {
    std::sort(lane.begin(), lane.end(), [&](uint32_t a, uint32_t b) { return events[a].end_ps < events[b].end_ps; });
  }
  g.AddSyncEdges(by_end);
  for (std::vector<uint32_t>& lane : cpu) g.AddCpuLane(lane);
  for (std::vector<uint32_t>& lane : gpu) g.AddGpuLane(lane);

  std::vector<CpEdge>& edges = g.edges();
  const size_t nodes = 2 * events.size();
  std::sort(edges.begin(), edges.end(), [](const CpEdge& a, const CpEdge& b) { return a.from < b.from; });
  std::vector<uint32_t> first_edge(nodes + 1, 0);
  for (const CpEdge& e : edges) ++first_edge[e.from + 1];
  for (size_t n = 0; n < nodes; ++n) first_edge[n + 1] += first_edge[n];
  const std::vector<uint32_t> order = TopologicalOrder(nodes, first_edge, edges);
  if (order.size() != nodes) {
    return InvalidArgument("critical path: the events' times contradict their launches (the graph has a cycle)");
  }
  std::vector<int64_t> dist(nodes, 0);
  std::vector<uint32_t> via(nodes, UINT32_MAX);  // the edge that reached a node's distance
  for (uint32_t u : order) {
    for (uint32_t k = first_edge[u]; k < first_edge[u + 1]; ++k) {
      const CpEdge& e = edges[k];
      if (dist[u] + e.weight > dist[e.to] || (via[e.to] == UINT32_MAX && dist[u] + e.weight == dist[e.to])) {
        dist[e.to] = dist[u] + e.weight;
        via[e.to] = k;
      }
    }
  }
  if (nodes == 0) return CpResult{};
  uint32_t last = 0;
  for (uint32_t n = 1; n < nodes; ++n) {
    if (dist[n] > dist[last]) last = n;
  }
  std::vector<uint32_t> path;
  for (uint32_t n = last; via[n] != UINT32_MAX; n = edges[via[n]].from) path.push_back(via[n]);
  std::reverse(path.begin(), path.end());
  return PathResult(edges, path, g);
}

}  // namespace tbprof::trace_analysis
