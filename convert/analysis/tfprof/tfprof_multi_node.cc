#include "convert/analysis/tfprof/tfprof_multi_node.h"

#include <algorithm>

#include "convert/analysis/tfprof/tfprof_format.h"
#include "convert/analysis/tfprof/tfprof_totals.h"

namespace tbprof::tfprof {
namespace {

using tensorflow::tfprof::GraphNodeProto;
using tensorflow::tfprof::MultiGraphNodeProto;

// The figures of one graph node as tfprof's snapshot keeps them: its own
// values with totals equal to them.
GraphNodeProto SnapshotOf(const Model& model, const GraphNode& g, int64_t step) {
  GraphNodeProto p;
  p.set_name(g.name);
  if (!g.canonical_device.empty()) p.add_devices(g.canonical_device);
  p.set_run_count(g.RunCount(step));
  p.set_exec_micros(g.ExecMicros(step));
  p.set_accelerator_exec_micros(g.AcceleratorMicros(step));
  p.set_cpu_exec_micros(g.CpuMicros(step));
  p.set_requested_bytes(g.RequestedBytes(step));
  p.set_peak_bytes(g.PeakBytes(step));
  p.set_residual_bytes(g.ResidualBytes(step));
  p.set_output_bytes(g.OutputBytes(step));
  p.set_float_ops(g.FloatOps(step));
  p.set_parameters(g.Parameters());
  for (const auto& [slot, shape] : model.InputShapes(g)) {
    auto& s = (*p.mutable_input_shapes())[slot];
    if (shape.empty()) s.set_unknown_rank(true);
    for (int64_t d : shape) s.add_dim()->set_size(d);
  }
  p.set_total_definition_count(1);
  p.set_total_run_count(p.run_count());
  AddOwnToSharedTotals(p);  // a fresh proto's totals are 0
  return p;
}

}  // namespace

bool MultiNode::ReInit(const Model& model, int64_t step, const RegexList& account) {
  picked.clear();
  devices.clear();
  op_types.clear();
  for (const GraphNode* g : members) {
    bool matches = account.MatchesAll();
    for (auto it = g->op_types.begin(); !matches && it != g->op_types.end(); ++it) matches = account.Matches(*it);
    if (matches) picked.push_back(g);
  }
  std::sort(picked.begin(), picked.end(), [](const GraphNode* a, const GraphNode* b) { return a->name < b->name; });
  MultiGraphNodeProto& p = proto;
  p.set_name(name);
  p.clear_graph_nodes();
  int64_t exec = 0, accelerator = 0, cpu = 0, requested = 0, peak = 0, residual = 0, output = 0, flops = 0,
          params = 0;
  flops_known.self_known = flops_known.self_unknown = 0;
  for (const GraphNode* g : picked) {
    (g->float_ops_known ? flops_known.self_known : flops_known.self_unknown) += 1;
    op_types.insert(g->op_types.begin(), g->op_types.end());
    if (!g->canonical_device.empty()) devices.insert(g->canonical_device);
    exec += g->ExecMicros(step);
    accelerator += g->AcceleratorMicros(step);
    cpu += g->CpuMicros(step);
    requested += g->RequestedBytes(step);
    peak += g->PeakBytes(step);
    residual += g->ResidualBytes(step);
    output += g->OutputBytes(step);
    flops += g->FloatOps(step);
    params += g->Parameters();
    *p.add_graph_nodes() = SnapshotOf(model, *g, step);
  }
  p.set_exec_micros(exec);
  p.set_accelerator_exec_micros(accelerator);
  p.set_cpu_exec_micros(cpu);
  p.set_requested_bytes(requested);
  p.set_peak_bytes(peak);
  p.set_residual_bytes(residual);
  p.set_output_bytes(output);
  p.set_float_ops(flops);
  p.set_parameters(params);
  return picked.empty() ? account.MatchesAll() : true;
}

void MultiNode::ResetTotals() {
  formatted.clear();
  flops_known.total_known = flops_known.total_unknown = 0;
  proto.set_name(name);
  ClearSharedTotals(proto);
  proto.clear_children();
}

void MultiNode::AddSelfToTotals() {
  flops_known.AddSelfToTotal();
  AddOwnToSharedTotals(proto);
}

void MultiNode::AggregateTotals(const MultiNode& other) {
  flops_known.AddTotal(other.flops_known);
  AddChildToSharedTotals(proto, other.proto);
}

bool ShouldShowMultiNode(const MultiNode& node, const Options& o, int64_t depth) {
  if (node.name == kTFProfRoot) return true;
  const MultiGraphNodeProto& p = node.proto;
  if (!MeetsSharedTotalThresholds(p, o) || p.total_parameters() < o.min_params ||
      p.total_float_ops() < o.min_float_ops || depth > o.max_depth) {
    return false;
  }
  return NameIsShown(node.name, o);
}

void SortMultiNodes(std::vector<MultiNode*>& nodes, const Options& options) {
  const std::string& by = options.order_by;
  auto key = [&by](const MultiNode& n) -> int64_t {
    return by == "occurrence" ? n.proto.graph_nodes_size() : OrderByTotal(n.proto, by);
  };
  std::stable_sort(nodes.begin(), nodes.end(), [&](const MultiNode* a, const MultiNode* b) {
    if (a->name == kTFProfRoot) return b->name != kTFProfRoot;
    if (b->name == kTFProfRoot) return false;
    if (by == "name") return a->name < b->name;
    return key(*a) > key(*b);
  });
}

std::string MultiLegend(const Options& o) {
  return ViewLegend(o, LegendOrder::kCountsAfterTimes, "op occurrence (run|defined)");
}

}  // namespace tbprof::tfprof
