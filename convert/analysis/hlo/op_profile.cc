#include "convert/analysis/hlo/op_profile.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>
#include <vector>

#include "convert/analysis/common/hlo_cost_model.h"
#include "convert/base/json.h"
#include "convert/base/math_util.h"

namespace tbprof {
namespace {

// HLO categories of fusions end in " fusion" ("loop fusion", "output fusion"…).
bool IsFusionCategory(std::string_view category) { return category.ends_with(" fusion"); }

struct Totals {
  uint64_t time_ps = 0;
  uint64_t occurrences = 0;
  double flops = 0, model_flops = 0, hbm = 0, onchip_rd = 0, onchip_wr = 0;
  // A node's figure is a total only when every op under it has one: a sum
  // that left out an op the cost model could not count is a lower bound, and
  // is written as unknown. IDLE has no figures to show, but adds nothing to
  // the nodes above it either.
  bool all_flops_known = true, all_bytes_known = true;
  bool has_idle = false, has_work = false;

  bool FlopsKnown() const { return all_flops_known && !IdleOnly(); }
  bool BytesKnown() const { return all_bytes_known && !IdleOnly(); }
  bool IdleOnly() const { return has_idle && !has_work; }

  void AddCosts(const HloOpMetrics& m) {
    flops += m.flops, model_flops += m.model_flops;
    hbm += m.has_breakdown ? m.hbm_bytes : m.bytes_accessed;
    onchip_rd += m.onchip_rd, onchip_wr += m.onchip_wr;
    has_idle |= m.is_idle, has_work |= !m.is_idle;
    if (!m.is_idle) all_flops_known &= m.flops_known, all_bytes_known &= m.bytes_known;
  }
  // An op placed under this node: all its time, executions and costs.
  void AddOp(const HloOpMetrics& m) {
    time_ps += m.time_ps;
    occurrences += m.occurrences;
    AddCosts(m);
  }
  // An op somewhere below a grouping node (root, program, framework-op path):
  // its self time, so that nested ops are not counted twice, and its costs
  // only when it contains no other op (a container's costs include those of
  // the ops inside, which come on their own). A grouping node does not run,
  // so it has no executions.
  void AddSelf(const HloOpMetrics& m) {
    time_ps += m.self_time_ps;
    if (m.time_ps == m.self_time_ps) AddCosts(m);
  }
};

struct Node {
  enum Kind { kRoot, kGroup, kCategory, kDedup, kOp, kFused } kind = kRoot;
  std::string name;
  Totals totals;
  const HloOpMetrics* op = nullptr;  // kOp
  // kFused: the instruction inside a fusion's computation, and its FLOPs over
  // all executions of the fusion.
  const HloProgram* program = nullptr;
  const HloInstruction* fused = nullptr;
  double fused_flops = 0;
  bool fused_flops_known = true;
  int num_children = 0;
  std::vector<std::unique_ptr<Node>> children;
  // Grouping children by kind and name, so a framework-op path part and a
  // category of the same name stay apart.
  std::map<std::pair<Kind, std::string>, Node*> index;

  Node* Add(Kind k, const std::string& child_name) {
    children.push_back(std::make_unique<Node>());
    Node* n = children.back().get();
    n->kind = k;
    n->name = child_name;
    return n;
  }
  Node* Child(Kind k, const std::string& child_name) {
    Node*& n = index[{k, child_name}];
    if (n == nullptr) n = Add(k, child_name);
    return n;
  }
};

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

class TreeBuilder {
 public:
  TreeBuilder(const HloOpDb& db, OpProfileGrouping grouping, bool exclude_idle, int k)
      : db_(db), grouping_(grouping), exclude_idle_(exclude_idle), k_(k) {
    root_.kind = Node::kRoot;
    root_.name = grouping == OpProfileGrouping::kByCategory     ? "by_category"
                 : grouping == OpProfileGrouping::kByProvenance ? "by_provenance"
                                                                : "by_program";
  }

  std::string Json() {
    total_time_ps_ = 0;
    for (const HloOpMetrics& m : db_.ops) {
      if (m.is_idle && exclude_idle_) continue;
      total_time_ps_ += m.self_time_ps;
      // Ops named "region…" are computations, not instructions: nothing to show.
      if (m.name.starts_with("region")) continue;
      if (!m.is_idle && m.occurrences == 0) continue;
      AddOp(m);
    }
    root_.totals.time_ps = total_time_ps_;
    // Only the levels below the grouping ones are cut; a framework-op path has
    // no fixed depth, so that tree is not cut at all.
    int grouping_levels = grouping_ == OpProfileGrouping::kByCategory  ? 1
                          : grouping_ == OpProfileGrouping::kByProgram ? 2
                                                                       : 100;
    SortAndPrune(root_, grouping_levels);
    std::string out;
    Write(root_, out);
    return out;
  }

 private:
  void AddOp(const HloOpMetrics& m) {
    root_.totals.AddSelf(m);
    Node* parent = &root_;
    if (!m.is_idle && grouping_ != OpProfileGrouping::kByCategory) {
      parent = root_.Child(Node::kGroup, db_.ProgramName(m.program_id));
      parent->totals.AddSelf(m);
    }
    if (m.time_ps > m.self_time_ps) return;  // the ops it contains stand for it
    if (m.is_idle) {
      Node* leaf = root_.Add(Node::kOp, m.name);
      leaf->op = &m;
      leaf->totals.AddOp(m);
      return;
    }
    if (grouping_ == OpProfileGrouping::kByProvenance) {
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
    AddFused(db_.programs.Find(m.program_id), m.instruction, m.occurrences, *leaf);
  }

  // The instructions of a fusion's computation (parameters and tuples carry no
  // work), each nested fusion opened in turn.
  void AddFused(const HloProgram* program, const HloInstruction* fusion, uint64_t occurrences, Node& parent) {
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
        AddFused(program, &i, occurrences, *f);
      }
    }
  }

