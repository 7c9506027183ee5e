// A node that gathers several graph nodes (tfprof's TFMultiGraphNode and
// ShowMultiNode): an op type in the op view, a source line in the code view.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "convert/model/tfprof_model.h"
#include "convert/analysis/tfprof/tfprof_options.h"
#include "proto/tfprof_output.pb.h"

namespace tbprof::tfprof {

struct MultiNode {
  std::string name;
  std::vector<const GraphNode*> members;  // every graph node it gathers
  std::vector<const GraphNode*> picked;   // those accounted by the last ReInit
  std::set<std::string> devices;
  std::set<std::string> op_types;
  bool account = false;
  tensorflow::tfprof::MultiGraphNodeProto proto;
  FloatOpsKnowledge flops_known;
  // Code view: the frame this node stands for (null for the root) and the
  // children in the structure and after filtering.
  const CodeFrame* frame = nullptr;
  std::vector<MultiNode*> children;
  std::vector<MultiNode*> show_children;
  std::string formatted;

  // Picks the members whose op types match the account regexes (all for
  // ".*" alone), sums their figures of `step` as this node's own, and says
  // whether any matched (".*" alone counts as a match even with no members).
  bool ReInit(const Model& model, int64_t step, const RegexList& account);
  void ResetTotals();
  void AddSelfToTotals();
  void AggregateTotals(const MultiNode& other);
};

// tfprof's ShouldShow for multi-nodes: every min_* against totals (no
// min_occurrence), depth, show and hide.
bool ShouldShowMultiNode(const MultiNode& node, const Options& options, int64_t depth);
// order_by on totals, descending; name ascending; occurrence = graph nodes.
void SortMultiNodes(std::vector<MultiNode*>& nodes, const Options& options);
// "node name | ..." of the op and code views.
std::string MultiLegend(const Options& options);

template <typename Container>
std::string JoinNames(const Container& items, const std::string& sep) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += sep;
    out += item;
    first = false;
  }
  return out;
}

}  // namespace tbprof::tfprof
