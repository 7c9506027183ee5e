// The code view: a tree of source lines from each node's call stack (tfprof's
// TFCode). Gradient nodes ("...gradients/X_grad/...") hang under a copy of
// their forward node X's stack marked " (gradient)".
#include <algorithm>
#include <map>
#include <memory>

#include "convert/analysis/tfprof/tfprof_code_view.h"
#include "convert/analysis/tfprof/tfprof_format.h"
#include "convert/analysis/tfprof/tfprof_show.h"
#include "convert/analysis/tfprof/tfprof_totals.h"

namespace tbprof::tfprof {
namespace {

constexpr const char* kGradientSuffix = " (gradient)";

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "file.py:12:function", long function names cut to 17 characters + "...".
std::string FrameName(const CodeFrame& frame) {
  std::string name = Basename(frame.file) + ":" + std::to_string(frame.lineno) + ":";
  name += frame.function.size() < 20 ? frame.function : frame.function.substr(0, 17) + "...";
  return name;
}

// The forward op X of a gradient node named "...gradients/X_grad/...".
bool ForwardNameOf(const std::string& name, std::string& forward) {
  size_t prefix = name.find("gradients/");
  size_t suffix = name.find("_grad/");
  if (prefix == std::string::npos || suffix == std::string::npos) return false;
  size_t start = prefix + std::string("gradients/").size();
  if (suffix <= start) return false;
  forward = name.substr(start, suffix - start);
  return true;
}

std::string SelfTotal(bool known, bool account, const std::string& self, const std::string& total) {
  if (!known) return kUnknownText;
  return (account ? self : std::string(kUnknownText)) + "/" + total;
}

}  // namespace

MultiNode* CodeTree::Child(MultiNode* parent, const CodeFrame& frame, const std::string& suffix) {
  const std::string name = FrameName(frame) + suffix;
  auto& slot = child_index_[{parent, name}];
  if (slot == nullptr) {
    storage_.push_back(std::make_unique<MultiNode>());
    slot = storage_.back().get();
    slot->name = name;
    slot->frame = &frame;
    parent->children.push_back(slot);
  }
  return slot;
}

CodeTree::CodeTree(const Model& model) {
  root.name = kTFProfRoot;
  std::map<std::string, const GraphNode*> by_name;
  for (const GraphNode& g : model.nodes) by_name[g.name] = &g;
  std::map<std::string, std::vector<const GraphNode*>> gradients;
  std::map<std::string, const GraphNode*> forwards;
  for (const auto& [name, g] : by_name) {
    if (g->trace.empty()) continue;
    std::string forward;
    if (ForwardNameOf(name, forward)) {
      gradients[forward].push_back(g);
      continue;
    }
    forwards[name] = g;
    if (g->trace.size() > static_cast<size_t>(kMaxTreeDepth)) {
      too_deep_stack = std::max(too_deep_stack, g->trace.size());
      continue;
    }
    MultiNode* at = &root;
    for (const CodeFrame& frame : g->trace) at = Child(at, frame, "");
    at->members.push_back(g);
  }
  for (const auto& [forward, grads] : gradients) {
    auto it = forwards.find(forward);
    if (it == forwards.end()) {
      unattached_gradients += static_cast<int64_t>(grads.size());
      continue;
    }
    if (it->second->trace.size() > static_cast<size_t>(kMaxTreeDepth)) continue;  // refused above
    MultiNode* at = &root;
    for (const CodeFrame& frame : it->second->trace) at = Child(at, frame, kGradientSuffix);
    at->members.insert(at->members.end(), grads.begin(), grads.end());
  }
}

namespace {

class CodeView {
 public:
  CodeView(const Model& model, const Options& options, CodeTree& tree)
      : model_(model), o_(options), tree_(tree), guard_("code") {}

  StatusOr<ViewResult> Show() {
    MultiNode& root = tree_.root;
    root.ReInit(model_, o_.step, o_.account_type_regexes);
    root.ResetTotals();
    std::vector<MultiNode*> roots = Account(root.children, 1);
    for (MultiNode* n : roots) root.AggregateTotals(*n);
    if (!o_.start_name_regexes.MatchesAll()) roots = SearchRoot(roots, 1);
    root.show_children = roots;
    std::vector<MultiNode*> shown = Print({&root}, 1, 0);
    RETURN_IF_ERROR(guard_.status());
    MultiNode* shown_root = shown[0];

    ViewResult result;
    result.view = "code";
    result.multi = true;
    result.known = model_.known;
    result.text = MultiLegend(o_) + shown_root->formatted;
    result.multi_graph = shown_root->proto;
    result.multi_graph.clear_children();
    result.float_ops_known.emplace_back(shown_root->flops_known.SelfKnown(), shown_root->flops_known.TotalKnown());
    Collect(*shown_root, result.text, result.multi_graph, result.float_ops_known);
    return result;
  }

 private:
  std::vector<MultiNode*> Account(const std::vector<MultiNode*>& nodes, int64_t depth) {
    std::vector<MultiNode*> kept;
    for (MultiNode* node : nodes) {
      if (!guard_.Visit(depth)) break;
      node->ResetTotals();
      std::vector<MultiNode*> kept_children = Account(node->children, depth + 1);
      node->account = node->ReInit(model_, o_.step, o_.account_type_regexes);
      if (node->account || !kept_children.empty()) {
        ShowWithKeptChildren(*node, kept_children);
        kept.push_back(node);
      }
    }
    return kept;
  }

  std::vector<MultiNode*> SearchRoot(const std::vector<MultiNode*>& nodes, int64_t depth) {
    std::vector<MultiNode*> found;
    for (MultiNode* node : nodes) {
      if (!guard_.Visit(depth)) break;
      if (o_.start_name_regexes.Matches(node->name)) {
        found.push_back(node);
        continue;
      }
      std::vector<MultiNode*> below = SearchRoot(node->show_children, depth + 1);
      found.insert(found.end(), below.begin(), below.end());
    }
    return found;
  }

