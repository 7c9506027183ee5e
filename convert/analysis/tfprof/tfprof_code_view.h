// The code view's tree of source lines, shared by the view and its pprof
// output.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "convert/analysis/tfprof/tfprof_multi_node.h"
#include "convert/analysis/tfprof/tfprof_show.h"

namespace tbprof::tfprof {

struct CodeTree {
  explicit CodeTree(const Model& model);
  MultiNode root;
  int64_t unattached_gradients = 0;  // gradient nodes whose forward node has no stack
  // The deepest call stack when one is deeper than kMaxTreeDepth (the tree
  // then stops there, and the view refuses it); 0 otherwise.
  size_t too_deep_stack = 0;

 private:
  MultiNode* Child(MultiNode* parent, const CodeFrame& frame, const std::string& suffix);
  std::vector<std::unique_ptr<MultiNode>> storage_;
  std::map<std::pair<MultiNode*, std::string>, MultiNode*> child_index_;
};

// The code view over `tree`, which keeps what the view decided: after it,
// each node's `picked` members (those accounted) and the shown nodes'
// `show_children` (the pprof output walks them).
StatusOr<ViewResult> ShowCodeViewOf(const Model& model, const Options& options, CodeTree& tree);

}  // namespace tbprof::tfprof
