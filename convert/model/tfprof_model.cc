#include "convert/model/tfprof_model.h"

#include <cctype>

namespace tbprof::tfprof {
namespace {

int64_t SumDurations(const ExecsByDevice& execs) {
  int64_t total = 0;
  for (const auto& [device, list] : execs) {
    for (const auto& [start, duration] : list) total += duration;
  }
  return total;
}

// One value of a step, or the integer mean over the node's steps (tfprof
// divides the sum by the number of steps the node has, not by all steps).
template <typename Get>
int64_t PerStep(const std::map<int64_t, StepExec>& execs, int64_t step, Get get) {
  if (execs.empty()) return 0;
  if (step >= 0) {
    auto it = execs.find(step);
    return it == execs.end() ? 0 : get(it->second);
  }
  int64_t sum = 0;
  for (const auto& [s, exec] : execs) sum += get(exec);
  return sum / static_cast<int64_t>(execs.size());
}

}  // namespace

int64_t StepExec::AcceleratorMicros() const { return SumDurations(accelerator_execs); }
int64_t StepExec::CpuMicros() const { return SumDurations(cpu_execs); }

int64_t GraphNode::RunCount(int64_t step) const {
  return PerStep(execs, step, [](const StepExec& e) { return e.run_count; });
}
int64_t GraphNode::ExecMicros(int64_t step) const {
  return PerStep(execs, step, [](const StepExec& e) { return e.ExecMicros(); });
}
int64_t GraphNode::AcceleratorMicros(int64_t step) const {
  return PerStep(execs, step, [](const StepExec& e) { return e.AcceleratorMicros(); });
}
int64_t GraphNode::CpuMicros(int64_t step) const {
  return PerStep(execs, step, [](const StepExec& e) { return e.CpuMicros(); });
}
int64_t GraphNode::RequestedBytes(int64_t step) const {
  return PerStep(execs, step, [](const StepExec& e) { return e.requested_bytes; });
}
int64_t GraphNode::PeakBytes(int64_t step) const {
  return PerStep(execs, step, [](const StepExec& e) { return e.peak_bytes; });
}
int64_t GraphNode::ResidualBytes(int64_t step) const {
  return PerStep(execs, step, [](const StepExec& e) { return e.residual_bytes; });
}
int64_t GraphNode::OutputBytes(int64_t step) const {
  return PerStep(execs, step, [](const StepExec& e) { return e.output_bytes; });
}

int64_t GraphNode::FloatOps(int64_t step) const {
  if (execs.empty()) return float_ops;
  if (execs.begin()->second.measured_float_ops >= 0) {
    return PerStep(execs, step, [](const StepExec& e) { return e.measured_float_ops; });
  }
  return float_ops * RunCount(step);
}

int64_t GraphNode::Parameters() const {
  if (shape.empty()) return 0;
  int64_t params = 1;
  for (int64_t d : shape) {
    if (d < 0) return 0;  // a dimension unknown when the graph was built
    params *= d;
  }
  return params;
}

const GraphNode* Model::Find(const std::string& name) const {
  auto it = index_of.find(name);
  return it == index_of.end() ? nullptr : &nodes[it->second];
}

std::map<int32_t, std::vector<int64_t>> Model::InputShapes(const GraphNode& node) const {
  std::map<int32_t, std::vector<int64_t>> shapes;
  for (const auto& [slot, input_name] : node.inputs) {
    std::vector<int64_t>& shape = shapes[slot];
    const GraphNode* input = Find(input_name);
    auto src = node.src_output_index.find(input_name);
    if (input == nullptr || src == node.src_output_index.end()) continue;
    auto out = input->output_shapes.find(src->second);
    if (out != input->output_shapes.end()) shape = out->second;
  }
  return shapes;
}

size_t Model::Add(GraphNode node) {
  size_t at = nodes.size();
  index_of.emplace(node.name, at);
  nodes.push_back(std::move(node));
  return at;
}

bool CountsAsAcceleratorTime(const std::string& device) {
  return device.find("stream:all") != std::string::npos;
}

// ".*/(device:gpu|gpu|device:cpu|cpu):\d+" matched in full, by hand.
bool CountsAsCpuTime(const std::string& device) {
  size_t colon = device.rfind(':');
  if (colon == std::string::npos || colon + 1 >= device.size()) return false;
  for (size_t i = colon + 1; i < device.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(device[i]))) return false;
  }
  std::string_view head(device.data(), colon);
  for (std::string_view kind : {"/device:gpu", "/gpu", "/device:cpu", "/cpu"}) {
    if (head.size() >= kind.size() && head.substr(head.size() - kind.size()) == kind) return true;
  }
  return false;
}

bool IsPlacedOnAccelerator(const std::string& device) { return device.find("gpu") != std::string::npos; }

}  // namespace tbprof::tfprof
