#include "tests/testing/tfprof_fixtures.h"

#include <algorithm>
#include <stdexcept>

namespace tbprof::tfprof_fixtures {

using tensorflow::tfprof::ProfileNode;
using tensorflow::tfprof::ProfileProto;

ProfileNode& ProfileWriter::At(const std::string& name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) throw std::logic_error("fixture: no node " + name);
  return it->second;
}

ProfileWriter& ProfileWriter::Node(const std::string& name, const std::string& op, std::vector<std::string> inputs) {
  ProfileNode& n = nodes_[name];
  n.set_name(name);
  n.set_op(op);
  n.set_id(static_cast<int64_t>(order_.size()));
  n.add_op_types(op);
  order_.push_back(name);
  inputs_[name] = std::move(inputs);
  return *this;
}

ProfileWriter& ProfileWriter::Shape(const std::string& name, std::vector<int64_t> shape) {
  for (int64_t d : shape) At(name).add_shape(d);
  return *this;
}

ProfileWriter& ProfileWriter::OutputShape(const std::string& name, std::vector<int64_t> shape) {
  auto& tuple = (*At(name).mutable_output_shapes())[0];
  for (int64_t d : shape) tuple.add_int64_values(d);
  return *this;
}

ProfileWriter& ProfileWriter::Types(const std::string& name, std::vector<std::string> types) {
  for (auto& t : types) At(name).add_op_types(t);
  return *this;
}

ProfileWriter& ProfileWriter::FloatOps(const std::string& name, int64_t float_ops) {
  At(name).set_float_ops(float_ops);
  return *this;
}

ProfileWriter& ProfileWriter::StringAttr(const std::string& name, const std::string& key, const std::string& value) {
  (*At(name).mutable_attrs())[key].set_s(value);
  return *this;
}

ProfileWriter& ProfileWriter::Trace(const std::string& name, const std::vector<Frame>& frames) {
  auto id_of = [this](const std::string& s) {
    auto [it, added] = strings_.emplace(s, static_cast<int64_t>(strings_.size()) + 1);
    return it->second;
  };
  for (const Frame& f : frames) {
    auto* t = At(name).mutable_trace()->add_traces();
    t->set_file_id(id_of(f.file));
    t->set_function_id(id_of(f.function));
    t->set_lineno(f.line);
    t->set_func_start_line(f.line > 5 ? f.line - 5 : 1);
  }
  return *this;
}

ProfileWriter& ProfileWriter::Run(const std::string& name, int64_t step, const Exec& exec) {
  ProfileNode& n = At(name);
  if (n.canonical_device().empty()) {
    n.set_canonical_device(exec.device);
    std::string host = exec.device;
    size_t gpu = host.rfind("gpu:");
    if (gpu != std::string::npos) host = host.substr(0, gpu) + "cpu:0";
    n.set_host_device(host);
    n.add_op_types(exec.device);
  }
  if (std::find(steps_.begin(), steps_.end(), step) == steps_.end()) steps_.push_back(step);
  auto& e = (*n.mutable_execs())[step];
  int64_t at = exec.start_micros;
  e.set_all_start_micros(exec.start_micros);
  for (int64_t micros : exec.cpu_micros) {
    auto* t = (*e.mutable_cpu_execs())[exec.device].add_times();
    t->add_int64_values(at);
    t->add_int64_values(micros);
    e.set_latest_end_micros(std::max(e.latest_end_micros(), at + micros));
    e.set_run_count(e.run_count() + 1);
    at += micros;
  }
  at = exec.start_micros;
  for (int64_t micros : exec.accelerator_micros) {
    auto* t = (*e.mutable_accelerator_execs())[exec.device + "/stream:all"].add_times();
    t->add_int64_values(at);
    t->add_int64_values(micros);
    e.set_latest_end_micros(std::max(e.latest_end_micros(), at + micros));
    at += micros;
  }
  e.add_devices(exec.device);
  auto* mem = e.add_memory_execs();
  mem->set_requested_bytes(exec.requested_bytes);
  mem->set_peak_bytes(exec.peak_bytes);
  mem->set_residual_bytes(exec.residual_bytes);
  mem->set_output_bytes(exec.output_bytes);
  return *this;
}

