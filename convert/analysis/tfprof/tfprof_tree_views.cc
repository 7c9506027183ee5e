// The scope and graph views: build the tree, account (post-order), pick the
// start nodes, then filter and print (tfprof's TFScope and TFGraph).
#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "convert/analysis/tfprof/tfprof_show.h"
#include "convert/analysis/tfprof/tfprof_show_node.h"

namespace tbprof::tfprof {
namespace {

class TreeView {
 public:
  TreeView(const Model& model, const Options& options, bool graph)
      : model_(model), options_(options), graph_(graph) {}

  ViewResult Show() {
    if (graph_) {
      BuildGraph();
    } else {
      BuildScope();
    }
    root_->ResetTotals();
    std::set<std::string> visits;
    std::vector<ShowNode*> roots = Account(root_->children, visits);
    for (ShowNode* n : roots) root_->AggregateTotals(*n);
    if (!options_.start_name_regexes.MatchesAll()) {
      visits.clear();
      roots = SearchRoot(roots, visits);
    }
    root_->show_children = roots;
    visits.clear();
    ShowNode* root = Print({root_}, 1, 0, visits)[0];

    ViewResult result;
    result.view = graph_ ? "graph" : "scope";
    result.known = model_.known;
    result.text = TreeLegend(options_) + root->formatted;
    AppendText(root->show_children, result.text);
    result.graph = root->proto;
    result.graph.clear_children();
    result.float_ops_known.emplace_back(root->flops_known.SelfKnown(), root->flops_known.TotalKnown());
    CopyShownTree(*root, result.graph, result.float_ops_known);
    return result;
  }

 private:
  ShowNode* NewNode(const GraphNode* node, const std::string& name) {
    auto owned = std::make_unique<ShowNode>();
    owned->node = node;
    owned->name = name;
    if (node == nullptr) owned->synthetic_types = {graph_ ? kTFGraphParent : kTFScopeParent};
    owned->ReInit(model_, -1);
    ShowNode* raw = owned.get();
    storage_.push_back(std::move(owned));
    return raw;
  }

  // Every name prefix ("a/b" of "a/b/c") becomes a node; a prefix that is no
  // graph node is a synthetic parent with no figures of its own.
  void BuildScope() {
    std::map<std::string, ShowNode*> by_name;
    for (const GraphNode& node : model_.nodes) by_name[node.name] = NewNode(&node, node.name);
    for (const GraphNode& node : model_.nodes) {
      std::string name = node.name;
      for (size_t slash = name.rfind('/'); slash != std::string::npos; slash = name.rfind('/')) {
        name.resize(slash);
        if (by_name.count(name) == 0) by_name[name] = NewNode(nullptr, name);
      }
    }
    root_ = NewNode(nullptr, kTFProfRoot);
    for (auto& [name, node] : by_name) {
      size_t slash = name.rfind('/');
      if (slash == std::string::npos) {
        root_->children.push_back(node);
      } else {
        by_name.at(name.substr(0, slash))->children.push_back(node);
      }
    }
  }

  // A node's children are its inputs; the roots are the nodes no node reads.
  void BuildGraph() {
    std::map<std::string, ShowNode*> by_name;
    for (const GraphNode& node : model_.nodes) by_name[node.name] = NewNode(&node, node.name);
    std::set<std::string> read;
    for (auto& [name, show] : by_name) {
      for (const auto& [slot, input] : show->node->inputs) {
        read.insert(input);
        auto it = by_name.find(input);
        if (it != by_name.end()) show->children.push_back(it->second);
      }
    }
    root_ = NewNode(nullptr, kTFProfRoot);
    for (auto& [name, show] : by_name) {
      if (read.count(name) == 0) root_->children.push_back(show);
    }
  }

  // Post-order: a node survives if it is accounted or (scope view) has a
  // surviving descendant; in the graph view an unaccounted node hands its
  // surviving children to its parent. A node reached twice (graph) counts once.
  std::vector<ShowNode*> Account(const std::vector<ShowNode*>& nodes, std::set<std::string>& visits) {
    std::vector<ShowNode*> kept;
    for (ShowNode* node : nodes) {
      if (graph_ && !visits.insert(node->name).second) continue;
      if (!graph_) node->ResetTotals();
      std::vector<ShowNode*> kept_children = Account(node->children, visits);
      node->ReInit(model_, options_.step);
      node->account = IsAccounted(node->op_types(), options_);
      if (node->account || (!graph_ && !kept_children.empty())) {
        node->show_children.clear();
        node->ResetTotals();
        node->AddSelfToTotals();
        for (ShowNode* c : kept_children) {
          node->AggregateTotals(*c);
          node->show_children.push_back(c);
        }
        kept.push_back(node);
      } else if (graph_) {
        kept.insert(kept.end(), kept_children.begin(), kept_children.end());
      }
    }
    return kept;
  }

