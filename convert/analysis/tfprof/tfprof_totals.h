// The figures tfprof's two displayed-node protos (GraphNodeProto of the scope
// and graph views, MultiGraphNodeProto of the op and code views) keep alike:
// nine own figures and their totals, summed and ordered the same way.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "convert/analysis/tfprof/tfprof_options.h"

namespace tbprof::tfprof {

// One figure both protos hold: its own value, its total, and the order_by
// name that sorts by the total.
template <typename Proto>
struct SharedFigure {
  std::string_view order_by;
  int64_t (Proto::*own)() const;
  int64_t (Proto::*total)() const;
  void (Proto::*set_total)(int64_t);
};

template <typename Proto>
constexpr std::array<SharedFigure<Proto>, 9> SharedFigures() {
  using P = Proto;
  return {{{"micros", &P::exec_micros, &P::total_exec_micros, &P::set_total_exec_micros},
           {"accelerator_micros", &P::accelerator_exec_micros, &P::total_accelerator_exec_micros,
            &P::set_total_accelerator_exec_micros},
           {"cpu_micros", &P::cpu_exec_micros, &P::total_cpu_exec_micros, &P::set_total_cpu_exec_micros},
           {"bytes", &P::requested_bytes, &P::total_requested_bytes, &P::set_total_requested_bytes},
           {"peak_bytes", &P::peak_bytes, &P::total_peak_bytes, &P::set_total_peak_bytes},
           {"residual_bytes", &P::residual_bytes, &P::total_residual_bytes, &P::set_total_residual_bytes},
           {"output_bytes", &P::output_bytes, &P::total_output_bytes, &P::set_total_output_bytes},
           {"params", &P::parameters, &P::total_parameters, &P::set_total_parameters},
           {"float_ops", &P::float_ops, &P::total_float_ops, &P::set_total_float_ops}}};
}

template <typename Proto>
void ClearSharedTotals(Proto& p) {
  for (const SharedFigure<Proto>& f : SharedFigures<Proto>()) (p.*f.set_total)(0);
}

// total_x += x: the node's own figures into its totals.
template <typename Proto>
void AddOwnToSharedTotals(Proto& p) {
  for (const SharedFigure<Proto>& f : SharedFigures<Proto>()) (p.*f.set_total)((p.*f.total)() + (p.*f.own)());
}

// total_x += the child's total_x.
template <typename Proto>
void AddChildToSharedTotals(Proto& p, const Proto& c) {
  for (const SharedFigure<Proto>& f : SharedFigures<Proto>()) (p.*f.set_total)((p.*f.total)() + (c.*f.total)());
}

// The total that order_by sorts by, descending; 0 for the orders that are
// not by a total (name, and occurrence, which each view counts its own way).
template <typename Proto>
int64_t OrderByTotal(const Proto& p, const std::string& by) {
  for (const SharedFigure<Proto>& f : SharedFigures<Proto>()) {
    if (by == f.order_by) return (p.*f.total)();
  }
  return 0;
}

// The thresholds on totals both kinds of node are held to; the views differ
// in how they hold parameters, float ops and occurrence to theirs.
template <typename Proto>
bool MeetsSharedTotalThresholds(const Proto& p, const Options& o) {
  return p.total_requested_bytes() >= o.min_bytes && p.total_peak_bytes() >= o.min_peak_bytes &&
         p.total_residual_bytes() >= o.min_residual_bytes && p.total_output_bytes() >= o.min_output_bytes &&
         p.total_exec_micros() >= o.min_micros && p.total_accelerator_exec_micros() >= o.min_accelerator_micros &&
         p.total_cpu_exec_micros() >= o.min_cpu_micros;
}

// show_name_regexes lets the name through and hide_name_regexes does not stop it.
inline bool NameIsShown(std::string_view name, const Options& o) {
  if (!o.show_name_regexes.MatchesAll() && !o.show_name_regexes.Matches(name)) return false;
  return !o.hide_name_regexes.Matches(name);
}

// An accounted node (or one kept for its descendants) shows the children
// kept below it and totals itself and them.
template <typename Node>
void ShowWithKeptChildren(Node& node, const std::vector<Node*>& kept_children) {
  node.show_children.clear();
  node.ResetTotals();
  node.AddSelfToTotals();
  for (Node* c : kept_children) {
    node.AggregateTotals(*c);
    node.show_children.push_back(c);
  }
}

}  // namespace tbprof::tfprof
