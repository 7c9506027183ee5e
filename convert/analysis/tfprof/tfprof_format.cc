#include "convert/analysis/tfprof/tfprof_format.h"

#include <cinttypes>
#include <cstdio>
#include <map>

namespace tbprof::tfprof {
namespace {

std::string Printf2(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, value);
  return buf;
}

}  // namespace

std::string FormatNumber(int64_t n) {
  if (n < 1000) return std::to_string(n);
  if (n < 1000000) return Printf2("%.2fk", n / 1000.0);
  if (n < 1000000000) return Printf2("%.2fm", n / 1000000.0);
  return Printf2("%.2fb", n / 1000000000.0);
}

std::string FormatTime(int64_t micros) {
  if (micros < 1000) return std::to_string(micros) + "us";
  if (micros < 1000000) return Printf2("%.2fms", micros / 1000.0);
  return Printf2("%.2fsec", micros / 1000000.0);
}

std::string FormatMemory(int64_t bytes) {
  if (bytes < 1000) return std::to_string(bytes) + "B";
  if (bytes < 1000000) return Printf2("%.2fKB", bytes / 1000.0);
  return Printf2("%.2fMB", bytes / 1000000.0);
}

std::string FormatShape(const std::vector<int64_t>& shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += 'x';
    out += std::to_string(shape[i]);
  }
  return out;
}

std::string DocPreamble(const std::string& view, const Options& options) {
  static const std::map<std::string, std::string> kViewHelp = {
      {"scope", "scope: nodes arranged by their name scopes, like paths in a file system."},
      {"graph", "graph: nodes arranged by their inputs: a node's children are the nodes it reads."},
      {"code", "code: nodes arranged by the source call stacks that created them."},
      {"op", "op: one row per operation type (Conv2D, MatMul, ...), summing its nodes."},
  };
  static const std::map<std::string, std::string> kFieldHelp = {
      {"bytes", "requested bytes: memory the operation asked for, summed over its allocations."},
      {"micros", "total execution time: accelerator time plus cpu time.\n"
                 "cpu execution time: start to end of the operation on its host or scheduling device.\n"
                 "accelerator execution time: time of the operation's kernels on the accelerator."},
      {"params", "param: number of parameters (elements of the variable)."},
      {"float_ops", "flops: floating point operations, from the op's registered statistics or cost model."},
      {"tensor_value", "tensor_value: not available in tbprof."},
      {"device", "device: the device the node was placed on."},
      {"op_types", "op_types: the op type, its device and custom types attached to the node."},
      {"occurrence", "occurrence: how many times the node ran, and how many nodes are defined."},
      {"input_shapes", "input shape: shapes of the node's input tensors."},
      {"accelerator_micros", "accelerator execution time: time of the operation's kernels on the accelerator."},
      {"cpu_micros", "cpu execution time: start to end of the operation on its host or scheduling device."},
      {"peak_bytes", "peak bytes: the most memory the operation held at one time."},
      {"residual_bytes", "residual bytes: memory still held after the operation finished."},
      {"output_bytes", "output bytes: memory of the operation's outputs."},
  };
  auto view_help = kViewHelp.find(view);
  std::string out = "\nDoc:\n";
  out += view_help == kViewHelp.end() ? "Unknown command: " + view : view_help->second;
  out += "\n";
  bool first = true;
  for (const std::string& field : options.select) {
    if (!first) out += "\n";
    first = false;
    auto help = kFieldHelp.find(field);
    out += help == kFieldHelp.end() ? "Unknown select: " + field : help->second;
  }
  out += "\n\nProfile:\n";
  return out;
}

std::string ViewLegend(const Options& o, LegendOrder order, const std::string& occurrence) {
  std::vector<std::string> legends;
  auto counts = [&] {
    if (o.Selected("params")) legends.push_back("# parameters");
    if (o.Selected("float_ops")) legends.push_back("# float_ops");
  };
  if (order == LegendOrder::kCountsFirst) counts();
  if (o.Selected("bytes")) legends.push_back("requested bytes");
  if (o.Selected("peak_bytes")) legends.push_back("peak bytes");
  if (o.Selected("residual_bytes")) legends.push_back("residual bytes");
  if (o.Selected("output_bytes")) legends.push_back("output bytes");
  if (o.Selected("micros")) {
    legends.push_back("total execution time");
    legends.push_back("accelerator execution time");
    legends.push_back("cpu execution time");
  }
  if (o.Selected("accelerator_micros") && !o.Selected("micros")) legends.push_back("accelerator execution time");
  if (o.Selected("cpu_micros") && !o.Selected("micros")) legends.push_back("cpu execution time");
  if (order == LegendOrder::kCountsAfterTimes) counts();
  if (o.Selected("device")) legends.push_back("assigned devices");
  if (o.Selected("op_types")) legends.push_back("op types");
  if (o.Selected("occurrence")) legends.push_back(occurrence);
  if (o.Selected("input_shapes")) legends.push_back("input shapes");
  std::string out = "node name | ";
  for (size_t i = 0; i < legends.size(); ++i) out += (i ? " | " : "") + legends[i];
  return out + "\n";
}

}  // namespace tbprof::tfprof
