#include "convert/analysis/tfprof/xspace_to_tfprof.h"

#include <cmath>

#include "convert/base/strings.h"

namespace tbprof::tfprof {
namespace {

int64_t PsToMicros(uint64_t ps) { return static_cast<int64_t>((ps + 500000) / 1000000); }

constexpr const char* kHostDevice = "/host:cpu:0";

}  // namespace

Model ModelFromOpStats(const OpStats& op_stats) {
  Model model;
  model.source_kind = "xplane";
  model.known.memory = false;
  model.known.parameters = false;
  model.known.float_ops = false;
  model.steps = {0};
  const std::string device = "/device:" + AsciiLowered(op_stats.run_environment.device_type) + ":0";

  std::map<std::string, GraphNode> by_name;
  auto node_for = [&](const OpMetrics& m) -> GraphNode& {
    GraphNode& g = by_name[m.name];
    if (g.name.empty()) {
      g.name = m.name;
      g.op = m.category.empty() ? "unknown" : m.category;
      g.op_types.insert(g.op);
    }
    return g;
  };
  for (const auto& [key, m] : op_stats.device_tf_op_metrics_db.ops) {
    if (m.category == kIdleCategory || m.name.empty()) continue;
    GraphNode& g = node_for(m);
    StepExec& e = g.execs[0];
    e.accelerator_execs[device + "/stream:all"].emplace_back(0, PsToMicros(m.self_time_ps));
    e.run_count = std::max<int64_t>(e.run_count, static_cast<int64_t>(m.occurrences));
    if (m.flops > 0) {
      e.measured_float_ops = static_cast<int64_t>(std::llround(m.flops));
      model.known.float_ops = true;
    }
  }
  for (const auto& [key, m] : op_stats.host_op_metrics_db.ops) {
    if (m.category == kIdleCategory || m.name.empty()) continue;
    GraphNode& g = node_for(m);
    StepExec& e = g.execs[0];
    e.cpu_execs[kHostDevice].emplace_back(0, PsToMicros(m.self_time_ps));
    e.run_count = std::max<int64_t>(e.run_count, static_cast<int64_t>(m.occurrences));
  }
  // Every node then carries the same float-op rule: measured (0 when the cost
  // model had none for it) as soon as the profile has FLOPs at all.
  for (auto& [name, g] : by_name) {
    if (model.known.float_ops && g.execs[0].measured_float_ops < 0) g.execs[0].measured_float_ops = 0;
    g.id = static_cast<int64_t>(model.nodes.size());
    model.Add(std::move(g));
  }
  return model;
}

}  // namespace tbprof::tfprof
