// The op and code views: nodes that gather several graph nodes (all nodes of
// an op type; all nodes created at a source line), as tfprof's TFOp and TFCode.
#include <cinttypes>
#include <cstdio>
#include <map>
#include <memory>
#include <tuple>

#include "convert/analysis/tfprof/tfprof_format.h"
#include "convert/analysis/tfprof/tfprof_multi_node.h"
#include "convert/analysis/tfprof/tfprof_show.h"
#include "convert/base/cancellation.h"

namespace tbprof::tfprof {
namespace {

using tensorflow::tfprof::GraphNodeProto;
using tensorflow::tfprof::MultiGraphNodeProto;

std::string Pad(const std::string& text, int width, bool left) {
  if (static_cast<int>(text.size()) >= width) return text;
  std::string pad(width - text.size(), ' ');
  return left ? text + pad : pad + text;
}

std::string Percentages(const std::string& value, int64_t total, int64_t self, int64_t root_total, bool nonzero) {
  double accumulated = 0, own = 0;
  if (nonzero && root_total != 0) {
    accumulated = 100.0 * total / root_total;
    own = 100.0 * self / root_total;
  }
  char buf[96];
  std::snprintf(buf, sizeof(buf), " (%.2f%%, %.2f%%)", accumulated, own);
  return Pad(value + buf, 30, false);
}

// The input shapes of an op row's graph nodes, grouped by identical shape
// lists, most runs first (ties in text order).
std::string FormatInputShapes(const MultiNode& node, const Model& model, int64_t step) {
  std::map<std::string, std::tuple<int64_t, int64_t, int64_t>> groups;  // defined, runs, micros
  for (const GraphNode* g : node.picked) {
    std::string text;
    for (const auto& [slot, shape] : model.InputShapes(*g)) {
      if (!text.empty()) text += ",\t";
      text += std::to_string(slot) + ":" + (shape.empty() ? "unknown" : FormatShape(shape));
    }
    auto& [defined, runs, micros] = groups["input_type: " + text];
    defined += 1;
    runs += g->RunCount(step);
    micros += g->ExecMicros(step);
  }
  std::vector<std::pair<std::string, std::tuple<int64_t, int64_t, int64_t>>> rows(groups.begin(), groups.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return std::get<1>(a.second) > std::get<1>(b.second); });
  std::string out;
  for (const auto& [text, t] : rows) {
    if (!out.empty()) out += "\n";
    out += text + "\t(run*" + std::to_string(std::get<1>(t)) + "|defined*" + std::to_string(std::get<0>(t)) +
           ")\texec_time: " + FormatTime(std::get<2>(t));
  }
  return out;
}

std::string FormatOpRow(const MultiNode& node, const MultiNode& root, const Model& model, const Options& o) {
  const MultiGraphNodeProto& p = node.proto;
  const MultiGraphNodeProto& r = root.proto;
  const KnownFigures& known = model.known;
  const std::string unknown = Pad(kUnknownText, 30, false);
  std::vector<std::string> attrs;
  auto memory = [&](bool on, int64_t total, int64_t root_total, int64_t self) {
    if (!on) return;
    attrs.push_back(known.memory ? Percentages(FormatMemory(self), total, self, root_total, self > 0) : unknown);
  };
  memory(o.Selected("bytes"), p.total_requested_bytes(), r.total_requested_bytes(), p.requested_bytes());
  memory(o.Selected("peak_bytes"), p.total_peak_bytes(), r.total_peak_bytes(), p.peak_bytes());
  memory(o.Selected("residual_bytes"), p.total_residual_bytes(), r.total_residual_bytes(), p.residual_bytes());
  memory(o.Selected("output_bytes"), p.total_output_bytes(), r.total_output_bytes(), p.output_bytes());
  auto time = [&](bool is_known, int64_t total, int64_t root_total, int64_t self) {
    attrs.push_back(is_known ? Percentages(FormatTime(self), total, self, root_total, total > 0) : unknown);
  };
  const bool times_known = known.accelerator_micros || known.cpu_micros;
  if (o.Selected("micros")) {
    time(times_known, p.total_exec_micros(), r.total_exec_micros(), p.exec_micros());
    time(known.accelerator_micros, p.total_accelerator_exec_micros(), r.total_accelerator_exec_micros(),
         p.accelerator_exec_micros());
    time(known.cpu_micros, p.total_cpu_exec_micros(), r.total_cpu_exec_micros(), p.cpu_exec_micros());
  }
  if (o.Selected("accelerator_micros") && !o.Selected("micros")) {
    time(known.accelerator_micros, p.total_accelerator_exec_micros(), r.total_accelerator_exec_micros(),
         p.accelerator_exec_micros());
  }
  if (o.Selected("cpu_micros") && !o.Selected("micros")) {
    time(known.cpu_micros, p.total_cpu_exec_micros(), r.total_cpu_exec_micros(), p.cpu_exec_micros());
  }
  if (o.Selected("params")) {
    attrs.push_back(known.parameters ? Percentages(FormatNumber(p.parameters()) + " params", p.total_parameters(),
                                                   p.parameters(), r.total_parameters(), p.total_parameters() > 0)
                                     : unknown);
  }
  if (o.Selected("float_ops")) {
    const bool row_known = known.float_ops && node.flops_known.SelfKnown();
    attrs.push_back(row_known ? Percentages(FormatNumber(p.float_ops()) + " float_ops", p.total_float_ops(),
                                            p.float_ops(), r.total_float_ops(), p.total_float_ops() > 0)
                              : unknown);
  }
  if (o.Selected("device")) attrs.push_back(JoinNames(node.devices, "|"));
  if (o.Selected("op_types")) attrs.push_back(JoinNames(node.op_types, "|"));
  if (o.Selected("occurrence")) {
    int64_t runs = 0;
    for (const GraphNodeProto& g : p.graph_nodes()) runs += g.run_count();
    attrs.push_back(Pad(std::to_string(runs) + "|" + std::to_string(p.graph_nodes_size()), 10, false));
  }
  std::string row = Pad(node.name, 25, true) + JoinNames(attrs, ", ") + "\n";
  if (o.Selected("input_shapes")) {
    std::string shapes = FormatInputShapes(node, model, o.step);
    if (!shapes.empty()) row += "\n" + shapes + "\n\n";
  }
  return row;
}

}  // namespace

