// The figures tfprof's two displayed-node protos (GraphNodeProto of the scope
// and graph views, MultiGraphNodeProto of the op and code views) keep alike:
// nine own figures and their totals, summed and ordered the same way.
#pragma once

#include <cstdint>
#include <string>

namespace tbprof::tfprof {

template <typename Proto>
void ClearSharedTotals(Proto& p) {
  p.set_total_exec_micros(0);
  p.set_total_accelerator_exec_micros(0);
  p.set_total_cpu_exec_micros(0);
  p.set_total_requested_bytes(0);
  p.set_total_peak_bytes(0);
  p.set_total_residual_bytes(0);
  p.set_total_output_bytes(0);
  p.set_total_parameters(0);
  p.set_total_float_ops(0);
}

// total_x += x: the node's own figures into its totals.
template <typename Proto>
void AddOwnToSharedTotals(Proto& p) {
  p.set_total_exec_micros(p.total_exec_micros() + p.exec_micros());
  p.set_total_accelerator_exec_micros(p.total_accelerator_exec_micros() + p.accelerator_exec_micros());
  p.set_total_cpu_exec_micros(p.total_cpu_exec_micros() + p.cpu_exec_micros());
  p.set_total_requested_bytes(p.total_requested_bytes() + p.requested_bytes());
  p.set_total_peak_bytes(p.total_peak_bytes() + p.peak_bytes());
  p.set_total_residual_bytes(p.total_residual_bytes() + p.residual_bytes());
  p.set_total_output_bytes(p.total_output_bytes() + p.output_bytes());
  p.set_total_parameters(p.total_parameters() + p.parameters());
  p.set_total_float_ops(p.total_float_ops() + p.float_ops());
}

// total_x += the child's total_x.
template <typename Proto>
void AddChildToSharedTotals(Proto& p, const Proto& c) {
  p.set_total_exec_micros(p.total_exec_micros() + c.total_exec_micros());
  p.set_total_accelerator_exec_micros(p.total_accelerator_exec_micros() + c.total_accelerator_exec_micros());
  p.set_total_cpu_exec_micros(p.total_cpu_exec_micros() + c.total_cpu_exec_micros());
  p.set_total_requested_bytes(p.total_requested_bytes() + c.total_requested_bytes());
  p.set_total_peak_bytes(p.total_peak_bytes() + c.total_peak_bytes());
  p.set_total_residual_bytes(p.total_residual_bytes() + c.total_residual_bytes());
  p.set_total_output_bytes(p.total_output_bytes() + c.total_output_bytes());
  p.set_total_parameters(p.total_parameters() + c.total_parameters());
  p.set_total_float_ops(p.total_float_ops() + c.total_float_ops());
}

// The total that order_by sorts by, descending; 0 for the orders that are
// not by a total (name, and occurrence, which each view counts its own way).
template <typename Proto>
int64_t OrderByTotal(const Proto& p, const std::string& by) {
  if (by == "bytes") return p.total_requested_bytes();
  if (by == "peak_bytes") return p.total_peak_bytes();
  if (by == "residual_bytes") return p.total_residual_bytes();
  if (by == "output_bytes") return p.total_output_bytes();
  if (by == "micros") return p.total_exec_micros();
  if (by == "accelerator_micros") return p.total_accelerator_exec_micros();
  if (by == "cpu_micros") return p.total_cpu_exec_micros();
  if (by == "params") return p.total_parameters();
  if (by == "float_ops") return p.total_float_ops();
  return 0;
}

}  // namespace tbprof::tfprof
