#include "convert/tools/tfprof_tools.h"

#include <algorithm>
#include <climits>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "convert/analysis/op_stats/op_stats_combiner.h"
#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/tfprof/profile_proto_reader.h"
#include "convert/analysis/tfprof/tfprof_advisor.h"
#include "convert/analysis/tfprof/xspace_to_tfprof.h"
#include "convert/base/file_bytes.h"
#include "convert/base/file_name.h"
#include "convert/base/json.h"
#include "convert/base/memory_grant.h"
#include "convert/base/strings.h"
#include "convert/model/xspace_window.h"
#include "convert/tools/cached_loads.h"

namespace tbprof {
namespace {

using tensorflow::tfprof::GraphNodeProto;
using tensorflow::tfprof::MultiGraphNodeProto;

// ProfileProto files are parsed whole by libprotobuf, which stops at 2 GiB.
constexpr uint64_t kMaxProfileProtoBytes = (uint64_t{1} << 31) - 1;

StatusOr<tfprof::Model> ReadProfileProtoFile(const std::string& path) {
  MappedFile file;
  RETURN_IF_ERROR(file.Open(path, kMaxProfileProtoBytes));
  std::string inflated;
  std::string_view bytes = file.view();
  if (HasGzipMagic(bytes)) {
    ASSIGN_OR_RETURN(inflated, Inflate(bytes, path, kMaxProfileProtoBytes));
    bytes = inflated;
  }
  auto model = tfprof::ReadProfileProto(bytes, path);
  RETURN_IF_ERROR(file.CheckUnchanged());
  return model;
}

// Figures as JSON: null when the profile cannot give them.
void Member(std::string& out, const char* key, int64_t value, bool known) {
  out += ",\"";
  out += key;
  out += "\":";
  out += known ? std::to_string(value) : "null";
}

// Whether each node's own and total float ops are known, in the pre-order
// the nodes are written in.
struct FloatOpsCursor {
  const std::vector<std::pair<bool, bool>>& known;
  size_t next = 0;
  std::pair<bool, bool> Next() { return next < known.size() ? known[next++] : std::make_pair(true, true); }
};

// The answer grows claimed from the request's memory grant, so a profile whose
// view is larger than the server can hold is refused (413), not written.
constexpr size_t kAnswerRoomAhead = 64 << 10;

Status AppendNode(std::string& out, const GraphNodeProto& p, const tfprof::KnownFigures& k, FloatOpsCursor& flops) {
  if (out.capacity() - out.size() < 1024 + 2 * p.name().size()) {
    RETURN_IF_ERROR(GrowClaimed(out, kAnswerRoomAhead + 2 * p.name().size(), "tfprof: the answer"));
  }
  const auto [self_flops_known, total_flops_known] = flops.Next();
  out += "{\"name\":";
  AppendJsonString(out, p.name());
  const bool times = k.accelerator_micros || k.cpu_micros;
  // Each figure of the node's own, then as totals over its subtree (the
  // definition count, a total only, after the run count).
  struct Figure {
    const char* name;
    const char* total_name;
    int64_t self, total;
    bool self_known, total_known;
  };
  const bool acc = k.accelerator_micros, cpu = k.cpu_micros, mem = k.memory, params = k.parameters;
  const Figure figures[] = {
      {"run_count", "total_run_count", p.run_count(), p.total_run_count(), true, true},
      {"exec_micros", "total_exec_micros", p.exec_micros(), p.total_exec_micros(), times, times},
      {"accelerator_exec_micros", "total_accelerator_exec_micros", p.accelerator_exec_micros(),
       p.total_accelerator_exec_micros(), acc, acc},
      {"cpu_exec_micros", "total_cpu_exec_micros", p.cpu_exec_micros(), p.total_cpu_exec_micros(), cpu, cpu},
      {"requested_bytes", "total_requested_bytes", p.requested_bytes(), p.total_requested_bytes(), mem, mem},
      {"peak_bytes", "total_peak_bytes", p.peak_bytes(), p.total_peak_bytes(), mem, mem},
      {"residual_bytes", "total_residual_bytes", p.residual_bytes(), p.total_residual_bytes(), mem, mem},
      {"output_bytes", "total_output_bytes", p.output_bytes(), p.total_output_bytes(), mem, mem},
      {"parameters", "total_parameters", p.parameters(), p.total_parameters(), params, params},
      {"float_ops", "total_float_ops", p.float_ops(), p.total_float_ops(), k.float_ops && self_flops_known,
       k.float_ops && total_flops_known},
  };
  for (const Figure& f : figures) Member(out, f.name, f.self, f.self_known);
  for (const Figure& f : figures) {
    Member(out, f.total_name, f.total, f.total_known);
    if (&f == &figures[0]) Member(out, "total_definition_count", p.total_definition_count(), true);
  }
  out += ",\"devices\":[";
  for (int i = 0; i < p.devices_size(); ++i) {
    if (i) out += ',';
    AppendJsonString(out, p.devices(i));
  }
  out += "],\"children\":[";
  for (int i = 0; i < p.children_size(); ++i) {
    if (i) out += ',';
    RETURN_IF_ERROR(AppendNode(out, p.children(i), k, flops));
  }
  out += "]}";
  return Status::Ok();
}

// A multi-node as a graph node: its figures and totals; its run count is the
// sum of its graph nodes' and its definitions their number.
GraphNodeProto AsGraphNode(const MultiGraphNodeProto& m, bool flatten_chain) {
  GraphNodeProto g;
  g.set_name(m.name());
  int64_t runs = 0;
  for (const auto& n : m.graph_nodes()) runs += n.run_count();
  g.set_run_count(runs);
  g.set_total_run_count(runs);
  g.set_total_definition_count(m.graph_nodes_size());
  g.set_exec_micros(m.exec_micros());
  g.set_accelerator_exec_micros(m.accelerator_exec_micros());
  g.set_cpu_exec_micros(m.cpu_exec_micros());
  g.set_requested_bytes(m.requested_bytes());
  g.set_peak_bytes(m.peak_bytes());
  g.set_residual_bytes(m.residual_bytes());
  g.set_output_bytes(m.output_bytes());
  g.set_parameters(m.parameters());
  g.set_float_ops(m.float_ops());
  g.set_total_exec_micros(m.total_exec_micros());
  g.set_total_accelerator_exec_micros(m.total_accelerator_exec_micros());
  g.set_total_cpu_exec_micros(m.total_cpu_exec_micros());
  g.set_total_requested_bytes(m.total_requested_bytes());
  g.set_total_peak_bytes(m.total_peak_bytes());
  g.set_total_residual_bytes(m.total_residual_bytes());
  g.set_total_output_bytes(m.total_output_bytes());
  g.set_total_parameters(m.total_parameters());
  g.set_total_float_ops(m.total_float_ops());
  if (flatten_chain) {
    // The op view's rows come as a chain (each row the next one's parent).
    for (const MultiGraphNodeProto* row = &m; row->children_size() > 0;) {
      row = &row->children(0);
      *g.add_children() = AsGraphNode(*row, false);
      g.mutable_children()->rbegin()->clear_children();
    }
  } else {
    for (const auto& c : m.children()) *g.add_children() = AsGraphNode(c, false);
  }
  return g;
}

std::string AdviceToJson(const tensorflow::tfprof::AdviceProto& advice) {
  std::map<std::string, const tensorflow::tfprof::AdviceProto::Checker*> ordered;
  for (const auto& [name, checker] : advice.checkers()) ordered[name] = &checker;
  std::string out = "{\"view\":\"advise\",\"checkers\":{";
  bool first = true;
  for (const auto& [name, checker] : ordered) {
    if (!first) out += ',';
    first = false;
    AppendJsonString(out, name);
    out += ":[";
    for (int i = 0; i < checker->reports_size(); ++i) {
      if (i) out += ',';
      AppendJsonString(out, checker->reports(i));
    }
    out += ']';
  }
  out += "},\"text\":";
  AppendJsonString(out, tfprof::FormatAdvice(advice));
  out += '}';
  return out;
}

}  // namespace

namespace {

// Step `step` of one host's step table as a time span: its row, or on a TPU
// the first core's begin to the last core's end; none when the host lacks it.
std::optional<std::pair<int64_t, int64_t>> StepSpan(const OpStats& s, int64_t step) {
  for (const HostSteps& host : s.steps) {
    for (const StepInfo& info : host.steps) {
      if (info.step_num == step) return std::make_pair(info.begin_ps, info.begin_ps + int64_t(info.duration_ps));
    }
  }
  for (const PerCoreStepInfo& per_core : s.tpu_step_db) {
    if (per_core.step_num != step || per_core.step_info_per_core.empty()) continue;
    int64_t begin = INT64_MAX, end = INT64_MIN;
    for (const auto& [core, info] : per_core.step_info_per_core) {
      begin = std::min(begin, info.begin_ps);
      end = std::max(end, info.begin_ps + int64_t(info.duration_ps));
    }
    return std::make_pair(begin, end);
  }
  return std::nullopt;
}

void AddStepNumbers(const OpStats& s, std::set<int64_t>& out) {
  for (const HostSteps& host : s.steps) {
    for (const StepInfo& info : host.steps) out.insert(info.step_num);
  }
  for (const PerCoreStepInfo& per_core : s.tpu_step_db) out.insert(per_core.step_num);
}

// Source stacks from every file's HLO metadata; `loaded[i]`, when set, is
// paths[i]'s model already at hand (the rest are loaded here).
Status AttachSourceStacks(const std::vector<std::string>& paths, ArtifactCache* cache,
                          std::vector<std::shared_ptr<const XSpaceModel>> loaded, tfprof::Model& model) {
  loaded.resize(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!loaded[i]) {
      ASSIGN_OR_RETURN(loaded[i], LoadModelCached(paths[i], cache));
    }
    tfprof::AttachHloSourceStacks(LoadHloPrograms(*loaded[i]), model);
  }
  return Status::Ok();
}

// tfprof's -step on an xplane profile: the op stats of the events that began
// inside step `step` (each host's own span of it), so a step's figures come
// from the same code as the whole profile's.
StatusOr<tfprof::Model> XPlaneStepModel(const std::vector<std::string>& paths, ArtifactCache* cache, int64_t step) {
  std::vector<std::shared_ptr<const OpStats>> windows;
  std::vector<std::shared_ptr<const XSpaceModel>> spaces(paths.size());
  std::set<int64_t> steps;
  for (size_t i = 0; i < paths.size(); ++i) {
    ASSIGN_OR_RETURN(auto whole, LoadOpStatsCached(paths[i], cache));
    AddStepNumbers(*whole, steps);
    auto span = StepSpan(*whole, step);
    if (!span) continue;
    ASSIGN_OR_RETURN(spaces[i], LoadModelCached(paths[i], cache));
    ASSIGN_OR_RETURN(XSpaceModel window, EventsInWindow(*spaces[i], span->first, span->second));
    windows.push_back(std::make_shared<const OpStats>(ConvertXSpaceToOpStats(window)));
  }
  if (windows.empty()) {
    const std::string have =
        ListNumbers(steps, 20) + (steps.size() > 20 ? " (" + std::to_string(steps.size()) + " steps)" : "");
    return InvalidArgument("-step " + std::to_string(step) + " is not a step of this profile (its steps: " +
                           (have.empty() ? "none: the profile has no step table" : have) + ")");
  }
  const OpStats combined = windows.size() == 1 ? *windows.front() : CombineOpStats(windows);
  tfprof::Model model = tfprof::ModelFromOpStats(combined, step);
  RETURN_IF_ERROR(AttachSourceStacks(paths, cache, std::move(spaces), model));
  return model;
}

}  // namespace