StatusOr<ViewResult> ShowOpView(const Model& model, const Options& o) {
  std::map<std::string, std::unique_ptr<MultiNode>> by_type;
  for (const GraphNode& g : model.nodes) {
    auto& slot = by_type[g.op];
    if (!slot) {
      slot = std::make_unique<MultiNode>();
      slot->name = g.op;
    }
    slot->members.push_back(&g);
  }
  MultiNode root;
  root.name = kTFProfRoot;
  root.ResetTotals();

  std::vector<MultiNode*> rows;
  for (auto& [type, node] : by_type) {
    if (CancelRequested()) return CancelledError("tfprof's op view");
    node->account = node->ReInit(model, o.step, o.account_type_regexes);
    node->ResetTotals();
    node->AddSelfToTotals();
    rows.push_back(node.get());
  }
  SortMultiNodes(rows, o);
  // Totals run down the sorted list: a row's total is itself plus every
  // accounted row below it.
  std::vector<MultiNode*> accounted;
  MultiNode* below = nullptr;
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
    if (!(*it)->account) continue;
    if (below) (*it)->AggregateTotals(*below);
    accounted.push_back(*it);
    below = *it;
  }
  std::reverse(accounted.begin(), accounted.end());
  if (below) root.AggregateTotals(*below);

  size_t start = 0;
  if (!o.start_name_regexes.MatchesAll()) {
    while (start < accounted.size() && !o.start_name_regexes.Matches(accounted[start]->name)) ++start;
  }
  std::vector<MultiNode*> shown;
  int64_t depth = 0;
  for (size_t i = start; i < accounted.size(); ++i, ++depth) {
    MultiNode* n = accounted[i];
    if (CancelRequested()) return CancelledError("tfprof's op view");
    if (o.trim_name_regexes.Matches(n->name) || depth > o.max_depth) break;
    if (ShouldShowMultiNode(*n, o, depth)) shown.push_back(n);
  }
  if (o.account_displayed_op_only) {
    below = nullptr;
    for (auto it = shown.rbegin(); it != shown.rend(); ++it) {
      (*it)->ResetTotals();
      (*it)->AddSelfToTotals();
      if (below) (*it)->AggregateTotals(*below);
      below = *it;
    }
    root.ResetTotals();
    if (below) root.AggregateTotals(*below);
  }

  ViewResult result;
  result.view = "op";
  result.multi = true;
  result.known = model.known;
  result.text = MultiLegend(o);
  for (const MultiNode* n : shown) result.text += FormatOpRow(*n, root, model, o);
  result.multi_graph = root.proto;
  result.float_ops_known.emplace_back(root.flops_known.TotalKnown(), root.flops_known.TotalKnown());
  MultiGraphNodeProto* tail = &result.multi_graph;
  for (const MultiNode* n : shown) {
    tail = tail->add_children();
    *tail = n->proto;
    result.float_ops_known.emplace_back(n->flops_known.SelfKnown(), n->flops_known.TotalKnown());
  }
  return result;
}

}  // namespace tbprof::tfprof
