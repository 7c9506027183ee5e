#include "convert/tfprof/profile_proto_reader.h"

#include <limits>

#include "proto/tfprof_log.pb.h"

namespace tbprof::tfprof {
namespace {

using tensorflow::tfprof::ExecProfile;
using tensorflow::tfprof::ProfileNode;
using tensorflow::tfprof::ProfileProto;

std::string NodeLabel(const ProfileNode& node, int64_t key) {
  return "node " + std::to_string(key) + (node.name().empty() ? "" : " ('" + node.name() + "')");
}

Status ReadExecTimes(const google::protobuf::Map<std::string, tensorflow::tfprof::ExecTime>& in,
                     const std::string& where, ExecsByDevice& out) {
  for (const auto& [device, times] : in) {
    auto& list = out[device];
    for (const auto& pair : times.times()) {
      if (pair.int64_values_size() != 2) {
        return DataLoss(where + ": an execution of device '" + device + "' has " +
                        std::to_string(pair.int64_values_size()) +
                        " values, not the two (start, duration) a ProfileProto holds");
      }
      list.emplace_back(pair.int64_values(0), pair.int64_values(1));
    }
  }
  return Status::Ok();
}

StatusOr<StepExec> ReadStep(const ExecProfile& exec, const std::string& where) {
  StepExec step;
  step.run_count = exec.run_count();
  step.all_start_micros = exec.all_start_micros();
  step.latest_end_micros = exec.latest_end_micros();
  RETURN_IF_ERROR(ReadExecTimes(exec.accelerator_execs(), where, step.accelerator_execs));
  RETURN_IF_ERROR(ReadExecTimes(exec.cpu_execs(), where, step.cpu_execs));
  for (const auto& mem : exec.memory_execs()) {
    step.requested_bytes += mem.requested_bytes();
    step.peak_bytes += mem.peak_bytes();
    step.residual_bytes += mem.residual_bytes();
    step.output_bytes += mem.output_bytes();
  }
  return step;
}

StatusOr<std::string> LookUpString(const ProfileProto& profile, int64_t id, const std::string& where) {
  auto it = profile.id_to_string().find(id);
  if (it == profile.id_to_string().end()) {
    return DataLoss(where + ": its code trace names string id " + std::to_string(id) +
                    ", which the file's id_to_string table lacks");
  }
  return it->second;
}

StatusOr<GraphNode> ReadNode(const ProfileProto& profile, int64_t key, const ProfileNode& in) {
  const std::string where = NodeLabel(in, key);
  GraphNode node;
  node.id = in.id();
  node.name = in.name();
  node.op = in.op();
  node.op_types.insert(in.op_types().begin(), in.op_types().end());
  node.canonical_device = in.canonical_device();
  node.host_device = in.host_device();
  node.shape.assign(in.shape().begin(), in.shape().end());
  node.float_ops = in.float_ops();
  for (const auto& [slot, input_id] : in.inputs()) {
    auto input = profile.nodes().find(input_id);
    if (input == profile.nodes().end()) {
      return DataLoss(where + ": input " + std::to_string(slot) + " refers to node id " +
                      std::to_string(input_id) + ", which the file does not have");
    }
    node.inputs[slot] = input->second.name();
  }
  for (const auto& [src_id, output_slot] : in.src_output_index()) {
    auto input = profile.nodes().find(src_id);
    if (input == profile.nodes().end()) {
      return DataLoss(where + ": src_output_index refers to node id " + std::to_string(src_id) +
                      ", which the file does not have");
    }
    node.src_output_index[input->second.name()] = output_slot;
  }
  for (const auto& [slot, shape] : in.output_shapes()) {
    node.output_shapes[slot].assign(shape.int64_values().begin(), shape.int64_values().end());
  }
  for (const auto& [attr_name, value] : in.attrs()) {
    if (value.value_case() == tensorflow::tfprof::AttrValue::kS) node.string_attrs[attr_name] = value.s();
  }
  for (const auto& frame : in.trace().traces()) {
    CodeFrame f;
    ASSIGN_OR_RETURN(f.file, LookUpString(profile, frame.file_id(), where));
    ASSIGN_OR_RETURN(f.function, LookUpString(profile, frame.function_id(), where));
    f.lineno = frame.lineno();
    f.func_start_line = frame.func_start_line();
    node.trace.push_back(std::move(f));
  }
  for (const auto& [step, exec] : in.execs()) {
    ASSIGN_OR_RETURN(node.execs[step], ReadStep(exec, where + " step " + std::to_string(step)));
  }
  return node;
}

}  // namespace

StatusOr<Model> ModelFromProfileProto(const ProfileProto& profile, const std::string& name) {
  if (profile.nodes().empty()) {
    return InvalidArgument(name + ": the ProfileProto has no nodes (not a tfprof profile, or an empty one)");
  }
  Model model;
  model.source_kind = "ProfileProto";
  model.has_trace = profile.has_trace();
  model.steps.assign(profile.steps().begin(), profile.steps().end());
  // ProfileProto's node map is unordered on the wire; tfprof gives ids in
  // insertion order, so nodes are kept in id order.
  std::map<int64_t, const ProfileNode*> by_key;
  for (const auto& [key, node] : profile.nodes()) by_key.emplace(key, &node);
  for (const auto& [key, in] : by_key) {
    if (in->name().empty()) return DataLoss(name + ": " + NodeLabel(*in, key) + " has no name");
    if (model.index_of.count(in->name()) != 0) {
      return DataLoss(name + ": two nodes are named '" + in->name() + "'");
    }
    auto node = ReadNode(profile, key, *in);
    if (!node.ok()) return Status(node.status().code(), name + ": " + node.status().message());
    model.Add(std::move(node).value());
  }
  return model;
}

StatusOr<Model> ReadProfileProto(std::string_view bytes, const std::string& name) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return ResourceExhausted(name + ": a ProfileProto larger than 2 GiB cannot be read");
  }
  ProfileProto profile;
  if (!profile.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return DataLoss(name + ": not a valid ProfileProto (tfprof profile): the protobuf wire data is damaged or "
                           "of another message");
  }
  return ModelFromProfileProto(profile, name);
}

}  // namespace tbprof::tfprof
