#include "convert/analysis/hlo/graph_viewer.h"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "convert/base/json.h"

namespace tbprof {
namespace {

struct CategoryRule {
  std::string_view category;
  std::vector<std::string_view> opcodes;
};

const std::vector<CategoryRule>& CategoryRules() {
  static const std::vector<CategoryRule> rules = {
      {"async", {"async-start", "async-update", "async-done"}},
      {"collective",
       {"all-gather", "all-gather-start", "all-gather-done", "all-reduce", "reduce-scatter", "all-reduce-start",
        "all-reduce-done", "all-to-all", "ragged-all-to-all", "collective-broadcast", "collective-permute",
        "collective-permute-start", "collective-permute-done", "infeed", "outfeed", "partition-id", "recv",
        "recv-done", "send", "send-done", "replica-id"}},
      {"contraction", {"convolution", "dot", "ragged-dot", "fft", "triangular-solve", "cholesky"}},
      {"control", {"call", "conditional", "custom-call", "while"}},
      {"fusion", {"domain", "fusion", "map", "get-dimension-size", "set-dimension-size"}},
      {"data_movement",
       {"concatenate", "dynamic-slice", "reshape", "dynamic-reshape", "reverse", "transpose", "copy", "copy-start",
        "copy-done", "slice", "pad", "bitcast", "get-tuple-element", "tuple"}},
      {"parameter", {"parameter"}},
      {"reduction",
       {"batch-norm-grad", "batch-norm-inference", "batch-norm-training", "reduce", "reduce-window", "scatter",
        "select-and-scatter", "gather", "sort"}},
      {"broadcast", {"broadcast", "dynamic-update-slice", "iota"}},
      {"constant", {"constant"}},
  };
  return rules;
}

std::string SourceOf(const xla::OpMetadata& md) {
  if (md.source_file().empty()) return {};
  return md.source_file() + ":" + std::to_string(md.source_line());
}

HloGraphNode MakeNode(const HloInstruction& inst, int hops) {
  HloGraphNode n;
  n.name = inst.name();
  n.opcode = inst.opcode();
  n.shape = ShapeToString(inst.shape());
  n.category = HloOpCategory(inst.opcode());
  n.fusion_kind = inst.fusion_kind();
  n.op_name = inst.metadata().op_name();
  n.source = SourceOf(inst.metadata());
  n.hops = hops;
  if (inst.opcode() == "parameter") n.parameter_number = static_cast<int>(inst.parameter_number());
  return n;
}

// Users of every instruction of one computation, in instruction order.
std::unordered_map<const HloInstruction*, std::vector<const HloInstruction*>> UsersIn(const HloProgram& program,
                                                                                      const HloComputation& comp) {
  std::unordered_map<const HloInstruction*, std::vector<const HloInstruction*>> users;
  for (const HloInstruction& inst : comp.instructions()) {
    for (int i = 0; i < inst.operand_ids_size(); ++i) {
      if (const HloInstruction* op = program.Operand(inst, i)) {
        auto& u = users[op];
        if (u.empty() || u.back() != &inst) u.push_back(&inst);
      }
    }
  }
  return users;
}

void AddEdgesAmong(const HloProgram& program, const std::vector<const HloInstruction*>& members,
                   const std::unordered_set<const HloInstruction*>& included, HloGraph& g) {
  for (const HloInstruction* inst : members) {
    for (int i = 0; i < inst->operand_ids_size(); ++i) {
      const HloInstruction* op = program.Operand(*inst, i);
      if (op != nullptr && included.count(op)) g.edges.push_back({op->name(), inst->name(), i});
    }
  }
}

}  // namespace

std::string_view HloOpCategory(std::string_view opcode) {
  for (const CategoryRule& r : CategoryRules()) {
    if (std::find(r.opcodes.begin(), r.opcodes.end(), opcode) != r.opcodes.end()) return r.category;
  }
  return "elementwise";
}

StatusOr<HloGraph> BuildHloGraph(const HloProgram& program, const GraphViewerOptions& options) {
  if (options.node_name.empty()) return InvalidArgument("graph_viewer needs node_name (an HLO instruction or computation)");
  HloGraph g;
  g.module_name = program.name();
  g.program_id = program.program_id();
  g.center = options.node_name;
  std::vector<const HloInstruction*> top;  // included instructions of the drawn computation
  const HloInstruction* center = program.FindInstruction(options.node_name);
  const HloComputation* comp = center ? program.ComputationOf(*center) : program.FindComputationByName(options.node_name);
  if (comp == nullptr) {
    return NotFound("no HLO instruction or computation named '" + options.node_name + "' in module " + program.name());
  }
  g.computation = comp->name();
  std::unordered_map<const HloInstruction*, int> hops;
  if (center == nullptr) {
    for (const HloInstruction& inst : comp->instructions()) {
      hops[&inst] = 0;
      top.push_back(&inst);
    }
  } else {
    auto users = UsersIn(program, *comp);
    auto neighbours = [&](const HloInstruction* inst, auto visit) {
      for (int i = 0; i < inst->operand_ids_size(); ++i) {
        if (const HloInstruction* op = program.Operand(*inst, i)) visit(op, true);
      }
      auto it = users.find(inst);
      if (it != users.end()) {
        for (const HloInstruction* u : it->second) visit(u, false);
      }
    };
    int width = std::max(0, options.graph_width);
    std::deque<const HloInstruction*> queue = {center};
    hops[center] = 0;
    while (!queue.empty()) {
      const HloInstruction* inst = queue.front();
      queue.pop_front();
      top.push_back(inst);
      int d = hops[inst];
      if (d == width) continue;
      neighbours(inst, [&](const HloInstruction* n, bool) {
        if (hops.emplace(n, d + 1).second) queue.push_back(n);
      });
    }
    // Keep the computation's order: operands before users, as XLA lists them.
    std::unordered_map<const HloInstruction*, int> order;
    for (int i = 0; i < comp->instructions_size(); ++i) order[&comp->instructions(i)] = i;
    std::sort(top.begin(), top.end(), [&](auto* a, auto* b) { return order[a] < order[b]; });
    for (const HloInstruction* inst : top) {
      HloGraphNode n = MakeNode(*inst, hops[inst]);
      n.center = inst == center;
      std::unordered_set<const HloInstruction*> hidden_ops, hidden_users;
      neighbours(inst, [&](const HloInstruction* other, bool is_operand) {
        if (!hops.count(other)) (is_operand ? hidden_ops : hidden_users).insert(other);
      });
      n.hidden_operands = static_cast<int>(hidden_ops.size());
      n.hidden_users = static_cast<int>(hidden_users.size());
      g.nodes.push_back(std::move(n));
    }
  }
  if (center == nullptr) {
    for (const HloInstruction* inst : top) g.nodes.push_back(MakeNode(*inst, 0));
  }
  std::unordered_set<const HloInstruction*> included(top.begin(), top.end());
  AddEdgesAmong(program, top, included, g);

  if (!options.merge_fusion) {
    for (const HloInstruction* inst : top) {
      if (inst->opcode() != "fusion" || inst->called_computation_ids().empty()) continue;
      const HloComputation* fused = program.FindComputation(inst->called_computation_ids(0));
      if (fused == nullptr) continue;
      const HloInstruction* root = program.Root(*fused);
      std::vector<const HloInstruction*> members;
      for (const HloInstruction& f : fused->instructions()) {
        members.push_back(&f);
        HloGraphNode n = MakeNode(f, hops[inst]);
        n.parent = inst->name();
        n.fused_root = &f == root;
        g.nodes.push_back(std::move(n));
      }
      std::unordered_set<const HloInstruction*> inside(members.begin(), members.end());
      AddEdgesAmong(program, members, inside, g);
    }
  }
  return g;
}

namespace {

std::string_view FillColor(std::string_view category) {
  if (category == "async") return "#bbdefb";
  if (category == "collective") return "#d7ccc8";
  if (category == "contraction") return "#5c6bc0";
  if (category == "control") return "#66bb6a";
  if (category == "fusion") return "#e0e0e0";
  if (category == "data_movement") return "#c8e6c9";
  if (category == "parameter") return "#ffcc80";
  if (category == "reduction") return "#ce93d8";
  if (category == "broadcast") return "#fff59d";
  if (category == "constant") return "#eeeeee";
  return "#ffffff";
}

// DOT's quoted ID: the characters a JSON string escapes are the ones DOT needs escaped too.
std::string DotId(std::string_view s) { return JsonString(s); }

void AppendDotNode(std::string& out, const HloGraphNode& n, bool show_metadata, std::string_view indent) {
  std::string label = n.name + "\n" + n.opcode + (n.fusion_kind.empty() ? "" : " " + n.fusion_kind) + "\n" + n.shape;
  if (show_metadata && !n.op_name.empty()) label += "\n" + n.op_name;
  if (show_metadata && !n.source.empty()) label += "\n" + n.source;
  if (n.hidden_operands > 0) label += "\n(" + std::to_string(n.hidden_operands) + " more operands)";
  if (n.hidden_users > 0) label += "\n(" + std::to_string(n.hidden_users) + " more users)";
  out += indent;
  out += DotId(n.name) + " [label=" + DotId(label) + ", fillcolor=\"" + std::string(FillColor(n.category)) + "\"";
  if (n.center) out += ", penwidth=3, color=\"#d32f2f\"";
  out += "];\n";
}

}  // namespace

std::string HloGraphToDot(const HloGraph& g, bool show_metadata) {
  std::string out = "digraph " + DotId(g.module_name) + " {\n";
  out += "  rankdir=TB;\n  compound=true;\n";
  out += "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n";
  // An expanded fusion is drawn as its cluster: edges into it go to its
  // parameters, edges out of it leave from its root.
  std::unordered_map<std::string_view, std::vector<const HloGraphNode*>> fused;
  for (const HloGraphNode& n : g.nodes) {
    if (!n.parent.empty()) fused[n.parent].push_back(&n);
  }
  for (const HloGraphNode& n : g.nodes) {
    if (!n.parent.empty()) continue;
    auto it = fused.find(n.name);
    if (it == fused.end()) {
      AppendDotNode(out, n, show_metadata, "  ");
      continue;
    }
    out += "  subgraph " + DotId("cluster_" + n.name) + " {\n";
    out += "    label=" + DotId(n.name + " (" + n.fusion_kind + ")") + ";\n    style=\"rounded,filled\";\n";
    out += std::string("    fillcolor=\"") + (n.center ? "#ffebee" : "#f5f5f5") + "\";\n";
    for (const HloGraphNode* f : it->second) AppendDotNode(out, *f, show_metadata, "    ");
    out += "  }\n";
  }
  auto endpoint = [&](const std::string& name, bool as_target, int operand) -> std::string {
    auto it = fused.find(name);
    if (it == fused.end()) return name;
    for (const HloGraphNode* f : it->second) {
      if (as_target ? f->parameter_number == operand : f->fused_root) return f->name;
    }
    return name;
  };
  std::unordered_set<std::string_view> is_fused_member;
  for (const HloGraphNode& n : g.nodes) {
    if (!n.parent.empty()) is_fused_member.insert(n.name);
  }
  for (const HloGraphEdge& e : g.edges) {
    bool internal = is_fused_member.count(e.from) > 0;
    std::string from = internal ? e.from : endpoint(e.from, false, 0);
    std::string to = internal ? e.to : endpoint(e.to, true, e.operand);
    out += "  " + DotId(from) + " -> " + DotId(to) + ";\n";
  }
  out += "}\n";
  return out;
}

std::string HloGraphToJson(const HloGraph& g) {
  std::string out = "{\"moduleName\":";
  AppendJsonString(out, g.module_name);
  AppendJsonStringMember(out, ",\"programId\":", std::to_string(g.program_id));
  AppendJsonStringMember(out, ",\"computation\":", g.computation);
  AppendJsonStringMember(out, ",\"center\":", g.center);
  out += ",\"nodes\":[";
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const HloGraphNode& n = g.nodes[i];
    if (i) out += ',';
    AppendJsonStringMember(out, "{\"name\":", n.name);
    AppendJsonStringMember(out, ",\"opcode\":", n.opcode);
    AppendJsonStringMember(out, ",\"shape\":", n.shape);
    AppendJsonStringMember(out, ",\"category\":", n.category);
    AppendJsonStringMember(out, ",\"fusionKind\":", n.fusion_kind);
    AppendJsonStringMember(out, ",\"parent\":", n.parent);
    AppendJsonStringMember(out, ",\"opName\":", n.op_name);
    AppendJsonStringMember(out, ",\"source\":", n.source);
    out += ",\"hops\":" + std::to_string(n.hops);
    out += ",\"center\":" + std::string(n.center ? "true" : "false");
    out += ",\"hiddenOperands\":" + std::to_string(n.hidden_operands);
    out += ",\"hiddenUsers\":" + std::to_string(n.hidden_users);
    out += ",\"parameterNumber\":" + std::to_string(n.parameter_number);
    out += ",\"fusedRoot\":" + std::string(n.fused_root ? "true" : "false") + "}";
  }
  out += "],\"edges\":[";
  for (size_t i = 0; i < g.edges.size(); ++i) {
    if (i) out += ',';
    AppendJsonStringMember(out, "{\"from\":", g.edges[i].from);
    AppendJsonStringMember(out, ",\"to\":", g.edges[i].to);
    out += ",\"operand\":" + std::to_string(g.edges[i].operand) + "}";
  }
  out += "]}";
  return out;
}

std::string HloModuleText(const HloProgram& program, bool with_metadata) {
  std::string out = "HloModule " + program.module().name() + "\n";
  for (const HloComputation& comp : program.module().computations()) {
    bool entry = comp.id() == program.module().entry_computation_id();
    out += "\n" + std::string(entry ? "ENTRY " : "") + "%" + comp.name() + " {\n";
    const HloInstruction* root = program.Root(comp);
    for (const HloInstruction& inst : comp.instructions()) {
      out += &inst == root ? "  ROOT " : "  ";
      out += InstructionExpression(program, inst);
      const auto& md = inst.metadata();
      if (with_metadata && (!md.op_name().empty() || !md.source_file().empty())) {
        out += ", metadata={op_name=" + JsonString(md.op_name());
        if (!md.source_file().empty()) {
          out += " source_file=" + JsonString(md.source_file()) + " source_line=" + std::to_string(md.source_line());
        }
        out += '}';
      }
      out += '\n';
    }
    out += "}\n";
  }
  return out;
}

}  // namespace tbprof
