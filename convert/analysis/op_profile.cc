#include "convert/analysis/op_profile.h"

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "convert/analysis/hlo_cost_model.h"
#include "convert/base/json.h"
#include "convert/base/math_util.h"

namespace tbprof {
namespace {

struct Totals {
  uint64_t time_ps = 0;
  uint32_t occurrences = 0;
  double flops = 0, model_flops = 0, hbm = 0, onchip_rd = 0, onchip_wr = 0;
  bool flops_known = false, bytes_known = false;

  void Add(const HloOpMetrics& m) {
    time_ps += m.time_ps;
    occurrences += m.occurrences;
    flops += m.flops, model_flops += m.model_flops;
    hbm += m.has_breakdown ? m.hbm_bytes : m.bytes_accessed;
    onchip_rd += m.onchip_rd, onchip_wr += m.onchip_wr;
    flops_known |= m.flops_known, bytes_known |= m.bytes_known;
  }
};

struct Node {
  std::string name;
  enum Kind { kGroup, kCategory, kOp, kFused } kind = kGroup;
  Totals totals;
  const HloOpMetrics* op = nullptr;         // kOp
  const HloInstruction* fused = nullptr;    // kFused
  double fused_flops = 0;
  bool has_metrics = true;
  std::string dedup_key;
  int num_children = 0;
  std::vector<std::unique_ptr<Node>> children;

  Node* Child(const std::string& child_name, Kind k, std::map<std::string, Node*>& index) {
    Node*& n = index[child_name];
    if (n == nullptr) {
      children.push_back(std::make_unique<Node>());
      n = children.back().get();
      n->name = child_name;
      n->kind = k;
    }
    return n;
  }
};

std::string OpcodeLabel(const HloInstruction* inst) {
  if (inst == nullptr) return "";
  return inst->opcode() == "fusion" && !inst->fusion_kind().empty() ? "fusion:" + inst->fusion_kind()
                                                                      : inst->opcode();
}

class TreeBuilder {
 public:
  TreeBuilder(const HloOpDb& db, bool by_program, bool exclude_idle, int k)
      : db_(db), by_program_(by_program), exclude_idle_(exclude_idle), k_(k) {
    root_.name = by_program ? "by_program" : "by_category";
  }

  std::string Json() {
    for (const HloOpMetrics& m : db_.ops) {
      if (m.name.starts_with("region")) continue;
      if (m.is_idle && exclude_idle_) continue;
      if (!m.is_idle && m.occurrences == 0) continue;
      AddOp(m);
    }
    total_time_ps_ = 0;
    for (const HloOpMetrics& m : db_.ops) {
      if (!(m.is_idle && exclude_idle_)) total_time_ps_ += m.self_time_ps;
    }
    root_.totals.time_ps = total_time_ps_;
    SortAndPrune(root_, by_program_ ? 2 : 1);
    std::string out;
    Write(root_, out);
    return out;
  }

 private:
  void AddOp(const HloOpMetrics& m) {
    root_.totals.Add(m);
    if (m.is_idle) {
      Node* leaf = root_.Child("IDLE", Node::kOp, root_index_);
      leaf->op = &m;
      leaf->totals.Add(m);
      return;
    }
    Node* parent = &root_;
    std::map<std::string, Node*>* index = &root_index_;
    if (by_program_) {
      parent = root_.Child(db_.ProgramName(m.program_id), Node::kGroup, root_index_);
      parent->totals.Add(m);
      index = &sub_index_[parent];
    }
    Node* category = parent->Child(m.category, Node::kCategory, *index);
    category->totals.Add(m);
    std::string dedup = m.deduplicated_name.empty() ? m.name : m.deduplicated_name;
    Node* group = category->Child(dedup, Node::kGroup, sub_index_[category]);
    group->totals.Add(m);
    group->children.push_back(std::make_unique<Node>());
    Node* leaf = group->children.back().get();
    leaf->name = m.name;
    leaf->kind = Node::kOp;
    leaf->op = &m;
    leaf->totals.Add(m);
    AddFused(m, *leaf);
  }

  void AddFused(const HloOpMetrics& m, Node& leaf) {
    const HloProgram* program = db_.programs.Find(m.program_id);
    if (program == nullptr || m.instruction == nullptr || m.instruction->opcode() != "fusion") return;
    for (int64_t id : m.instruction->called_computation_ids()) {
      const HloComputation* c = program->FindComputation(id);
      if (c == nullptr) continue;
      for (const HloInstruction& i : c->instructions()) {
        if (i.opcode() == "parameter" || i.opcode() == "constant" || i.opcode() == "tuple" ||
            i.opcode() == "get-tuple-element" || i.opcode() == "bitcast") {
          continue;
        }
        leaf.children.push_back(std::make_unique<Node>());
        Node* f = leaf.children.back().get();
        f->name = i.name();
        f->kind = Node::kFused;
        f->fused = &i;
        f->fused_flops = HloInstructionCost(*program, i).flops * m.occurrences;
      }
    }
  }

  void SortAndPrune(Node& n, int level) {
    n.num_children = static_cast<int>(n.children.size());
    for (auto& c : n.children) SortAndPrune(*c, level - 1);
    bool fusion = n.kind == Node::kOp && n.op && n.op->instruction && n.op->instruction->opcode() == "fusion";
    std::stable_sort(n.children.begin(), n.children.end(), [&](const auto& a, const auto& b) {
      if (fusion) return a->fused_flops > b->fused_flops;
      return a->totals.time_ps > b->totals.time_ps;
    });
    if (level <= 0 && static_cast<int>(n.children.size()) > k_) n.children.resize(static_cast<size_t>(k_));
  }

