// The scope and graph views: build the tree, account (post-order), pick the
// start nodes, then filter and print (tfprof's TFScope and TFGraph).
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string_view>

#include "convert/analysis/tfprof/tfprof_show.h"
#include "convert/analysis/tfprof/tfprof_show_node.h"
#include "convert/analysis/tfprof/tfprof_totals.h"
#include "convert/base/cancellation.h"
#include "convert/base/memory_grant.h"

namespace tbprof::tfprof {
namespace {

class TreeView {
 public:
  TreeView(const Model& model, const Options& options, bool graph)
      : model_(model), options_(options), graph_(graph), guard_(graph ? "graph" : "scope") {}

  StatusOr<ViewResult> Show() {
    if (graph_) {
      BuildGraph();
    } else {
      RETURN_IF_ERROR(BuildScope());
    }
    root_->ResetTotals();
    std::set<std::string_view> visits;
    std::vector<ShowNode*> roots = Account(root_->children, visits, 1);
    for (ShowNode* n : roots) root_->AggregateTotals(*n);
    if (!options_.start_name_regexes.MatchesAll()) {
      visits.clear();
      roots = SearchRoot(roots, visits, 1);
    }
    root_->show_children = roots;
    visits.clear();
    std::vector<ShowNode*> shown = Print({root_}, 1, 0, visits);
    RETURN_IF_ERROR(guard_.status());
    ShowNode* root = shown[0];

    ViewResult result;
    result.view = graph_ ? "graph" : "scope";
    result.known = model_.known;
    result.text = TreeLegend(options_) + root->formatted;
    AppendText(root->show_children, result.text);
    result.graph = root->proto;
    result.graph.clear_children();
    result.graph.set_name(std::string(root->name));
    result.float_ops_known.emplace_back(root->flops_known.SelfKnown(), root->flops_known.TotalKnown());
    RETURN_IF_ERROR(CopyShownTree(*root, result.graph, result.float_ops_known));
    return result;
  }

 private:
  ShowNode* NewNode(const GraphNode* node, std::string_view name) {
    auto owned = std::make_unique<ShowNode>();
    owned->node = node;
    owned->name = name;
    if (node == nullptr) owned->synthetic_types = {graph_ ? kTFGraphParent : kTFScopeParent};
    owned->ReInit(model_, -1);
    ShowNode* raw = owned.get();
    storage_.push_back(std::move(owned));
    guard_.Hold(sizeof(ShowNode));
    return raw;
  }

  // Every name prefix ("a/b" of "a/b/c") becomes a node; a prefix that is no
  // graph node is a synthetic parent with no figures of its own. Names are
  // views of the model's, so building is linear in the names' length.
  Status BuildScope() {
    std::map<std::string_view, ShowNode*> by_name;
    for (const GraphNode& node : model_.nodes) by_name[node.name] = NewNode(&node, node.name);
    for (const GraphNode& node : model_.nodes) {
      const std::string_view full = node.name;
      if (std::count(full.begin(), full.end(), '/') >= kMaxTreeDepth) {
        return TooDeepError("scope", "a node name of more than " + std::to_string(kMaxTreeDepth) + " scopes");
      }
      for (size_t slash = full.rfind('/'); slash != std::string_view::npos; slash = full.rfind('/', slash - 1)) {
        auto [it, added] = by_name.try_emplace(full.substr(0, slash), nullptr);
        if (!added) break;  // this prefix, and so every shorter one, is there already
        it->second = NewNode(nullptr, it->first);
        if (slash == 0) break;
      }
    }
    RETURN_IF_ERROR(guard_.status());
    root_ = NewNode(nullptr, kTFProfRoot);
    for (auto& [name, node] : by_name) {
      size_t slash = name.rfind('/');
      if (slash == std::string_view::npos) {
        root_->children.push_back(node);
      } else {
        by_name.at(name.substr(0, slash))->children.push_back(node);
      }
    }
    return Status::Ok();
  }