StatusOr<tfprof::Model> LoadTfprofModel(const std::vector<std::string>& paths, ArtifactCache* cache, int64_t step) {
  if (paths.empty()) return InvalidArgument("tfprof: no profile file given");
  size_t xplanes = 0;
  for (const auto& p : paths) {
    const ProfileFormat format = ProfileFormatOfFile(p);
    if (format == ProfileFormat::kKinetoTrace) {
      return InvalidArgument("tfprof's views need a TensorFlow/JAX xplane profile (.xplane.pb) or a tfprof profile "
                             "(ProfileProto); " + FileNameOfPath(p) + " is a PyTorch (Kineto) trace");
    }
    xplanes += format == ProfileFormat::kXPlane ? 1 : 0;
  }
  if (xplanes == paths.size()) {
    if (step >= 0) return XPlaneStepModel(paths, cache, step);
    ASSIGN_OR_RETURN(auto stats, OpStatsForPaths(paths, cache));
    tfprof::Model model = tfprof::ModelFromOpStats(*stats);
    RETURN_IF_ERROR(AttachSourceStacks(paths, cache, {}, model));
    return model;
  }
  if (paths.size() != 1) {
    return InvalidArgument("tfprof: give either xplane files (.xplane.pb) or one tfprof ProfileProto file, not " +
                           std::to_string(paths.size()) + " files of which " + std::to_string(paths.size() - xplanes) +
                           " are not xplane files");
  }
  return ReadProfileProtoFile(paths[0]);
}