  // A trimmed node, or one deeper than max_depth, is left out with its
  // subtree; display-only accounting does not apply to this view.
  std::vector<MultiNode*> Print(const std::vector<MultiNode*>& nodes, int64_t depth, size_t last_indent) {
    std::vector<MultiNode*> shown;
    for (MultiNode* node : nodes) {
      if (!guard_.Visit(depth)) break;
      if (o_.trim_name_regexes.Matches(node->name) || depth > o_.max_depth) continue;
      const bool show = ShouldShowMultiNode(*node, o_, depth);
      std::vector<MultiNode*> shown_children = Print(node->show_children, depth + 1, last_indent + (show ? 2 : 0));
      if (!show) {
        shown.insert(shown.end(), shown_children.begin(), shown_children.end());
        continue;
      }
      SortMultiNodes(shown_children, o_);
      node->show_children = shown_children;
      node->formatted = std::string(last_indent, ' ') + FormatLine(*node) + "\n";
      // The line and its copy in the text, the node's copy in the answer.
      guard_.Hold(2 * node->formatted.size() + sizeof(tensorflow::tfprof::MultiGraphNodeProto));
      shown.push_back(node);
    }
    return shown;
  }

  std::string FormatLine(const MultiNode& node) const {
    const auto& p = node.proto;
    const KnownFigures& k = model_.known;
    const bool acc = node.account;
    std::vector<std::string> attrs;
    auto memory = [&](bool on, int64_t self, int64_t total) {
      if (on) attrs.push_back(SelfTotal(k.memory, acc, FormatMemory(self), FormatMemory(total)));
    };
    memory(o_.Selected("bytes"), p.requested_bytes(), p.total_requested_bytes());
    memory(o_.Selected("peak_bytes"), p.peak_bytes(), p.total_peak_bytes());
    memory(o_.Selected("residual_bytes"), p.residual_bytes(), p.total_residual_bytes());
    memory(o_.Selected("output_bytes"), p.output_bytes(), p.total_output_bytes());
    auto time = [&](bool known, int64_t self, int64_t total) {
      attrs.push_back(SelfTotal(known, acc, FormatTime(self), FormatTime(total)));
    };
    if (o_.Selected("micros")) {
      time(k.accelerator_micros || k.cpu_micros, p.exec_micros(), p.total_exec_micros());
      time(k.accelerator_micros, p.accelerator_exec_micros(), p.total_accelerator_exec_micros());
      time(k.cpu_micros, p.cpu_exec_micros(), p.total_cpu_exec_micros());
    }
    if (o_.Selected("accelerator_micros") && !o_.Selected("micros")) {
      time(k.accelerator_micros, p.accelerator_exec_micros(), p.total_accelerator_exec_micros());
    }
    if (o_.Selected("cpu_micros") && !o_.Selected("micros")) {
      time(k.cpu_micros, p.cpu_exec_micros(), p.total_cpu_exec_micros());
    }
    if (o_.Selected("params")) {
      attrs.push_back(SelfTotal(k.parameters, acc, FormatNumber(p.parameters()), FormatNumber(p.total_parameters())) +
                      " params");
    }
    if (o_.Selected("float_ops")) {
      const FloatOpsKnowledge& f = node.flops_known;
      attrs.push_back(SelfTotal(k.float_ops, acc && f.SelfKnown(), FormatNumber(p.float_ops()),
                                f.TotalKnown() ? FormatNumber(p.total_float_ops()) : kUnknownText) +
                      " flops");
    }
    if (o_.Selected("device") && !node.devices.empty()) attrs.push_back(JoinNames(node.devices, "|"));
    if (o_.Selected("op_types")) attrs.push_back(JoinNames(node.op_types, "|"));
    if (o_.Selected("occurrence")) attrs.push_back("occurrence N/A in code view");
    if (o_.Selected("input_shapes")) attrs.push_back("input_shapes N/A in code view");
    return node.name + " (" + JoinNames(attrs, ", ") + ")";
  }

  void Collect(const MultiNode& node, std::string& text, tensorflow::tfprof::MultiGraphNodeProto& proto,
               std::vector<std::pair<bool, bool>>& known) {
    for (const MultiNode* child : node.show_children) {
      text += child->formatted;
      auto* c = proto.add_children();
      *c = child->proto;
      c->clear_children();
      known.emplace_back(child->flops_known.SelfKnown(), child->flops_known.TotalKnown());
      Collect(*child, text, *c, known);
    }
  }

  const Model& model_;
  const Options& o_;
  CodeTree& tree_;
  TreeWalkGuard guard_;
};

}  // namespace

StatusOr<ViewResult> ShowCodeViewOf(const Model& model, const Options& options, CodeTree& tree) {
  bool any_trace = false;
  for (const GraphNode& g : model.nodes) any_trace = any_trace || !g.trace.empty();
  if (!any_trace) {
    return InvalidArgument("the code view needs source call stacks, and this " + model.source_kind +
                           " profile has none (no op carries a Python stack or a source file and line); "
                           "use the scope or op view");
  }
  if (tree.too_deep_stack > 0) {
    return TooDeepError("code", "a call stack of " + std::to_string(tree.too_deep_stack) + " frames");
  }
  CodeView view(model, options, tree);
  return view.Show();
}

StatusOr<ViewResult> ShowCodeView(const Model& model, const Options& options) {
  CodeTree tree(model);
  return ShowCodeViewOf(model, options, tree);
}

}  // namespace tbprof::tfprof
