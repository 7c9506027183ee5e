// tfprof's four views over the node model: scope and graph (trees of graph
// nodes, GraphNodeProto), op and code (MultiGraphNodeProto), with tfprof's
// accounting and filtering (internal/tfprof_scope.cc, tfprof_graph.cc,
// tfprof_op.cc, tfprof_code.cc) and its text output.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "convert/model/tfprof_model.h"
#include "convert/analysis/tfprof/tfprof_options.h"
#include "convert/base/status.h"
#include "proto/tfprof_output.pb.h"

namespace tbprof::tfprof {

struct ViewResult {
  std::string view;
  // The table tfprof prints after "Profile:\n": the legend line, then a line
  // (op view: a row, with its input-shape block) per shown node.
  std::string text;
  bool multi = false;                                  // op and code views
  tensorflow::tfprof::GraphNodeProto graph;            // scope, graph
  tensorflow::tfprof::MultiGraphNodeProto multi_graph; // op, code (children form a chain in op)
  KnownFigures known;
  // Per displayed node in pre-order (the root first, then each node before
  // its children; the op view's rows in order): whether its own and its
  // total float ops are known.
  std::vector<std::pair<bool, bool>> float_ops_known;
  // Set when the options leave the table empty for a reason the user can
  // change (tfprof's command-line defaults account only variables): what to
  // say instead of the empty table.
  std::string note;
};

// The views walk their trees recursively, one stack frame a level, so a tree
// deeper than this is refused (422) instead of overflowing a worker's stack:
// tfprof's own trees are a scope per '/' of a name, a frame per line of a
// Python stack (whose depth Python bounds at 1000) and a level per input of a
// graph's longest chain.
inline constexpr int64_t kMaxTreeDepth = 10000;

// What every recursive walk of a view asks before it visits a node at
// `depth` (so a request's matching stops at its next node): not once the
// request is cancelled, the tree is too deep or the memory the
// view holds was refused (each walk then unwinds with what it has, and the
// view returns status()).
class TreeWalkGuard {
 public:
  explicit TreeWalkGuard(std::string view) : view_(std::move(view)) {}
  bool Visit(int64_t depth);
  // Notes `bytes` more held by the view (nodes, their text), claimed from the
  // request's memory grant a MiB at a time.
  void Hold(uint64_t bytes);
  Status status() const;

 private:
  std::string view_;
  bool cancelled_ = false;
  bool too_deep_ = false;
  Status refused_;
  uint64_t unclaimed_ = 0;
};

// The error for a profile whose `view` tree would hold `what` (too deep).
Status TooDeepError(const std::string& view, const std::string& what);

// Runs `view` ("scope", "graph", "op", "code") with `options`. Errors: an
// unknown view, a step the profile does not have, a graph view of a profile
// without inputs, a code view of one without code traces.
StatusOr<ViewResult> ShowView(const Model& model, const std::string& view, const Options& options);

// The tree views and the list views, called by ShowView.
StatusOr<ViewResult> ShowTreeView(const Model& model, const std::string& view, const Options& options);
StatusOr<ViewResult> ShowOpView(const Model& model, const Options& options);
StatusOr<ViewResult> ShowCodeView(const Model& model, const Options& options);

}  // namespace tbprof::tfprof