  void SortAndPrune(Node& n, int level) {
    n.num_children = static_cast<int>(n.children.size());
    for (auto& c : n.children) SortAndPrune(*c, level - 1);
    // A fusion's instructions have no time of their own: they go by FLOPs.
    bool by_flops = !n.children.empty() && n.children.front()->kind == Node::kFused;
    std::stable_sort(n.children.begin(), n.children.end(), [&](const auto& a, const auto& b) {
      if (by_flops) return a->fused_flops > b->fused_flops;
      return a->totals.time_ps > b->totals.time_ps;
    });
    if (level <= 0 && static_cast<int>(n.children.size()) > k_) n.children.resize(static_cast<size_t>(k_));
  }

  void WriteMetrics(const Node& n, std::string& out) const {
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
    const bool util_known = !fused && t.FlopsKnown() && db_.peaks.peak_tflops > 0;
    double uncapped_util = 0;
    double time_fraction = SafeDivide(static_cast<double>(t.time_ps), static_cast<double>(total_time_ps_));
    if (util_known) {
      uncapped_util = SafeDivide(SafeDivide(t.flops, time_ns), db_.peaks.peak_tflops * 1e3);
      out += "\"flops\":";
      AppendJsonDouble(out, std::min(1.0, uncapped_util) * time_fraction);
      out += ',';
    }
    out += "\"bandwidthUtils\":[";
    bool bytes = !fused && t.BytesKnown();
    if (bytes && db_.peaks.hbm_gbps > 0) {
      auto util = [&](double b, double peak_gbps) {
        return peak_gbps > 0 ? std::min(1.0, SafeDivide(GigaToGibi(SafeDivide(b, time_ns)), GigaToGibi(peak_gbps)))
                             : 0.0;
      };
      AppendJsonDouble(out, util(t.hbm, db_.peaks.hbm_gbps));
      out += ',';
      AppendJsonDouble(out, util(t.onchip_rd, db_.peaks.sram_rd_gbps));
      out += ',';
      AppendJsonDouble(out, util(t.onchip_wr, db_.peaks.sram_wr_gbps));
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

  static void WriteXla(const XlaFields& x, std::string& out) {
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

  static XlaFields OpFields(const HloOpMetrics& op) {
    return {OpcodeLabel(op.instruction), op.expression, op.provenance, op.category, op.program_id, &op.source_info,
            &op.source_stack};
  }

  // Writes `n`. A deduplication group of one op is written as that op; a
  // larger one as "<first> and its duplicate(s)" with the details (source
  // line included) of its longest op, except a fusion group's framework op:
  // duplicated fusions come from different framework ops, so the first one's
  // would mislabel the group.
  void Write(const Node& n, std::string& out) const {
    if (n.kind == Node::kDedup && n.children.size() == 1) return Write(*n.children.front(), out);
    out += "{\"name\":";
    bool group = n.kind == Node::kDedup && !n.children.empty();
    AppendJsonString(out, group ? n.children.front()->name + " and its duplicate(s)" : n.name);
    out += ',';
    WriteMetrics(n, out);
    out += "\"children\":[";
    for (size_t i = 0; i < n.children.size(); ++i) {
      if (i) out += ',';
      Write(*n.children[i], out);
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

  const HloOpDb& db_;
  OpProfileGrouping grouping_;
  bool exclude_idle_;
  int k_;
  uint64_t total_time_ps_ = 0;
  Node root_;
};

}  // namespace

OpProfileGrouping OpProfileGroupingFromParam(std::string_view group_by) {
  if (group_by == "category") return OpProfileGrouping::kByCategory;
  if (group_by == "provenance") return OpProfileGrouping::kByProvenance;
  return OpProfileGrouping::kByProgram;
}

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

std::string ConvertHloOpDbToOpProfileJson(const HloOpDb& db, OpProfileGrouping group_by, int children_per_node) {
  // HardwareType's names, as the profile names its device.
  std::string device_type = db.peaks.kind == DeviceKind::kTpu   ? "TPU"
                            : db.peaks.kind == DeviceKind::kGpu ? "GPU"
                                                                : "CPU_ONLY";
  auto tree = [&](bool exclude_idle) { return TreeBuilder(db, group_by, exclude_idle, children_per_node).Json(); };
  // Members in the order of their field numbers, as protobuf writes them.
  std::string out = "{";
  switch (group_by) {
    case OpProfileGrouping::kByCategory:
      out += "\"byCategory\":" + tree(false);
      AppendJsonStringMember(out, ",\"deviceType\":", device_type);
      out += ",\"byCategoryExcludeIdle\":" + tree(true);
      break;
    case OpProfileGrouping::kByProgram:
      out += "\"byProgram\":" + tree(false);
      AppendJsonStringMember(out, ",\"deviceType\":", device_type);
      out += ",\"byProgramExcludeIdle\":" + tree(true);
      break;
    case OpProfileGrouping::kByProvenance:
      AppendJsonStringMember(out, "\"deviceType\":", device_type);
      out += ",\"byProvenance\":" + tree(false);
      out += ",\"byProvenanceExcludeIdle\":" + tree(true);
      break;
  }
  out += "}";
  return out;
}

}  // namespace tbprof
