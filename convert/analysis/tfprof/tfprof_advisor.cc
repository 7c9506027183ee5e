#include "convert/analysis/tfprof/tfprof_advisor.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "convert/analysis/tfprof/tfprof_format.h"
#include "convert/analysis/tfprof/tfprof_show.h"

namespace tbprof::tfprof {

const std::vector<std::string> kCheckers = {"AcceleratorUtilizationChecker", "OperationChecker",
                                            "ExpensiveOperationChecker", "JobChecker"};

namespace {

using tensorflow::tfprof::AdviceProto;
using tensorflow::tfprof::GraphNodeProto;
using tensorflow::tfprof::MultiGraphNodeProto;

std::string Printf(const char* format, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), format, args...);
  return buf;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  return out;
}

// Busy accelerator time over the span from the first start to the last end,
// per accelerator device, using each node's last step.
AdviceProto::Checker AcceleratorUtilization(const Model& model) {
  struct Span {
    int64_t start = 0, end = 0, busy = 0;
  };
  std::map<std::string, Span> spans;
  for (const GraphNode& g : model.nodes) {
    if (g.execs.empty() || !IsPlacedOnAccelerator(g.canonical_device)) continue;
    const StepExec& exec = g.execs.rbegin()->second;
    Span& s = spans[g.canonical_device];
    if (s.start == 0) {
      s.start = exec.all_start_micros;
    } else if (exec.all_start_micros != 0) {
      s.start = std::min(s.start, exec.all_start_micros);
    }
    s.end = std::max(s.end, exec.latest_end_micros);
    s.busy += exec.AcceleratorMicros();
  }
  AdviceProto::Checker reports;
  for (const auto& [device, s] : spans) {
    const int64_t span = s.end - s.start;
    if (span <= 0) continue;
    const double utilization = 1.0 * s.busy / span;
    reports.add_reports(utilization >= 0.5
                            ? Printf("device: %s utilization: %.2f", device.c_str(), utilization)
                            : Printf("device: %s low utilization: %.2f", device.c_str(), utilization));
  }
  return reports;
}

AdviceProto::Checker Operation(const Model& model) {
  bool batch_norm = false, fused_batch_norm = false, nhwc_on_accelerator = false;
  for (const GraphNode& g : model.nodes) {
    if (g.name.find("BatchNorm") != std::string::npos) batch_norm = true;
    if (g.op_types.count("FusedBatchNorm")) fused_batch_norm = true;
    auto format = g.string_attrs.find("data_format");
    if (format != g.string_attrs.end() && format->second == "NHWC" && IsPlacedOnAccelerator(g.canonical_device)) {
      nhwc_on_accelerator = true;
    }
  }
  AdviceProto::Checker reports;
  if (batch_norm && !fused_batch_norm) reports.add_reports("Maybe use faster FusedBatchNorm instead of BatchNorm");
  if (nhwc_on_accelerator) {
    reports.add_reports("Found operation using NHWC data_format on GPU. Maybe NCHW is faster.");
  }
  return reports;
}

Options CheckerOptions(int64_t max_depth, int64_t min_micros, std::set<std::string> select) {
  Options o;
  o.max_depth = max_depth;
  o.min_micros = min_micros;
  o.order_by = "micros";
  o.select = std::move(select);
  o.output_type = "none";
  return o;
}

void ExpensiveInCodeView(const MultiGraphNodeProto& node, int depth, std::vector<std::string>& out) {
  if (node.children_size() <= 1 || depth > 3) return;
  for (int j = 0; j < 3 && j < node.children_size(); ++j) {
    const MultiGraphNodeProto& c = node.children(j);
    if (c.total_exec_micros() < 1000) continue;
    out.push_back(std::string(depth * 2, ' ') + c.name() + ", cpu: " + FormatTime(c.total_cpu_exec_micros()) +
                  ", accelerator: " + FormatTime(c.total_accelerator_exec_micros()) +
                  ", total: " + FormatTime(c.total_exec_micros()));
    ExpensiveInCodeView(c, depth + 1, out);
  }
}