ProfileProto ProfileWriter::Build() const {
  ProfileProto p;
  for (const std::string& name : order_) {
    ProfileNode n = nodes_.at(name);
    const auto& inputs = inputs_.at(name);
    for (size_t slot = 0; slot < inputs.size(); ++slot) {
      int64_t id = nodes_.at(inputs[slot]).id();
      (*n.mutable_inputs())[static_cast<int32_t>(slot)] = id;
      (*n.mutable_src_output_index())[id] = 0;
    }
    (*p.mutable_nodes())[n.id()] = n;
  }
  for (int64_t s : steps_) p.add_steps(s);
  for (const auto& [s, id] : strings_) (*p.mutable_id_to_string())[id] = s;
  p.set_has_trace(!strings_.empty());
  return p;
}

namespace {

const char* const kGpu = "/job:localhost/replica:0/task:0/gpu:0";

// One variable's initializer subgraph as graph.pbtxt of TensorFlow's test
// model has it: shape/mean/stddev constants, RandomStandardNormal, mul, add,
// the VariableV2, its Assign and read.
void AddVariable(ProfileWriter& w, const std::string& v, const std::vector<int64_t>& shape,
                 const std::vector<int64_t>& shape_const_output) {
  const std::string rn = v + "/Initializer/random_normal";
  w.Node(rn + "/shape", "Const").OutputShape(rn + "/shape", shape_const_output);
  w.Node(rn + "/mean", "Const").OutputShape(rn + "/mean", {1});
  w.Node(rn + "/stddev", "Const").OutputShape(rn + "/stddev", {1});
  w.Node(rn + "/RandomStandardNormal", "RandomStandardNormal", {rn + "/shape"})
      .OutputShape(rn + "/RandomStandardNormal", shape);
  w.Node(rn + "/mul", "Mul", {rn + "/RandomStandardNormal", rn + "/stddev"}).OutputShape(rn + "/mul", shape);
  w.Node(rn, "Add", {rn + "/mul", rn + "/mean"}).OutputShape(rn, shape);
  w.Node(v, "VariableV2").Shape(v, shape).OutputShape(v, shape).Types(v, {"_trainable_variables",
                                                                          "_checkpoint_variables"});
  w.Node(v + "/Assign", "Assign", {v, rn}).OutputShape(v + "/Assign", shape);
  w.Node(v + "/read", "Identity", {v}).OutputShape(v + "/read", shape);
}

}  // namespace