StatusOr<tfprof::Options> TfprofOptionsFromParams(const ToolParams& params) {
  tfprof::Options options;
  for (const auto& [key, value] : params) {
    if (std::find(tfprof::kOptionNames.begin(), tfprof::kOptionNames.end(), key) == tfprof::kOptionNames.end()) {
      continue;
    }
    if (key == "output") {
      if (value != "stdout" && value != "none") {
        return InvalidArgument("Invalid option '-output' value: '" + value +
                               "' (the server answers with JSON; file, timeline and pprof outputs are for the "
                               "command line)");
      }
      continue;
    }
    RETURN_IF_ERROR(tfprof::SetOption(options, key, value));
  }
  return options;
}

StatusOr<std::string> TfprofViewToJson(const tfprof::ViewResult& result, const tfprof::Options& options) {
  std::string out;
  RETURN_IF_ERROR(GrowClaimed(out, kAnswerRoomAhead + 2 * result.text.size(), "tfprof: the answer"));
  out += "{\"view\":";
  AppendJsonString(out, result.view);
  out += ",\"step\":" + std::to_string(options.step) + ",\"known\":{";
  const tfprof::KnownFigures& k = result.known;
  out += std::string("\"memory\":") + (k.memory ? "true" : "false") +
         ",\"parameters\":" + (k.parameters ? "true" : "false") + ",\"float_ops\":" + (k.float_ops ? "true" : "false") +
         ",\"accelerator_micros\":" + (k.accelerator_micros ? "true" : "false") +
         ",\"cpu_micros\":" + (k.cpu_micros ? "true" : "false") + "},\"select\":[";
  bool first = true;
  for (const auto& s : options.select) {
    if (!first) out += ',';
    first = false;
    AppendJsonString(out, s);
  }
  out += "],\"text\":";
  AppendJsonString(out, result.text);
  if (!result.note.empty()) {
    out += ",\"note\":";
    AppendJsonString(out, result.note);
  }
  out += ",\"root\":";
  FloatOpsCursor flops{result.float_ops_known};
  if (result.multi) {
    RETURN_IF_ERROR(AppendNode(out, AsGraphNode(result.multi_graph, result.view == "op"), k, flops));
  } else {
    RETURN_IF_ERROR(AppendNode(out, result.graph, k, flops));
  }
  out += '}';
  return out;
}

StatusOr<ToolOutput> TfprofTool(const ToolInput& in) {
  const std::string view = ParamStr(in.params, "view", "scope");
  ToolOutput out;
  if (view == "advise") {
    ASSIGN_OR_RETURN(tfprof::Model model, LoadTfprofModel(in.profile_paths, in.cache));
    const std::string names = ParamStr(in.params, "checkers");  // the pieces point into it
    std::vector<std::string> checkers;
    for (auto c : SplitNonEmpty(names, ',')) checkers.emplace_back(c);
    ASSIGN_OR_RETURN(auto advice, tfprof::Advise(model, checkers));
    out.body = AdviceToJson(advice);
    return out;
  }
  ASSIGN_OR_RETURN(tfprof::Options options, TfprofOptionsFromParams(in.params));
  ASSIGN_OR_RETURN(tfprof::Model model, LoadTfprofModel(in.profile_paths, in.cache, options.step));
  ASSIGN_OR_RETURN(tfprof::ViewResult result, tfprof::ShowView(model, view, options));
  ASSIGN_OR_RETURN(out.body, TfprofViewToJson(result, options));
  return out;
}

}  // namespace tbprof