// The top op types, the top root scopes and the expensive source lines.
StatusOr<AdviceProto::Checker> ExpensiveOperation(const Model& model) {
  AdviceProto::Checker reports;
  if (model.steps.empty()) return reports;  // no execution data
  ASSIGN_OR_RETURN(ViewResult op, ShowView(model, "op", CheckerOptions(3, 1, {"micros", "occurrence"})));
  if (op.multi_graph.children_size() > 0) {
    std::vector<std::string> lines;
    const MultiGraphNodeProto* node = &op.multi_graph;
    for (int i = 0; i < 3 && node->children_size() > 0; ++i) {
      node = &node->children(0);
      lines.push_back(Printf("top %d operation type: %s, cpu: %s, accelerator: %s, total: %s (%.2f%%)", i + 1,
                             node->name().c_str(), FormatTime(node->cpu_exec_micros()).c_str(),
                             FormatTime(node->accelerator_exec_micros()).c_str(),
                             FormatTime(node->exec_micros()).c_str(),
                             100.0 * node->exec_micros() / (op.multi_graph.total_exec_micros() + 1e-10)));
    }
    reports.add_reports(JoinLines(lines));
  }
  ASSIGN_OR_RETURN(ViewResult scope, ShowView(model, "scope", CheckerOptions(100, 100, {"micros"})));
  if (scope.graph.children_size() > 0) {
    std::vector<std::string> lines;
    for (int i = 0; i < 3 && i < scope.graph.children_size(); ++i) {
      const GraphNodeProto& n = scope.graph.children(i);
      lines.push_back(Printf("top %d graph node: %s, cpu: %s, accelerator: %s, total: %s", i + 1, n.name().c_str(),
                             FormatTime(n.cpu_exec_micros()).c_str(),
                             FormatTime(n.accelerator_exec_micros()).c_str(), FormatTime(n.exec_micros()).c_str()));
    }
    reports.add_reports(JoinLines(lines));
  }
  bool has_trace = false;
  for (const GraphNode& g : model.nodes) has_trace = has_trace || !g.trace.empty();
  if (has_trace) {
    ASSIGN_OR_RETURN(ViewResult code, ShowView(model, "code", CheckerOptions(100, 1, {"micros"})));
    const MultiGraphNodeProto* node = &code.multi_graph;
    while (node->children_size() == 1) node = &node->children(0);
    if (node->children_size() > 0) {
      std::vector<std::string> lines;
      ExpensiveInCodeView(*node, 0, lines);
      reports.add_reports(JoinLines(lines));
    }
  }
  return reports;
}

}  // namespace

StatusOr<AdviceProto> Advise(const Model& model, const std::vector<std::string>& checkers) {
  std::vector<std::string> run = checkers.empty() ? kCheckers : checkers;
  for (const std::string& name : run) {
    if (std::find(kCheckers.begin(), kCheckers.end(), name) == kCheckers.end()) {
      return InvalidArgument("unknown checker '" + name +
                             "'; the checkers are AcceleratorUtilizationChecker, OperationChecker, "
                             "ExpensiveOperationChecker, JobChecker");
    }
  }
  AdviceProto advice;
  auto wanted = [&run](const std::string& name) { return std::find(run.begin(), run.end(), name) != run.end(); };
  if (wanted(kCheckers[0])) (*advice.mutable_checkers())[kCheckers[0]] = AcceleratorUtilization(model);
  if (wanted(kCheckers[1])) (*advice.mutable_checkers())[kCheckers[1]] = Operation(model);
  if (wanted(kCheckers[2])) {
    ASSIGN_OR_RETURN((*advice.mutable_checkers())[kCheckers[2]], ExpensiveOperation(model));
  }
  // JobChecker: TensorFlow runs it only with its internal checkers, which
  // open-source builds lack, so it adds nothing there; neither does it here.
  return advice;
}

std::string FormatAdvice(const AdviceProto& advice) {
  std::map<std::string, const AdviceProto::Checker*> ordered;
  for (const auto& [name, checker] : advice.checkers()) ordered[name] = &checker;
  std::string out;
  for (const auto& [name, checker] : ordered) {
    out += "\n" + name + ":\n";
    for (const std::string& r : checker->reports()) out += r + "\n";
  }
  return out;
}

}  // namespace tbprof::tfprof