// Graph structure, shapes and attrs: core/profiler/internal/testdata/
// graph.pbtxt (31 nodes). Figures per node:
// - tfprof_stats_test.cc (kStats): Conv2D 226 us accelerator + 4066 us cpu,
//   18176 B requested, 14592 B peak, 768 B residual and output, 5832 flops;
//   Conv2D_1 178 + 419 us, 9728 / 8704 / 512 / 512 B, 4608 flops; DW 2 us cpu
//   and DW2 11 us cpu, 1280 B for each memory figure; one run each. The root
//   totals it states (4945 us, 4541 us cpu, 6 runs, 32 graph / 35 scope
//   definitions, 4864 output bytes) exceed the sum of the nodes by one node
//   with 41 us cpu, one run and 1024 output bytes that no graph.pbtxt node
//   accounts for: a node of the RunMetadata that is not in the graph (tfprof
//   adds those with their name as op type). Its name is not stated; we call it
//   "run_meta_only_node". zeros (2 us cpu, one run) comes from the show test.
// - tfprof_show_test.cc (kShow), a recording with different figures: the
//   variables have 0 B requested/peak/residual and 1280 B output; root cpu is
//   4500 us (no extra node); the op view states 14592 B requested for the
//   Conv2D type as a whole, which we put on Conv2D (its split is not stated).
ProfileWriter TfTestModelWriter(TfTestModel which) {
  ProfileWriter w;
  const bool stats = which == TfTestModel::kStats;
  w.Node("zeros", "Const").OutputShape("zeros", {2, 6, 6, 3});
  AddVariable(w, "ScalarW", {1}, {0});
  AddVariable(w, "DW", {3, 3, 3, 6}, {4});
  w.Node("Conv2D", "Conv2D", {"zeros", "DW/read"}).OutputShape("Conv2D", {2, 3, 3, 6});
  w.StringAttr("Conv2D", "data_format", "NHWC").FloatOps("Conv2D", 5832);
  AddVariable(w, "DW2", {2, 2, 6, 12}, {4});
  w.Node("Conv2D_1", "Conv2D", {"Conv2D", "DW2/read"}).OutputShape("Conv2D_1", {2, 2, 2, 12});
  w.StringAttr("Conv2D_1", "data_format", "NHWC").FloatOps("Conv2D_1", 4608);
  w.Node("init", "NoOp", {"ScalarW/Assign", "DW/Assign", "DW2/Assign"});

  using Exec = ProfileWriter::Exec;
  Exec conv{kGpu, 100, {4066}, {226}, 18176, 14592, 768, 768};
  Exec conv1{kGpu, 5000, {419}, {178}, 9728, 8704, 512, 512};
  if (!stats) {
    conv.requested_bytes = 14592;
    conv1.requested_bytes = 0;
  }
  const int64_t var_bytes = stats ? 1280 : 0;
  w.Run("zeros", 0, Exec{kGpu, 10, {2}, {}, 0, 0, 0, 0});
  w.Run("DW", 0, Exec{kGpu, 20, {2}, {}, var_bytes, var_bytes, var_bytes, 1280});
  w.Run("DW2", 0, Exec{kGpu, 30, {11}, {}, var_bytes, var_bytes, var_bytes, 1280});
  w.Run("Conv2D", 0, conv);
  w.Run("Conv2D_1", 0, conv1);
  if (stats) {
    w.Node("run_meta_only_node", "run_meta_only_node");
    w.Run("run_meta_only_node", 0, Exec{kGpu, 6000, {41}, {}, 0, 0, 0, 1024});
  }
  return w;
}

// n1: Conv2D with data_format NHWC, n2: Conv2D; each starts at 10 / 20 us and
// runs 2 us on GPU:0 (scheduling, counted as cpu time) and on its
// stream:all (accelerator time), step 0.
ProfileWriter AdvisorTestWriter() {
  const char* const kDevice = "/job:localhost/replica:0/task:0/device:gpu:0";
  ProfileWriter w;
  w.Node("n1", "Conv2D").StringAttr("n1", "data_format", "NHWC");
  w.Node("n2", "Conv2D");
  w.Run("n1", 0, ProfileWriter::Exec{kDevice, 10, {2}, {2}});
  w.Run("n2", 0, ProfileWriter::Exec{kDevice, 20, {2}, {2}});
  return w;
}

ProfileWriter CallStacksWriter(const std::string& device, const std::string& gradient_function) {
  const std::string gradient = "gradients/n1_grad/Conv2DBackpropInput";
  ProfileWriter w;
  w.Node("n1", "Conv2D").Trace("n1", {{"/src/main.py", "main", 10}, {"/src/model.py", "build", 20}});
  w.Node("n2", "MatMul").Trace("n2", {{"/src/main.py", "main", 10}, {"/src/model.py", "build", 30}});
  w.Node(gradient, "Conv2DBackpropInput").Trace(gradient, {{"/src/train.py", gradient_function, 5}});
  w.Run("n1", 0, ProfileWriter::Exec{device, 1, {100}, {}});
  w.Run("n2", 0, ProfileWriter::Exec{device, 200, {50}, {}});
  w.Run(gradient, 0, ProfileWriter::Exec{device, 300, {40}, {}});
  return w;
}

}  // namespace tbprof::tfprof_fixtures
