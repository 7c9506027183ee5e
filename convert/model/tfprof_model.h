// tfprof's node model: one entry per graph node (a TensorFlow graph node of a
// ProfileProto, or a framework op of an xplane profile) with its statistics per
// step, read the way tfprof reads them (tensorflow/core/profiler/internal/
// tfprof_node.h): a step's accelerator time is the sum of its executions on
// "stream:all" devices, its CPU time the sum on canonical devices, memory the
// sum over the step's schedulings; with step -1 every value is the integer
// mean over the steps the node ran in.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tbprof::tfprof {

// Names of tfprof's synthetic nodes (internal/tfprof_constants.h).
inline constexpr const char* kTFProfRoot = "_TFProfRoot";
inline constexpr const char* kTFScopeParent = "_kTFScopeParent";
inline constexpr const char* kTFGraphParent = "_TFGraphParent";

// A list of (start_micros, duration_micros) executions, per device.
using ExecsByDevice = std::map<std::string, std::vector<std::pair<int64_t, int64_t>>>;

struct StepExec {
  int64_t run_count = 0;
  int64_t all_start_micros = 0;
  int64_t latest_end_micros = 0;
  ExecsByDevice accelerator_execs;
  ExecsByDevice cpu_execs;
  int64_t requested_bytes = 0;
  int64_t peak_bytes = 0;
  int64_t residual_bytes = 0;
  int64_t output_bytes = 0;
  // Float ops the profile measured in this step (xplane: the cost model's
  // count over the op's runs); -1 when tfprof's per-run count applies.
  int64_t measured_float_ops = -1;

  int64_t AcceleratorMicros() const;
  int64_t CpuMicros() const;
  int64_t ExecMicros() const { return AcceleratorMicros() + CpuMicros(); }
};

// One frame of the Python (or source) stack that created a node, outermost
// first in GraphNode::trace.
struct CodeFrame {
  std::string file;
  std::string function;
  int32_t lineno = 0;
  int32_t func_start_line = 0;
};

struct GraphNode {
  int64_t id = 0;
  std::string name;
  std::string op;
  std::set<std::string> op_types;
  std::string canonical_device;
  std::string host_device;
  // The variable's shape (its "shape" attr); empty when it has none.
  std::vector<int64_t> shape;
  // Float ops of one run (RegisterStatistics / the cost model).
  int64_t float_ops = 0;
  // False when the source could not count this node's float ops (an xplane
  // op the cost model has no FLOPs for): its float ops are unknown, not 0.
  bool float_ops_known = true;
  std::map<int32_t, std::string> inputs;          // input slot -> input node name
  std::map<std::string, int32_t> src_output_index;  // input node name -> its output slot
  std::map<int32_t, std::vector<int64_t>> output_shapes;
  std::map<std::string, std::string> string_attrs;  // attrs with a string value (data_format, ...)
  std::vector<CodeFrame> trace;
  std::map<int64_t, StepExec> execs;  // step -> what the node did in it

  // Per-step values; step < 0 means the integer mean over the node's steps.
  int64_t RunCount(int64_t step) const;
  int64_t ExecMicros(int64_t step) const;
  int64_t AcceleratorMicros(int64_t step) const;
  int64_t CpuMicros(int64_t step) const;
  int64_t RequestedBytes(int64_t step) const;
  int64_t PeakBytes(int64_t step) const;
  int64_t ResidualBytes(int64_t step) const;
  int64_t OutputBytes(int64_t step) const;
  // The static count when the node never ran, otherwise per run x runs.
  int64_t FloatOps(int64_t step) const;
  // Product of the shape; 0 without a shape or with an unknown dimension.
  int64_t Parameters() const;
};

// Which figures the source can give. A figure the source lacks is unknown
// (printed "--", JSON null), never 0: xplane profiles have no variable shapes
// and, without a memory profile per op, no per-op bytes.
// The total execution time (accelerator + cpu) is known when either part is:
// a host-only profile's total is its cpu time.
struct KnownFigures {
  bool memory = true;
  bool parameters = true;
  bool float_ops = true;
  bool accelerator_micros = true;
  bool cpu_micros = true;
};

// Whether a displayed node's float ops are known: its own are unless every
// graph node it stands for lacks them; its total is unless every graph node
// below lacks them (a sum over some known nodes is shown, over none is "--").
struct FloatOpsKnowledge {
  int64_t self_known = 0, self_unknown = 0;
  int64_t total_known = 0, total_unknown = 0;

  void SetSelf(const GraphNode* node) {
    self_known = node != nullptr && node->float_ops_known ? 1 : 0;
    self_unknown = node != nullptr && !node->float_ops_known ? 1 : 0;
  }
  void AddSelfToTotal() {
    total_known += self_known;
    total_unknown += self_unknown;
  }
  void AddTotal(const FloatOpsKnowledge& other) {
    total_known += other.total_known;
    total_unknown += other.total_unknown;
  }
  bool SelfKnown() const { return self_known > 0 || self_unknown == 0; }
  bool TotalKnown() const { return total_known > 0 || total_unknown == 0; }
};

struct Model {
  std::vector<GraphNode> nodes;              // in insertion (id) order
  std::map<std::string, size_t> index_of;    // name -> position in nodes
  std::vector<int64_t> steps;
  bool has_trace = false;
  KnownFigures known;
  // What the model was read from, for messages ("ProfileProto", "xplane").
  std::string source_kind;

  const GraphNode* Find(const std::string& name) const;
  // Input shapes as tfprof derives them: for each input slot, the output shape
  // of the input node at the slot it reads; empty when unknown.
  std::map<int32_t, std::vector<int64_t>> InputShapes(const GraphNode& node) const;
  // Adds `node` (replacing nothing: a repeated name is an error for the
  // caller to report) and returns its position.
  size_t Add(GraphNode node);
};

// Whether a device string counts as accelerator time ("stream:all") or as
// CPU/scheduling time (".../(device:gpu|gpu|device:cpu|cpu):N").
bool CountsAsAcceleratorTime(const std::string& device);
bool CountsAsCpuTime(const std::string& device);
bool IsPlacedOnAccelerator(const std::string& device);

}  // namespace tbprof::tfprof