  void WriteMetrics(const Node& n, std::string& out) const {
    const Totals& t = n.totals;
    double time_ns = static_cast<double>(t.time_ps) / 1e3;
    out += "\"metrics\":{\"flops\":";
    double flops_util = 0;
    if (n.kind != Node::kFused && t.flops_known && db_.peaks.peak_tflops > 0) {
      double util = std::min(1.0, SafeDivide(SafeDivide(t.flops, time_ns), db_.peaks.peak_tflops * 1e3));
      flops_util = util * SafeDivide(static_cast<double>(t.time_ps), static_cast<double>(total_time_ps_));
    }
    AppendJsonDouble(out, flops_util);
    out += ",\"bandwidthUtils\":[";
    bool bytes = n.kind != Node::kFused && t.bytes_known && db_.peaks.hbm_gbps > 0;
    if (bytes) {
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
    out += ",\"rawFlops\":";
    AppendJsonDouble(out, n.kind == Node::kFused ? n.fused_flops : t.model_flops);
    out += ",\"rawBytesAccessedArray\":[";
    if (bytes) {
      AppendJsonDouble(out, t.hbm);
      out += ',';
      AppendJsonDouble(out, t.onchip_rd);
      out += ',';
      AppendJsonDouble(out, t.onchip_wr);
    }
    out += "],\"occurrences\":" + std::to_string(t.occurrences) + ",\"avgTimePs\":";
    AppendJsonDouble(out, SafeDivide(static_cast<double>(t.time_ps), t.occurrences));
    out += ",\"bf16Flops\":";
    AppendJsonDouble(out, n.kind == Node::kFused ? n.fused_flops : t.flops);
    out += "},";
  }

  void WriteXla(const std::string& op, const std::string& expression, const std::string& provenance,
                const std::string& category, uint64_t program_id, std::string& out) const {
    AppendJsonStringMember(out, "\"xla\":{\"op\":", op);
    AppendJsonStringMember(out, ",\"expression\":", expression);
    AppendJsonStringMember(out, ",\"provenance\":", provenance);
    AppendJsonStringMember(out, ",\"category\":", category);
    out += ",\"computationPrimitiveSize\":0,\"fingerprint\":\"0\",\"programId\":\"" + std::to_string(program_id) +
           "\"},";
  }

  // Writes `n`; a deduplication group of one op is written as that op, a larger one as
  // "<first> and its duplicate(s)" with the first op's details.
  void Write(const Node& n, std::string& out) const {
    if (n.kind == Node::kGroup && &n != &root_ && !n.children.empty() &&
        std::all_of(n.children.begin(), n.children.end(), [](const auto& c) { return c->kind == Node::kOp; })) {
      if (n.children.size() == 1) return Write(*n.children.front(), out);
    }
    out += "{\"name\":";
    const Node* first_op = nullptr;
    bool dedup = n.kind == Node::kGroup && &n != &root_ && !n.children.empty() &&
                 std::all_of(n.children.begin(), n.children.end(), [](const auto& c) { return c->kind == Node::kOp; });
    if (dedup) first_op = n.children.front().get();
    AppendJsonString(out, dedup ? first_op->name + " and its duplicate(s)" : n.name);
    out += ',';
    WriteMetrics(n, out);
    out += "\"children\":[";
    for (size_t i = 0; i < n.children.size(); ++i) {
      if (i) out += ',';
      Write(*n.children[i], out);
    }
    out += "],";
    if (n.kind == Node::kCategory) out += "\"category\":{},";
    const HloOpMetrics* op = n.kind == Node::kOp ? n.op : (dedup ? first_op->op : nullptr);
    if (op != nullptr) {
      WriteXla(OpcodeLabel(op->instruction), op->expression, op->provenance, op->category, op->program_id, out);
    } else if (n.kind == Node::kFused) {
      const HloProgram* program = nullptr;
      for (const auto& [id, p] : db_.programs.by_id) {
        if (p->ComputationOf(*n.fused) != nullptr) program = p.get();
      }
      WriteXla(OpcodeLabel(n.fused), program ? InstructionExpression(*program, *n.fused) : "",
               n.fused->metadata().op_name(), program ? HloCategoryOf(*program, *n.fused) : "",
               program ? program->program_id() : 0, out);
    }
    out += "\"numChildren\":" + std::to_string(n.num_children) + "}";
  }

  const HloOpDb& db_;
  bool by_program_, exclude_idle_;
  int k_;
  uint64_t total_time_ps_ = 0;
  Node root_;
  std::map<std::string, Node*> root_index_;
  std::map<const Node*, std::map<std::string, Node*>> sub_index_;
};

}  // namespace

std::string ConvertHloOpDbToOpProfileJson(const HloOpDb& db, int children_per_node) {
  std::string device_type = db.peaks.kind == DeviceKind::kTpu ? "TPU" : db.peaks.kind == DeviceKind::kGpu ? "GPU"
                                                                                                          : "CPU";
  std::string out = "{\"byCategory\":";
  out += TreeBuilder(db, false, false, children_per_node).Json();
  out += ",\"byProgram\":";
  out += TreeBuilder(db, true, false, children_per_node).Json();
  AppendJsonStringMember(out, ",\"deviceType\":", device_type);
  out += ",\"byCategoryExcludeIdle\":";
  out += TreeBuilder(db, false, true, children_per_node).Json();
  out += ",\"byProgramExcludeIdle\":";
  out += TreeBuilder(db, true, true, children_per_node).Json();
  out += "}";
  return out;
}

}  // namespace tbprof
