// tfprof's four views over the node model: scope and graph (trees of graph
// nodes, GraphNodeProto), op and code (MultiGraphNodeProto), with tfprof's
// accounting and filtering (internal/tfprof_scope.cc, tfprof_graph.cc,
// tfprof_op.cc, tfprof_code.cc) and its text output.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "convert/analysis/tfprof/tfprof_model.h"
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
};

// Runs `view` ("scope", "graph", "op", "code") with `options`. Errors: an
// unknown view, a step the profile does not have, a graph view of a profile
// without inputs, a code view of one without code traces.
StatusOr<ViewResult> ShowView(const Model& model, const std::string& view, const Options& options);

// The tree views and the list views, called by ShowView.
StatusOr<ViewResult> ShowTreeView(const Model& model, const std::string& view, const Options& options);
StatusOr<ViewResult> ShowOpView(const Model& model, const Options& options);
StatusOr<ViewResult> ShowCodeView(const Model& model, const Options& options);

}  // namespace tbprof::tfprof
