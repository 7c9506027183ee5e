// The steps of op_profile (op_profile.h), each usable on its own: build
// the tree of one grouping from the HLO op table, sort and cut it, write it
// as xprof's op_profile.Node JSON. op_profile.cc runs them top-down, once with
// the IDLE op and once without.
#pragma once

#include <cstdint>
#include <map>
#include <string_view>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "convert/analysis/hlo/hlo_op_db.h"

namespace tbprof {

// How the tree groups the ops (op_profile.h).
enum class OpProfileGrouping { kByProgram, kByCategory, kByProvenance };

// A framework op name as a path of tree nodes: split at '/', empty parts
// dropped, the last part cut at its first ':' (the op type).
std::vector<std::string> ProvenancePath(std::string_view provenance);

namespace op_profile {

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

// Step 1: the tree of `grouping` over the ops of `db` (IDLE left out when
// `exclude_idle`); the root's time is the total time the nodes' shares are of.
Node BuildTree(const HloOpDb& db, OpProfileGrouping grouping, bool exclude_idle);

// Step 2: every node's children sorted by time (a fusion's instructions by
// FLOPs) and, `level` levels below `n` and deeper, cut to the first `k`;
// numChildren keeps the count before the cut.
void SortAndPrune(Node& n, int level, int k);

// Step 3: `n` as an op_profile.Node JSON object; `total_time_ps` is the root's time.
void WriteTree(const Node& n, const DevicePeaks& peaks, uint64_t total_time_ps, std::string& out);

}  // namespace op_profile
}  // namespace tbprof
