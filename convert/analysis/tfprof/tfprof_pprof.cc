#include "convert/analysis/tfprof/tfprof_pprof.h"

#include <map>
#include <tuple>
#include <vector>
#include <unordered_map>

#include "convert/analysis/tfprof/tfprof_code_view.h"

namespace tbprof::tfprof {
namespace {

using perftools::profiles::Profile;

struct Metric {
  const char* unit;
  bool known;
  bool per_node_float_ops;  // whether a node may lack the figure on its own
  int64_t (*value)(const GraphNode&, int64_t step);
};

StatusOr<Metric> MetricOf(const std::string& field, const KnownFigures& k) {
  static const std::map<std::string, Metric> kMetrics = {
      {"bytes", {"bytes", true, false, [](const GraphNode& g, int64_t s) { return g.RequestedBytes(s); }}},
      {"peak_bytes", {"bytes", true, false, [](const GraphNode& g, int64_t s) { return g.PeakBytes(s); }}},
      {"residual_bytes", {"bytes", true, false, [](const GraphNode& g, int64_t s) { return g.ResidualBytes(s); }}},
      {"output_bytes", {"bytes", true, false, [](const GraphNode& g, int64_t s) { return g.OutputBytes(s); }}},
      {"micros", {"microseconds", true, false, [](const GraphNode& g, int64_t s) { return g.ExecMicros(s); }}},
      {"accelerator_micros",
       {"microseconds", true, false, [](const GraphNode& g, int64_t s) { return g.AcceleratorMicros(s); }}},
      {"cpu_micros", {"microseconds", true, false, [](const GraphNode& g, int64_t s) { return g.CpuMicros(s); }}},
      {"params", {"count", true, false, [](const GraphNode& g, int64_t) { return g.Parameters(); }}},
      {"float_ops", {"count", true, false, [](const GraphNode& g, int64_t s) { return g.FloatOps(s); }}},
  };
  auto it = kMetrics.find(field);
  if (it == kMetrics.end()) {
    return InvalidArgument("-output pprof cannot show '" + field +
                           "'; select one of bytes, peak_bytes, residual_bytes, output_bytes, micros, "
                           "accelerator_micros, cpu_micros, params, float_ops");
  }
  Metric m = it->second;
  if (field.find("bytes") != std::string::npos) m.known = k.memory;
  if (field == "micros") m.known = k.accelerator_micros || k.cpu_micros;
  if (field == "accelerator_micros") m.known = k.accelerator_micros;
  if (field == "cpu_micros") m.known = k.cpu_micros;
  if (field == "params") m.known = k.parameters;
  if (field == "float_ops") m.known = k.float_ops;
  m.per_node_float_ops = field == "float_ops";
  return m;
}

std::string BaseNameWithoutExtension(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.rfind('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

class PprofBuilder {
 public:
  PprofBuilder(const Model& model, int64_t step, const Metric& metric, Profile& out)
      : model_(model), step_(step), metric_(metric), out_(out) {
    Intern("");  // pprof's string_table[0] is always the empty string
  }

  void Build(const CodeTree& tree, const std::string& field) {
    auto* count = out_.add_sample_type();
    count->set_type(Intern("count"));
    count->set_unit(Intern("count"));
    auto* figure = out_.add_sample_type();
    figure->set_type(Intern(field));
    figure->set_unit(Intern(metric_.unit));
    out_.add_comment(Intern("tfprof code view of " + model_.source_kind + ": sample 1 is " + field + " per graph node"));
    out_.set_default_sample_type(figure->type());
    IndexParents(tree.root);
    WalkShown(tree.root);
  }

 private:
  int64_t Intern(const std::string& s) {
    auto [it, added] = strings_.emplace(s, out_.string_table_size());
    if (added) out_.add_string_table(s);
    return it->second;
  }

  void IndexParents(const MultiNode& node) {
    for (const MultiNode* c : node.children) {
      parent_[c] = &node;
      IndexParents(*c);
    }
  }

  // The displayed leaves: every graph node below one becomes a sample.
  void WalkShown(const MultiNode& node) {
    if (node.show_children.empty() && node.frame != nullptr) {
      AddSamplesBelow(node);
      return;
    }
    for (const MultiNode* c : node.show_children) WalkShown(*c);
  }

  void AddSamplesBelow(const MultiNode& node) {
    if (!node.picked.empty()) {
      std::vector<uint64_t> stack;
      for (const MultiNode* at = &node; at != nullptr && at->frame != nullptr; at = Parent(at)) {
        stack.push_back(LocationOf(*at));
      }
      for (const GraphNode* g : node.picked) AddSample(*g, stack);
    }
    for (const MultiNode* c : node.children) AddSamplesBelow(*c);
  }

  const MultiNode* Parent(const MultiNode* node) const {
    auto it = parent_.find(node);
    return it == parent_.end() ? nullptr : it->second;
  }

  void AddSample(const GraphNode& g, const std::vector<uint64_t>& stack) {
    // A node whose own figure is unknown adds nothing rather than a 0.
    if (metric_.per_node_float_ops && !g.float_ops_known) return;
    auto* sample = out_.add_sample();
    for (uint64_t id : stack) sample->add_location_id(id);
    sample->add_value(1);
    sample->add_value(metric_.value(g, step_));
    auto* label = sample->add_label();
    label->set_key(Intern("graph node:"));
    label->set_str(Intern(g.name));
  }

  // A location per (file, function, line) of a frame; a function per
  // (file, function).
  uint64_t LocationOf(const MultiNode& node) {
    const CodeFrame& f = *node.frame;
    const bool gradient = node.name.size() > 11 && node.name.compare(node.name.size() - 11, 11, " (gradient)") == 0;
    const std::string function = BaseNameWithoutExtension(f.file) + ":" + f.function + (gradient ? " (gradient)" : "");
    auto key = std::make_tuple(f.file, function, f.lineno);
    auto it = locations_.find(key);
    if (it != locations_.end()) return it->second;
    auto* location = out_.add_location();
    location->set_id(static_cast<uint64_t>(out_.location_size()));
    auto* line = location->add_line();
    line->set_function_id(FunctionOf(f, function));
    line->set_line(f.lineno);
    locations_.emplace(key, location->id());
    return location->id();
  }

  uint64_t FunctionOf(const CodeFrame& f, const std::string& name) {
    auto key = std::make_pair(f.file, name);
    auto it = functions_.find(key);
    if (it != functions_.end()) return it->second;
    auto* function = out_.add_function();
    function->set_id(static_cast<uint64_t>(out_.function_size()));
    function->set_name(Intern(name));
    function->set_system_name(function->name());
    function->set_filename(Intern(f.file));
    function->set_start_line(f.func_start_line);
    functions_.emplace(key, function->id());
    return function->id();
  }

  const Model& model_;
  const int64_t step_;
  const Metric metric_;
  Profile& out_;
  std::unordered_map<std::string, int64_t> strings_;
  std::unordered_map<const MultiNode*, const MultiNode*> parent_;
  std::map<std::tuple<std::string, std::string, int32_t>, uint64_t> locations_;
  std::map<std::pair<std::string, std::string>, uint64_t> functions_;
};

}  // namespace

StatusOr<Profile> CodeViewPprof(const Model& model, const std::string& view, const Options& options) {
  if (view != "code") {
    return InvalidArgument("-output pprof is only for the code view (it is a profile of source call stacks), not the " +
                           view + " view");
  }
  if (options.select.size() != 1) {
    return InvalidArgument("-output pprof needs exactly one -select field (for example -select micros), not " +
                           std::to_string(options.select.size()));
  }
  const std::string field = *options.select.begin();
  ASSIGN_OR_RETURN(Metric metric, MetricOf(field, model.known));
  if (!metric.known) {
    return InvalidArgument("-output pprof: this " + model.source_kind + " profile cannot give '" + field +
                           "' (the figure is unknown, not 0)");
  }
  CodeTree tree(model);
  ASSIGN_OR_RETURN(ViewResult shown, ShowCodeViewOf(model, options, tree));
  (void)shown;
  Profile profile;
  PprofBuilder(model, options.step, metric, profile).Build(tree, field);
  return profile;
}

}  // namespace tbprof::tfprof
