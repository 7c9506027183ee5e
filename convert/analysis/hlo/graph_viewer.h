// graph_viewer: the HLO graph around one node of a program. The node is an
// instruction (its neighbourhood: operands and users up to `graph_width` hops
// inside its computation) or a computation (all of its instructions). Fusions
// in the graph carry their fused computation unless `merge_fusion` asks to
// keep them as single nodes. Written as Graphviz DOT (what xprof renders
// with `type=graph&format=dot`) or as the JSON of nodes and edges our UI lays out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/base/status.h"

namespace tbprof {

struct GraphViewerOptions {
  std::string node_name;
  int graph_width = 3;         // hops from the centre
  bool show_metadata = false;  // op name and source in the labels
  bool merge_fusion = false;   // fusions as single nodes, without their fused computation
};

struct HloGraphNode {
  std::string name;
  std::string opcode;
  std::string shape;
  std::string category;        // HloOpCategory of the opcode
  std::string fusion_kind;
  std::string parent;          // the fusion whose fused computation holds this node; empty at top level
  std::string op_name;         // framework op (OpMetadata)
  std::string source;          // "file:line", empty when unknown
  int hops = 0;                // from the centre; fused nodes: their fusion's
  bool center = false;
  int hidden_operands = 0;     // neighbours beyond the width, not drawn
  int hidden_users = 0;
  int parameter_number = -1;   // parameters: their number (where a fusion's operand enters its cluster)
  bool fused_root = false;     // the root of a fused computation (where the fusion's value leaves)
};

struct HloGraphEdge {
  std::string from;
  std::string to;
  int operand = 0;             // operand index at `to`
};

struct HloGraph {
  std::string module_name;
  uint64_t program_id = 0;     // tells apart programs that share a module name
  std::string computation;     // the computation drawn
  std::string center;          // the instruction (or computation) asked for
  std::vector<HloGraphNode> nodes;
  std::vector<HloGraphEdge> edges;
};

// Category of an opcode, used for node colours (the groups of XLA's graph
// dumper): "async", "collective", "contraction", "control", "fusion",
// "data_movement", "parameter", "reduction", "broadcast", "constant", "elementwise".
std::string_view HloOpCategory(std::string_view opcode);

StatusOr<HloGraph> BuildHloGraph(const HloProgram& program, const GraphViewerOptions& options);
std::string HloGraphToDot(const HloGraph& graph, bool show_metadata);
std::string HloGraphToJson(const HloGraph& graph);
// The module as text, one instruction per line (xprof's short_txt / long_txt;
// long adds each instruction's op name and source).
std::string HloModuleText(const HloProgram& program, bool with_metadata);

}  // namespace tbprof
