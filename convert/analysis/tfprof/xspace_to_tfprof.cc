#include "convert/analysis/tfprof/xspace_to_tfprof.h"

#include <cmath>

#include "convert/base/strings.h"

namespace tbprof::tfprof {
namespace {

int64_t PsToMicros(uint64_t ps) { return static_cast<int64_t>((ps + 500000) / 1000000); }

constexpr const char* kHostDevice = "/host:cpu:0";

// XLA's metadata names the file and line of a frame but, without a stack
// frame index, not its function.
constexpr const char* kUnnamedFunction = "?";

// The stack of a 1-based stack frame id, outermost first; empty when the
// index does not hold it. The walk is bounded by the index's size, so a
// damaged parent chain cannot loop.
std::vector<CodeFrame> StackOf(const xla::StackFrameIndexProto& index, int32_t frame_id) {
  std::vector<CodeFrame> inner_first;
  for (int steps = 0; frame_id > 0 && frame_id <= index.stack_frames_size() && steps < index.stack_frames_size();
       ++steps) {
    const auto& frame = index.stack_frames(frame_id - 1);
    const int loc = frame.file_location_id() - 1;
    if (loc < 0 || loc >= index.file_locations_size()) break;
    const auto& fl = index.file_locations(loc);
    CodeFrame f;
    const int file = fl.file_name_id() - 1;
    if (file >= 0 && file < index.file_names_size()) f.file = index.file_names(file);
    const int function = fl.function_name_id() - 1;
    f.function = function >= 0 && function < index.function_names_size() ? index.function_names(function)
                                                                          : kUnnamedFunction;
    f.lineno = fl.line();
    inner_first.push_back(std::move(f));
    frame_id = frame.parent_frame_id();
  }
  return {inner_first.rbegin(), inner_first.rend()};
}

std::vector<CodeFrame> SourceStackOf(const xla::HloModuleProto& module, const HloInstruction& inst) {
  std::vector<CodeFrame> stack = StackOf(module.stack_frame_index(), inst.metadata().stack_frame_id());
  if (stack.empty() && !inst.metadata().source_file().empty()) {
    stack.push_back(CodeFrame{inst.metadata().source_file(), kUnnamedFunction, inst.metadata().source_line(), 0});
  }
  return stack;
}

}  // namespace

size_t AttachHloSourceStacks(const HloPrograms& programs, Model& model) {
  size_t attached = 0;
  for (const auto& [id, program] : programs.by_id) {
    const xla::HloModuleProto& module = program->module();
    for (const auto& computation : module.computations()) {
      for (const auto& inst : computation.instructions()) {
        auto it = model.index_of.find(inst.metadata().op_name());
        if (inst.metadata().op_name().empty() || it == model.index_of.end()) continue;
        GraphNode& node = model.nodes[it->second];
        if (!node.trace.empty()) continue;
        node.trace = SourceStackOf(module, inst);
        if (!node.trace.empty()) ++attached;
      }
    }
  }
  if (attached > 0) model.has_trace = true;
  return attached;
}

Model ModelFromOpStats(const OpStats& op_stats, int64_t step) {
  Model model;
  model.source_kind = "xplane";
  model.known.memory = false;
  model.known.parameters = false;
  model.known.float_ops = false;
  // A profile of the host alone has no accelerator: its accelerator time is
  // unknown, not 0.
  model.known.accelerator_micros = op_stats.run_environment.hardware_type != "CPU_ONLY";
  model.steps = {step};
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
    StepExec& e = g.execs[step];
    e.accelerator_execs[device + "/stream:all"].emplace_back(0, PsToMicros(m.self_time_ps));
    e.run_count = std::max<int64_t>(e.run_count, static_cast<int64_t>(m.occurrences));
    if (m.flops > 0 && !m.flops_unknown) {  // a lower bound is no count
      e.measured_float_ops = static_cast<int64_t>(std::llround(m.flops));
      model.known.float_ops = true;
    }
  }
  for (const auto& [key, m] : op_stats.host_op_metrics_db.ops) {
    if (m.category == kIdleCategory || m.name.empty()) continue;
    GraphNode& g = node_for(m);
    StepExec& e = g.execs[step];
    e.cpu_execs[kHostDevice].emplace_back(0, PsToMicros(m.self_time_ps));
    e.run_count = std::max<int64_t>(e.run_count, static_cast<int64_t>(m.occurrences));
  }
  // A node the cost model gave no FLOPs (a host op, a copy, a custom call)
  // has unknown float ops, not 0; its figure reads 0 in the sums, which the
  // views then show only where some node below counted.
  for (auto& [name, g] : by_name) {
    if (g.execs[step].measured_float_ops < 0) {
      g.float_ops_known = false;
      g.execs[step].measured_float_ops = 0;
    }
    g.id = static_cast<int64_t>(model.nodes.size());
    model.Add(std::move(g));
  }
  return model;
}

}  // namespace tbprof::tfprof
