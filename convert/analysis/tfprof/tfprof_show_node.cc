#include "convert/analysis/tfprof/tfprof_show_node.h"

#include "convert/analysis/tfprof/tfprof_format.h"
#include "convert/analysis/tfprof/tfprof_totals.h"
#include "convert/base/memory_grant.h"

namespace tbprof::tfprof {
namespace {

using tensorflow::tfprof::GraphNodeProto;
using tensorflow::tfprof::TensorShapeProto;

// tfprof's VecToShapeProto: an empty (unknown) shape has unknown rank.
TensorShapeProto ToShapeProto(const std::vector<int64_t>& shape) {
  TensorShapeProto out;
  if (shape.empty()) {
    out.set_unknown_rank(true);
    return out;
  }
  for (int64_t d : shape) out.add_dim()->set_size(d);
  return out;
}

// "self/total", "--/total" for an unaccounted node, "--" for a figure the
// profile cannot give.
std::string SelfTotal(bool known, bool account, const std::string& self, const std::string& total) {
  if (!known) return kUnknownText;
  return (account ? self : std::string(kUnknownText)) + "/" + total;
}

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

template <typename Set>
std::string JoinSet(const Set& items, const std::string& sep) {
  return Join(std::vector<std::string>(items.begin(), items.end()), sep);
}

}  // namespace

void ShowNode::ReInit(const Model& model, int64_t step) {
  flops_known.SetSelf(node);
  proto.clear_devices();
  proto.clear_input_shapes();
  if (node == nullptr) {
    proto.set_run_count(0);
    proto.set_exec_micros(0);
    proto.set_accelerator_exec_micros(0);
    proto.set_cpu_exec_micros(0);
    proto.set_requested_bytes(0);
    proto.set_peak_bytes(0);
    proto.set_residual_bytes(0);
    proto.set_output_bytes(0);
    proto.set_float_ops(0);
    proto.set_parameters(0);
    return;
  }
  if (!node->canonical_device.empty()) proto.add_devices(node->canonical_device);
  proto.set_run_count(node->RunCount(step));
  proto.set_exec_micros(node->ExecMicros(step));
  proto.set_accelerator_exec_micros(node->AcceleratorMicros(step));
  proto.set_cpu_exec_micros(node->CpuMicros(step));
  proto.set_requested_bytes(node->RequestedBytes(step));
  proto.set_peak_bytes(node->PeakBytes(step));
  proto.set_residual_bytes(node->ResidualBytes(step));
  proto.set_output_bytes(node->OutputBytes(step));
  proto.set_float_ops(node->FloatOps(step));
  for (const auto& [slot, shape] : model.InputShapes(*node)) {
    (*proto.mutable_input_shapes())[slot] = ToShapeProto(shape);
  }
  proto.set_parameters(node->Parameters());
}

void ShowNode::ResetTotals() {
  formatted.clear();
  flops_known.total_known = flops_known.total_unknown = 0;
  proto.set_total_definition_count(0);
  proto.set_total_run_count(0);
  ClearSharedTotals(proto);
  proto.clear_children();
}

void ShowNode::AddSelfToTotals() {
  flops_known.AddSelfToTotal();
  proto.set_total_definition_count(proto.total_definition_count() + 1);
  proto.set_total_run_count(proto.total_run_count() + proto.run_count());
  AddOwnToSharedTotals(proto);
}

void ShowNode::AggregateTotals(const ShowNode& child) {
  flops_known.AddTotal(child.flops_known);
  proto.set_total_definition_count(proto.total_definition_count() + child.proto.total_definition_count());
  proto.set_total_run_count(proto.total_run_count() + child.proto.total_run_count());
  AddChildToSharedTotals(proto, child.proto);
}

bool IsAccounted(const std::set<std::string>& op_types, const Options& options) {
  if (options.account_type_regexes.MatchesAll()) return true;
  for (const std::string& type : op_types) {
    if (options.account_type_regexes.Matches(type)) return true;
  }
  return false;
}

bool ShouldShowTreeNode(const ShowNode& node, const Options& o, int64_t depth) {
  if (node.name == kTFProfRoot) return true;
  const GraphNodeProto& p = node.proto;
  if (!MeetsSharedTotalThresholds(p, o) || p.parameters() < o.min_params || p.float_ops() < o.min_float_ops ||
      p.run_count() < o.min_occurrence || depth > o.max_depth) {
    return false;
  }
  return NameIsShown(node.name, o);
}

void SortShowNodes(std::vector<ShowNode*>& nodes, const Options& options) {
  const std::string& by = options.order_by;
  // "name" and, in these views, "occurrence" sort by name.
  const bool by_name = by == "name" || by == "occurrence";
  std::stable_sort(nodes.begin(), nodes.end(), [&](const ShowNode* a, const ShowNode* b) {
    if (a->name == kTFProfRoot) return b->name != kTFProfRoot;
    if (b->name == kTFProfRoot) return false;
    if (by_name) return a->name < b->name;
    return OrderByTotal(a->proto, by) > OrderByTotal(b->proto, by);
  });
}

std::string TreeLegend(const Options& o) {
  return ViewLegend(o, LegendOrder::kCountsFirst, "op count (run|defined)");
}

std::string FormatTreeNode(const ShowNode& node, const Model& model, const Options& o) {
  const GraphNodeProto& p = node.proto;
  const KnownFigures& known = model.known;
  const bool acc = node.account;
  std::vector<std::string> info;
  if (o.Selected("params")) {
    if (node.node != nullptr && !node.node->shape.empty()) info.push_back(FormatShape(node.node->shape));
    info.push_back(known.parameters
                       ? SelfTotal(true, acc, FormatNumber(p.parameters()), FormatNumber(p.total_parameters())) +
                             " params"
                       : std::string(kUnknownText) + " params");
  }
  if (o.Selected("float_ops")) {
    const FloatOpsKnowledge& f = node.flops_known;
    info.push_back(known.float_ops
                       ? SelfTotal(true, acc && f.SelfKnown(), FormatNumber(p.float_ops()),
                                   f.TotalKnown() ? FormatNumber(p.total_float_ops()) : kUnknownText) +
                             " flops"
                       : std::string(kUnknownText) + " flops");
  }
  auto memory = [&](int64_t self, int64_t total) {
    info.push_back(SelfTotal(known.memory, acc, FormatMemory(self), FormatMemory(total)));
  };
  if (o.Selected("bytes")) memory(p.requested_bytes(), p.total_requested_bytes());
  if (o.Selected("peak_bytes")) memory(p.peak_bytes(), p.total_peak_bytes());
  if (o.Selected("residual_bytes")) memory(p.residual_bytes(), p.total_residual_bytes());
  if (o.Selected("output_bytes")) memory(p.output_bytes(), p.total_output_bytes());
  const bool times_known = known.accelerator_micros || known.cpu_micros;
  auto total_time = [&] {
    info.push_back(SelfTotal(times_known, acc, FormatTime(p.exec_micros()), FormatTime(p.total_exec_micros())));
  };
  auto accelerator_time = [&] {
    info.push_back(SelfTotal(known.accelerator_micros, acc, FormatTime(p.accelerator_exec_micros()),
                             FormatTime(p.total_accelerator_exec_micros())));
  };
  auto cpu_time = [&] {
    info.push_back(SelfTotal(known.cpu_micros, acc, FormatTime(p.cpu_exec_micros()),
                             FormatTime(p.total_cpu_exec_micros())));
  };
  if (o.Selected("micros")) {
    total_time();
    accelerator_time();
    cpu_time();
  }
  if (o.Selected("accelerator_micros") && !o.Selected("micros")) accelerator_time();
  if (o.Selected("cpu_micros") && !o.Selected("micros")) cpu_time();
  if (o.Selected("device") && p.devices_size() > 0) info.push_back(JoinSet(p.devices(), "|"));
  if (o.Selected("op_types")) info.push_back(JoinSet(node.op_types(), "|"));
  if (o.Selected("occurrence")) {
    std::string run = SelfTotal(true, acc, FormatNumber(p.run_count()), FormatNumber(p.total_run_count()));
    std::string defined = SelfTotal(true, acc, "1", FormatNumber(p.total_definition_count()));
    info.push_back(run + "|" + defined);
  }
  if (o.Selected("input_shapes")) {
    std::vector<std::string> shapes;
    if (node.node != nullptr) {
      for (const auto& [slot, shape] : model.InputShapes(*node.node)) {
        shapes.push_back(std::to_string(slot) + ":" + (shape.empty() ? "unknown" : FormatShape(shape)));
      }
    }
    info.push_back(Join(shapes, "|"));
  }
  return std::string(node.name) + " (" + Join(info, ", ") + ")";
}

Status CopyShownTree(const ShowNode& from, GraphNodeProto& to, std::vector<std::pair<bool, bool>>& known) {
  for (const ShowNode* child : from.show_children) {
    RETURN_IF_ERROR(ClaimMemory(sizeof(GraphNodeProto) + child->name.size(), "tfprof: the view's nodes"));
    GraphNodeProto* c = to.add_children();
    *c = child->proto;
    c->clear_children();
    c->set_name(std::string(child->name));
    known.emplace_back(child->flops_known.SelfKnown(), child->flops_known.TotalKnown());
    RETURN_IF_ERROR(CopyShownTree(*child, *c, known));
  }
  return Status::Ok();
}

}  // namespace tbprof::tfprof
