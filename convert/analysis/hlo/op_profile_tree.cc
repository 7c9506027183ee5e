#include "convert/analysis/hlo/op_profile_tree.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>
#include <vector>

#include "convert/analysis/hlo_program/hlo_cost_model.h"
#include "convert/base/json.h"
#include "convert/base/math_util.h"

namespace tbprof {

std::vector<std::string> ProvenancePath(std::string_view provenance) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (begin <= provenance.size()) {
    size_t slash = provenance.find('/', begin);
    if (slash == std::string_view::npos) slash = provenance.size();
    if (slash > begin) parts.emplace_back(provenance.substr(begin, slash - begin));
    begin = slash + 1;
  }
  if (!parts.empty()) parts.back() = parts.back().substr(0, parts.back().find(':'));
  return parts;
}

namespace op_profile {
namespace {

// HLO categories of fusions end in " fusion" ("loop fusion", "output fusion"…).
bool IsFusionCategory(std::string_view category) { return category.ends_with(" fusion"); }

std::string OpcodeLabel(const HloInstruction* inst) {
  if (inst == nullptr) return "";
  return inst->opcode() == "fusion" && !inst->fusion_kind().empty() ? "fusion:" + inst->fusion_kind()
                                                                      : inst->opcode();
}

// "file.py:123" as SourceInfo's file name and line; a text without a ':'
// followed by a number gives neither (empty name, line 0), only the stack.
void WriteSourceInfo(const std::string& top_line, const std::string& stack, std::string& out) {
  std::string file;
  int line = 0;
  size_t colon = top_line.find(':');
  if (colon != std::string::npos) {
    const char* begin = top_line.data() + colon + 1;
    const char* end = top_line.data() + top_line.size();
    auto [ptr, ec] = std::from_chars(begin, end, line);
    if (ec == std::errc() && ptr == end && begin != end) {
      file = top_line.substr(0, colon);
    } else {
      line = 0;
    }
  }
  AppendJsonStringMember(out, ",\"sourceInfo\":{\"fileName\":", file);
  out += ",\"lineNumber\":" + std::to_string(line);
  AppendJsonStringMember(out, ",\"stackFrame\":", stack);
  out += '}';
}

// The instructions of a fusion's computation (parameters and tuples carry no
// work), each nested fusion opened in turn.
void AddFusedInstructions(const HloProgram* program, const HloInstruction* fusion, uint64_t occurrences, Node& parent) {
  if (program == nullptr || fusion == nullptr || fusion->opcode() != "fusion") return;
  for (int64_t id : fusion->called_computation_ids()) {
    const HloComputation* c = program->FindComputation(id);
    if (c == nullptr) continue;
    for (const HloInstruction& i : c->instructions()) {
      if (i.opcode() == "parameter" || i.opcode() == "tuple") continue;
      Node* f = parent.Add(Node::kFused, i.name());
      f->program = program;
      f->fused = &i;
      const HloCost cost = HloInstructionCost(*program, i);
      f->fused_flops = cost.flops * static_cast<double>(occurrences);
      f->fused_flops_known = cost.flops_known;
      AddFusedInstructions(program, &i, occurrences, *f);
    }
  }
}

void AddOp(const HloOpDb& db, OpProfileGrouping grouping, const HloOpMetrics& m, Node& root) {
  root.totals.AddSelf(m);
  Node* parent = &root;
  if (!m.is_idle && grouping != OpProfileGrouping::kByCategory) {
    parent = root.Child(Node::kGroup, db.ProgramName(m.program_id));
    parent->totals.AddSelf(m);
  }
  if (m.time_ps > m.self_time_ps) return;  // the ops it contains stand for it
  if (m.is_idle) {
    Node* leaf = root.Add(Node::kOp, m.name);
    leaf->op = &m;
    leaf->totals.AddOp(m);
    return;
  }
  if (grouping == OpProfileGrouping::kByProvenance) {
    for (const std::string& part : ProvenancePath(m.provenance)) {
      parent = parent->Child(Node::kGroup, part);
      parent->totals.AddSelf(m);
    }
  }
  Node* category = parent->Child(Node::kCategory, m.category);
  category->totals.AddOp(m);
  Node* group = category->Child(Node::kDedup, m.deduplicated_name.empty() ? m.name : m.deduplicated_name);
  group->totals.AddOp(m);
  Node* leaf = group->Add(Node::kOp, m.name);
  leaf->op = &m;
  leaf->totals.AddOp(m);
  AddFusedInstructions(db.programs.Find(m.program_id), m.instruction, m.occurrences, *leaf);
}

void WriteMetrics(const Node& n, const DevicePeaks& peaks, uint64_t total_time_ps, std::string& out) {
  const Totals& t = n.totals;
  bool fused = n.kind == Node::kFused;
  double time_ns = static_cast<double>(t.time_ps) / 1e3;
  // An unknown figure is left out, as xprof's JSON leaves out a figure it
  // has no value for; writing 0 would claim the op did no work.
  out += "\"metrics\":{";
  // FLOP utilisation weighted by the node's share of the total time, capped
  // at 1 (`flops`) and not (`uncappedFlops`: a count past the peak shows
  // the FLOPs or the peak are wrong). Unknown without the FLOPs, the peak,
  // or time of the node's own (a fused instruction has none).
  const bool util_known = !fused && t.FlopsKnown() && peaks.peak_tflops > 0;
  double uncapped_util = 0;
  double time_fraction = SafeDivide(static_cast<double>(t.time_ps), static_cast<double>(total_time_ps));
  if (util_known) {
    uncapped_util = SafeDivide(SafeDivide(t.flops, time_ns), peaks.peak_tflops * 1e3);
    out += "\"flops\":";
    AppendJsonDouble(out, std::min(1.0, uncapped_util) * time_fraction);
    out += ',';
  }
  out += "\"bandwidthUtils\":[";
  bool bytes = !fused && t.BytesKnown();
  if (bytes && peaks.hbm_gbps > 0) {
    auto util = [&](double b, double peak_gbps) {
      return peak_gbps > 0 ? std::min(1.0, SafeDivide(GigaToGibi(SafeDivide(b, time_ns)), GigaToGibi(peak_gbps)))
                           : 0.0;
    };
    AppendJsonDouble(out, util(t.hbm, peaks.hbm_gbps));
    out += ',';
    AppendJsonDouble(out, util(t.onchip_rd, peaks.sram_rd_gbps));
    out += ',';
    AppendJsonDouble(out, util(t.onchip_wr, peaks.sram_wr_gbps));
  }
  out += "],\"rawTime\":";
  AppendJsonDouble(out, static_cast<double>(t.time_ps));
  const bool flops = fused ? n.fused_flops_known : t.FlopsKnown();
  if (flops) {
    out += ",\"rawFlops\":";
    AppendJsonDouble(out, fused ? n.fused_flops : t.model_flops);
  }
  // The bytes are the op's own figures: known without the device's peaks.
  out += ",\"rawBytesAccessedArray\":[";
  if (bytes) {
    AppendJsonDouble(out, t.hbm);
    out += ',';
    AppendJsonDouble(out, t.onchip_rd);
    out += ',';
    AppendJsonDouble(out, t.onchip_wr);
  }
  out += "],\"occurrences\":" + std::to_string(t.occurrences) + ",\"avgTimePs\":";
  AppendJsonDouble(out, SafeDivide(static_cast<double>(t.time_ps), static_cast<double>(t.occurrences)));
  if (flops) {
    out += ",\"bf16Flops\":";
    AppendJsonDouble(out, fused ? n.fused_flops : t.flops);
  }
  if (util_known) {
    out += ",\"uncappedFlops\":";
    AppendJsonDouble(out, uncapped_util * time_fraction);
  }
  out += "},";
}

struct XlaFields {
  std::string op, expression, provenance, category;
  uint64_t program_id = 0;
  // SourceInfo is written only where the op has some: absent means unknown.
  const std::string* source_info = nullptr;
  const std::string* source_stack = nullptr;
};

void WriteXla(const XlaFields& x, std::string& out) {
  AppendJsonStringMember(out, "\"xla\":{\"op\":", x.op);
  AppendJsonStringMember(out, ",\"expression\":", x.expression);
  AppendJsonStringMember(out, ",\"provenance\":", x.provenance);
  AppendJsonStringMember(out, ",\"category\":", x.category);
  out += ",\"computationPrimitiveSize\":0,\"fingerprint\":\"0\",\"programId\":\"";
  out += std::to_string(x.program_id) + "\"";
  if ((x.source_info && !x.source_info->empty()) || (x.source_stack && !x.source_stack->empty())) {
    WriteSourceInfo(x.source_info ? *x.source_info : "", x.source_stack ? *x.source_stack : "", out);
  }
  out += "},";
}

XlaFields OpFields(const HloOpMetrics& op) {
  return {OpcodeLabel(op.instruction), op.expression, op.provenance, op.category, op.program_id, &op.source_info,
          &op.source_stack};
}

}  // namespace

Node BuildTree(const HloOpDb& db, OpProfileGrouping grouping, bool exclude_idle) {
  Node root;
  root.kind = Node::kRoot;
  root.name = grouping == OpProfileGrouping::kByCategory     ? "by_category"
              : grouping == OpProfileGrouping::kByProvenance ? "by_provenance"
                                                             : "by_program";
  uint64_t total_time_ps = 0;
  for (const HloOpMetrics& m : db.ops) {
    if (m.is_idle && exclude_idle) continue;
    total_time_ps += m.self_time_ps;
    // Ops named "region…" are computations, not instructions: nothing to show.
    if (m.name.starts_with("region")) continue;
    if (!m.is_idle && m.occurrences == 0) continue;
    AddOp(db, grouping, m, root);
  }
  root.totals.time_ps = total_time_ps;
  return root;
}

void SortAndPrune(Node& n, int level, int k) {
  n.num_children = static_cast<int>(n.children.size());
  for (auto& c : n.children) SortAndPrune(*c, level - 1, k);
  // A fusion's instructions have no time of their own: they go by FLOPs.
  bool by_flops = !n.children.empty() && n.children.front()->kind == Node::kFused;
  std::stable_sort(n.children.begin(), n.children.end(), [&](const auto& a, const auto& b) {
    if (by_flops) return a->fused_flops > b->fused_flops;
    return a->totals.time_ps > b->totals.time_ps;
  });
  if (level <= 0 && static_cast<int>(n.children.size()) > k) n.children.resize(static_cast<size_t>(k));
}

// Writes `n`. A deduplication group of one op is written as that op; a
// larger one as "<first> and its duplicate(s)" with the details (source
// line included) of its longest op, except a fusion group's framework op:
// duplicated fusions come from different framework ops, so the first one's
// would mislabel the group.
void WriteTree(const Node& n, const DevicePeaks& peaks, uint64_t total_time_ps, std::string& out) {
  if (n.kind == Node::kDedup && n.children.size() == 1) return WriteTree(*n.children.front(), peaks, total_time_ps, out);
  out += "{\"name\":";
  bool group = n.kind == Node::kDedup && !n.children.empty();
  AppendJsonString(out, group ? n.children.front()->name + " and its duplicate(s)" : n.name);
  out += ',';
  WriteMetrics(n, peaks, total_time_ps, out);
  out += "\"children\":[";
  for (size_t i = 0; i < n.children.size(); ++i) {
    if (i) out += ',';
    WriteTree(*n.children[i], peaks, total_time_ps, out);
  }
  out += "],";
  if (n.kind == Node::kCategory) out += "\"category\":{},";
  if (n.kind == Node::kOp) {
    WriteXla(OpFields(*n.op), out);
  } else if (group) {
    XlaFields x = OpFields(*n.children.front()->op);
    if (IsFusionCategory(x.category)) x.provenance.clear();
    WriteXla(x, out);
  } else if (n.kind == Node::kFused) {
    WriteXla({OpcodeLabel(n.fused), InstructionExpression(*n.program, *n.fused), n.fused->metadata().op_name(),
              HloCategoryOf(*n.program, *n.fused), n.program->program_id()},
             out);
  }
  out += "\"numChildren\":" + std::to_string(n.num_children) + "}";
}

}  // namespace op_profile

}  // namespace tbprof