  // A node's children are its inputs; the roots are the nodes no node reads.
  void BuildGraph() {
    std::map<std::string_view, ShowNode*> by_name;
    for (const GraphNode& node : model_.nodes) by_name[node.name] = NewNode(&node, node.name);
    std::set<std::string_view> read;
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
  std::vector<ShowNode*> Account(const std::vector<ShowNode*>& nodes, std::set<std::string_view>& visits,
                                 int64_t depth) {
    std::vector<ShowNode*> kept;
    for (ShowNode* node : nodes) {
      if (!guard_.Visit(depth)) break;
      if (graph_ && !visits.insert(node->name).second) continue;
      if (!graph_) node->ResetTotals();
      std::vector<ShowNode*> kept_children = Account(node->children, visits, depth + 1);
      node->ReInit(model_, options_.step);
      node->account = IsAccounted(node->op_types(), options_);
      if (node->account || (!graph_ && !kept_children.empty())) {
        ShowWithKeptChildren(*node, kept_children);
        kept.push_back(node);
      } else if (graph_) {
        kept.insert(kept.end(), kept_children.begin(), kept_children.end());
      }
    }
    return kept;
  }

  // The first matches of start_name_regexes, depth first, not below a match.
  std::vector<ShowNode*> SearchRoot(const std::vector<ShowNode*>& nodes, std::set<std::string_view>& visits,
                                    int64_t depth) {
    std::vector<ShowNode*> found;
    for (ShowNode* node : nodes) {
      if (!guard_.Visit(depth)) break;
      if (graph_ && !visits.insert(node->name).second) continue;
      if (options_.start_name_regexes.Matches(node->name)) {
        found.push_back(node);
        continue;
      }
      std::vector<ShowNode*> below = SearchRoot(node->show_children, visits, depth + 1);
      found.insert(found.end(), below.begin(), below.end());
    }
    return found;
  }

  // Filters and formats; a hidden node's shown descendants move up to its
  // nearest shown ancestor. Returns the shown nodes of this level.
  std::vector<ShowNode*> Print(const std::vector<ShowNode*>& nodes, int64_t depth, size_t last_indent,
                               std::set<std::string_view>& visits) {
    std::vector<ShowNode*> shown;
    for (ShowNode* node : nodes) {
      if (!guard_.Visit(depth)) break;
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
      guard_.Hold(2 * node->formatted.size());  // the line, and its copy in the view's text
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
  TreeWalkGuard guard_;
  std::vector<std::unique_ptr<ShowNode>> storage_;
  ShowNode* root_ = nullptr;
};

// tfprof's command line accounts only Variable and VariableV2 by default,
// which a profile without variables (any eager or tf.function profile) turns
// into an empty table with no hint why.
std::string AccountingNote(const Model& model, const Options& options) {
  if (options.account_type_regexes.MatchesAll()) return "";
  for (const GraphNode& node : model.nodes) {
    if (IsAccounted(node.op_types, options)) return "";
  }
  std::string patterns;
  for (const std::string& p : options.account_type_regexes.patterns()) patterns += (patterns.empty() ? "" : ",") + p;
  return "no node matched -account_type_regexes " + patterns +
         "; add -account_type_regexes .* to account every op";
}

}  // namespace

bool TreeWalkGuard::Visit(int64_t depth) {
  if (cancelled_ || too_deep_ || !refused_.ok()) return false;
  cancelled_ = CancelRequested();
  too_deep_ = depth > kMaxTreeDepth;
  return !cancelled_ && !too_deep_;
}

void TreeWalkGuard::Hold(uint64_t bytes) {
  constexpr uint64_t kClaimStep = 1 << 20;
  unclaimed_ += bytes;
  if (unclaimed_ < kClaimStep || !refused_.ok()) return;
  refused_ = ClaimMemory(unclaimed_, "tfprof: the " + view_ + " view");
  unclaimed_ = 0;
}

Status TreeWalkGuard::status() const {
  if (!refused_.ok()) return refused_;
  if (cancelled_) return CancelledError("tfprof's " + view_ + " view");
  if (too_deep_) return TooDeepError(view_, "a tree deeper than " + std::to_string(kMaxTreeDepth) + " levels");
  return Status::Ok();
}

Status TooDeepError(const std::string& view, const std::string& what) {
  return DataLoss("tfprof: this profile's " + view + " view would have " + what +
                  "; tbprof shows trees of at most " + std::to_string(kMaxTreeDepth) +
                  " levels (a profile written by TensorFlow has far fewer)");
}

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
  StatusOr<ViewResult> result = InvalidArgument("unknown view '" + view + "'; the views are scope, graph, code and op");
  if (view == "scope" || view == "graph") {
    result = ShowTreeView(model, view, options);
  } else if (view == "op") {
    result = ShowOpView(model, options);
  } else if (view == "code") {
    result = ShowCodeView(model, options);
  }
  if (result.ok()) result->note = AccountingNote(model, options);
  return result;
}

}  // namespace tbprof::tfprof
