// A node of a displayed tfprof tree (tfprof's ShowNode): its own figures and
// the totals it accumulates, kept in a GraphNodeProto as tfprof keeps them.
// Shared by the scope, graph and code views.
#pragma once

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "convert/model/tfprof_model.h"
#include "convert/analysis/tfprof/tfprof_options.h"
#include "convert/base/status.h"
#include "proto/tfprof_output.pb.h"

namespace tbprof::tfprof {

struct ShowNode {
  const GraphNode* node = nullptr;  // null for a synthetic parent or the root
  // A view of the model's name (a scope is a prefix of its first node's), so
  // a name of n scopes costs n, not n^2; the proto's name is set only on the
  // copies the answer holds.
  std::string_view name;
  std::set<std::string> synthetic_types;  // op types of a synthetic node
  bool account = false;
  tensorflow::tfprof::GraphNodeProto proto;
  FloatOpsKnowledge flops_known;
  std::vector<ShowNode*> children;       // the structure
  std::vector<ShowNode*> show_children;  // what survives accounting and filters
  std::string formatted;

  const std::set<std::string>& op_types() const { return node ? node->op_types : synthetic_types; }
  // Sets the self figures of `step` (and clears nothing else).
  void ReInit(const Model& model, int64_t step);
  void ResetTotals();
  void AddSelfToTotals();
  void AggregateTotals(const ShowNode& child);
};

// Whether a node with these op types is accounted under the options.
bool IsAccounted(const std::set<std::string>& op_types, const Options& options);

// tfprof's ShouldShow for trees: totals against the min_* options (params,
// float_ops and occurrence by the node's own values), depth, show and hide.
bool ShouldShowTreeNode(const ShowNode& node, const Options& options, int64_t depth);

// Children order of order_by (totals, descending; name ascending), stable.
void SortShowNodes(std::vector<ShowNode*>& nodes, const Options& options);

// "node name | ..." for the scope, graph and code views.
std::string TreeLegend(const Options& options);
// "<name> (<fields>)" of one node of the scope, graph or code view.
std::string FormatTreeNode(const ShowNode& node, const Model& model, const Options& options);

// Copies the shown tree under `from` into `to` (children in display order),
// and appends each copied node's float-op knowledge to `known` in pre-order;
// the copies' names are claimed from the request's memory grant.
Status CopyShownTree(const ShowNode& from, tensorflow::tfprof::GraphNodeProto& to,
                     std::vector<std::pair<bool, bool>>& known);

}  // namespace tbprof::tfprof