  // The first matches of start_name_regexes, depth first, not below a match.
  std::vector<ShowNode*> SearchRoot(const std::vector<ShowNode*>& nodes, std::set<std::string>& visits) {
    std::vector<ShowNode*> found;
    for (ShowNode* node : nodes) {
      if (graph_ && !visits.insert(node->name).second) continue;
      if (options_.start_name_regexes.Matches(node->name)) {
        found.push_back(node);
        continue;
      }
      std::vector<ShowNode*> below = SearchRoot(node->show_children, visits);
      found.insert(found.end(), below.begin(), below.end());
    }
    return found;
  }

  // Filters and formats; a hidden node's shown descendants move up to its
  // nearest shown ancestor. Returns the shown nodes of this level.
  std::vector<ShowNode*> Print(const std::vector<ShowNode*>& nodes, int64_t depth, size_t last_indent,
                               std::set<std::string>& visits) {
    std::vector<ShowNode*> shown;
    for (ShowNode* node : nodes) {
      if (graph_ && !visits.insert(node->name).second) continue;
      const bool show = ShouldShowTreeNode(*node, options_, depth);
      std::vector<ShowNode*> shown_children;
      if (!options_.trim_name_regexes.Matches(node->name) && depth <= options_.max_depth) {
        shown_children = Print(node->show_children, depth + 1, last_indent + (show ? 2 : 0), visits);
      }
      if (!show) {
        shown.insert(shown.end(), shown_children.begin(), shown_children.end());
        continue;
      }
      node->show_children.clear();
      if (options_.account_displayed_op_only) {
        node->ResetTotals();
        node->AddSelfToTotals();
      }
      SortShowNodes(shown_children, options_);
      for (ShowNode* c : shown_children) {
        node->show_children.push_back(c);
        if (options_.account_displayed_op_only) node->AggregateTotals(*c);
      }
      node->formatted = std::string(last_indent, ' ') + FormatTreeNode(*node, model_, options_) + "\n";
      shown.push_back(node);
    }
    return shown;
  }

  void AppendText(const std::vector<ShowNode*>& nodes, std::string& out) {
    for (const ShowNode* node : nodes) {
      out += node->formatted;
      AppendText(node->show_children, out);
    }
  }

  const Model& model_;
  const Options& options_;
  const bool graph_;
  std::vector<std::unique_ptr<ShowNode>> storage_;
  ShowNode* root_ = nullptr;
};

}  // namespace

StatusOr<ViewResult> ShowTreeView(const Model& model, const std::string& view, const Options& options) {
  const bool graph = view == "graph";
  if (graph) {
    bool any_input = false;
    for (const GraphNode& node : model.nodes) any_input = any_input || !node.inputs.empty();
    if (!any_input) {
      return InvalidArgument("the graph view needs the graph's inputs, which this " + model.source_kind +
                             " profile does not have; use the scope, op or code view");
    }
  }
  TreeView tree(model, options, graph);
  return tree.Show();
}

StatusOr<ViewResult> ShowView(const Model& model, const std::string& view, const Options& options) {
  if (options.step >= 0 && std::find(model.steps.begin(), model.steps.end(), options.step) == model.steps.end()) {
    std::string have;
    for (int64_t s : model.steps) have += (have.empty() ? "" : ", ") + std::to_string(s);
    return InvalidArgument("-step " + std::to_string(options.step) + " is not in the profile (its steps: " +
                           (have.empty() ? "none" : have) + ")");
  }
  if (view == "scope" || view == "graph") return ShowTreeView(model, view, options);
  if (view == "op") return ShowOpView(model, options);
  if (view == "code") return ShowCodeView(model, options);
  return InvalidArgument("unknown view '" + view + "'; the views are scope, graph, code and op");
}

}  // namespace tbprof::tfprof
