#include "convert/tools/compare_tools.h"

#include <algorithm>
#include <charconv>

#include "convert/analysis/compare/comparison_output.h"
#include "convert/analysis/compare/step_events.h"
#include "convert/analysis/op_stats_pages/op_stats_to_input_pipeline.h"
#include "convert/analysis/op_stats_pages/op_stats_to_tf_stats.h"
#include "convert/base/cancellation.h"
#include "convert/base/strings.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/ops_tools.h"
#include "convert/tools/xla_tools.h"
#include "proto/overview_page.pb.h"

namespace tbprof {
namespace {

using tensorflow::profiler::InputPipelineAnalysisResult;
using tensorflow::profiler::KernelStatsDb;

constexpr std::string_view kInputPipeline = "input_pipeline_analyzer";
constexpr std::string_view kFrameworkOps = "framework_op_stats";
constexpr std::string_view kHloOps = "hlo_stats";
constexpr std::string_view kKernels = "kernel_stats";
constexpr std::string_view kMemory = "memory_profile";
constexpr std::string_view kTfData = "tf_data_bottleneck_analysis";

// The legacy files compare reads, by suffix; an overview page stands in for
// the input-pipeline file (it holds the same step analysis).
constexpr std::string_view kLegacyInputPipeline = "input_pipeline.pb";
constexpr std::string_view kLegacyOverview = "overview_page.pb";
constexpr std::string_view kLegacyTfStats = "tensorflow_stats.pb";
constexpr std::string_view kLegacyKernels = "kernel_stats.pb";

template <typename T>
std::shared_ptr<const T> Shared(T value) {
  return std::make_shared<const T>(std::move(value));
}

std::string_view SuffixOf(const std::string& path) {
  std::string_view name(path);
  name.remove_prefix(name.find_last_of('/') == std::string_view::npos ? 0 : name.find_last_of('/') + 1);
  for (std::string_view s : {kLegacyInputPipeline, kLegacyOverview, kLegacyTfStats, kLegacyKernels}) {
    if (name.ends_with(s)) return s;
  }
  return {};
}

StatusOr<RunFigures> LegacyFigures(const CompareSide& side, const std::set<std::string>& sections) {
  RunFigures f;
  std::shared_ptr<const InputPipelineAnalysisResult> from_overview;
  for (const std::string& path : side.legacy_paths) {
    std::string_view suffix = SuffixOf(path);
    if (suffix == kLegacyInputPipeline && sections.count(std::string(kInputPipeline))) {
      ASSIGN_OR_RETURN(auto r, ReadLegacyProto<InputPipelineAnalysisResult>(path));
      f.input_pipeline = Shared(std::move(r));
    } else if (suffix == kLegacyOverview && sections.count(std::string(kInputPipeline))) {
      ASSIGN_OR_RETURN(auto page, ReadLegacyProto<tensorflow::profiler::OverviewPage>(path));
      if (page.has_input_analysis()) from_overview = Shared(page.input_analysis());
    } else if (suffix == kLegacyTfStats && sections.count(std::string(kFrameworkOps))) {
      ASSIGN_OR_RETURN(auto db, ReadLegacyProto<tensorflow::profiler::TfStatsDatabase>(path));
      f.framework_ops = Shared(std::move(db));
    } else if (suffix == kLegacyKernels && sections.count(std::string(kKernels))) {
      ASSIGN_OR_RETURN(auto db, ReadLegacyProto<KernelStatsDb>(path));
      f.kernels = Shared(std::move(db));
    }
  }
  if (f.input_pipeline == nullptr) f.input_pipeline = from_overview;
  return f;
}

// Memory and tf.data read the whole model: it is loaded (and cached) first,
// so that OpStats and the HLO table, computed next, take it from the cache
// instead of loading the file again with fewer stats.
Status AddWholeModelFigures(const CompareSide& side, const std::set<std::string>& sections, ArtifactCache* cache,
                            RunFigures& f) {
  if (!sections.count(std::string(kMemory)) && !sections.count(std::string(kTfData))) return Status();
  std::vector<std::shared_ptr<const XSpaceModel>> models;
  for (const std::string& path : side.profile_paths) {
    ASSIGN_OR_RETURN(auto model, LoadModelCached(path, cache));
    models.push_back(std::move(model));
  }
  if (sections.count(std::string(kMemory))) {
    // As memory_profile: the first host's allocators.
    const std::string& path = side.profile_paths.front();
    std::shared_ptr<const EventGroups> groups = PeekGroupsCached(path, cache);
    auto profile = ComputeMemoryProfile(*models.front(), MemoryProfileOptions{}, &groups);
    KeepGroupsCached(path, std::move(groups), cache);
    // No allocator traced: the run says nothing about memory.
    if (profile.ok() && !profile->memory_profile_per_allocator.empty()) f.memory = Shared(std::move(*profile));
  }
  if (sections.count(std::string(kTfData))) {
    std::vector<std::pair<std::string, const XSpaceModel*>> hosts;
    for (size_t i = 0; i < models.size(); ++i) {
      std::string file_host = i < side.hosts.size() ? side.hosts[i] : side.profile_paths[i];
      hosts.emplace_back(TfDataHostName(*models[i], file_host), models[i].get());
    }
    auto stats = ComputeTfDataStats(hosts);
    bool any_pipeline = false;
    if (stats.ok()) {
      for (const TfDataHostStats& h : stats->hosts) any_pipeline |= !h.pipelines.empty();
    }
    if (any_pipeline) f.tf_data = Shared(std::move(*stats));
  }
  return Status();
}

Status AddStepEvents(const CompareSide& side, ArtifactCache* cache, RunFigures& f) {
  if (!side.step) return Status();
  std::vector<std::shared_ptr<const XSpaceModel>> models;
  std::vector<const XSpaceModel*> hosts;
  for (const std::string& path : side.profile_paths) {
    ASSIGN_OR_RETURN(auto model, LoadModelCached(path, cache));
    hosts.push_back(model.get());
    models.push_back(std::move(model));
  }
  StatusOr<std::vector<OpDeltaRow>> rows = HostEventsOfStep(hosts, *side.step);
  if (!rows.ok()) {
    std::string which = side.hosts.size() == 1 ? " (" + side.hosts.front() + ")" : std::string();
    return Status(rows.status().code(), "compare: run" + which + ": " + rows.status().message());
  }
  f.step_events = std::make_shared<const StepEventRows>(StepEventRows{*side.step, std::move(*rows)});
  return Status();
}

StatusOr<RunFigures> XPlaneFigures(const CompareSide& side, const std::set<std::string>& sections,
                                   ArtifactCache* cache) {
  RunFigures f;
  RETURN_IF_ERROR(AddWholeModelFigures(side, sections, cache, f));
  // Between stages: the memory profile and tf.data figures stop at none of their own.
  if (CancelRequested()) return CancelledError("compare");
  RETURN_IF_ERROR(AddStepEvents(side, cache, f));
  if (sections.count(std::string(kInputPipeline)) || sections.count(std::string(kFrameworkOps)) ||
      sections.count(std::string(kKernels))) {
    ASSIGN_OR_RETURN(auto stats, OpStatsForPaths(side.profile_paths, cache));
    if (sections.count(std::string(kInputPipeline))) {
      f.input_pipeline = Shared(ConvertOpStatsToInputPipelineAnalysis(*stats));
      if (stats->torch_steps) f.torch_steps = Shared(TorchStepTable(*stats->torch_steps));
    }
    if (sections.count(std::string(kFrameworkOps))) {
      RETURN_IF_ERROR(ClaimOpTableNames(*stats));
      f.framework_ops = Shared(ConvertOpStatsToTfStats(*stats));
    }
    if (sections.count(std::string(kKernels))) f.kernels = Shared(KernelStatsDb(stats->kernel_stats_db));
  }
  if (sections.count(std::string(kHloOps))) {
    ToolInput in;
    in.profile_paths = side.profile_paths;
    in.cache = cache;
    ASSIGN_OR_RETURN(auto db, HloOpDbForPaths(in));
    // A run without compiled programs has no HLO table (not an empty one).
    if (!db->ops.empty()) f.hlo_ops = std::move(db);
  }
  return f;
}

std::string SideLabel(const ToolParams& params, const std::string& run_key, const std::string& host_key) {
  std::string run = ParamStr(params, run_key), host = ParamStr(params, host_key);
  return host.empty() ? run : run + " (" + host + ")";
}

}  // namespace

const std::vector<std::string>& CompareSections() {
  static const std::vector<std::string> sections = {std::string(kInputPipeline), std::string(kFrameworkOps),
                                                    std::string(kHloOps),        std::string(kKernels),
                                                    std::string(kMemory),        std::string(kTfData)};
  return sections;
}

StatusOr<std::set<std::string>> CompareSectionsOf(std::string_view list) {
  std::set<std::string> sections;
  for (std::string_view piece : SplitNonEmpty(list, ',')) {
    // The overview page's step figures are the input-pipeline analysis'.
    std::string name = piece == "overview_page" ? std::string(kInputPipeline) : std::string(piece);
    if (std::find(CompareSections().begin(), CompareSections().end(), name) == CompareSections().end()) {
      std::string known;
      for (const std::string& s : CompareSections()) known += (known.empty() ? "" : ", ") + s;
      return InvalidArgument("compare: unknown tool '" + name + "' (one of overview_page, " + known + ")");
    }
    sections.insert(std::move(name));
  }
  if (sections.empty()) sections.insert(CompareSections().begin(), CompareSections().end());
  return sections;
}

bool CompareReadsLegacySuffix(std::string_view suffix) {
  return suffix == kLegacyInputPipeline || suffix == kLegacyOverview || suffix == kLegacyTfStats ||
         suffix == kLegacyKernels;
}

StatusOr<CompareSteps> CompareStepsOf(std::string_view base_step, std::string_view step) {
  auto parse = [](std::string_view text, const char* name) -> StatusOr<std::optional<int64_t>> {
    if (text.empty()) return std::optional<int64_t>();
    int64_t n = 0;
    auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (err != std::errc() || end != text.data() + text.size()) {
      return InvalidArgument(std::string("compare: ") + name + " must be a step number, not '" + std::string(text) +
                             "'");
    }
    return std::optional<int64_t>(n);
  };
  CompareSteps steps;
  ASSIGN_OR_RETURN(steps.a, parse(base_step, "base_step"));
  ASSIGN_OR_RETURN(steps.b, parse(step, "step"));
  if (!steps.a) steps.a = steps.b;
  if (!steps.b) steps.b = steps.a;
  return steps;
}

StatusOr<RunFigures> LoadRunFigures(const CompareSide& side, const std::set<std::string>& sections,
                                    ArtifactCache* cache) {
  if (!side.profile_paths.empty()) return XPlaneFigures(side, sections, cache);
  if (side.step && !side.legacy_paths.empty()) {
    return InvalidArgument("compare: step " + std::to_string(*side.step) +
                           ": legacy per-tool files hold no events; a step's host events need an xplane.pb or a "
                           "PyTorch trace");
  }
  if (!side.legacy_paths.empty()) return LegacyFigures(side, sections);
  return NotFound("compare: a run has no profile file that compare reads (xplane.pb or legacy .pb files)");
}

StatusOr<ToolOutput> CompareTool(const ToolInput& in) {
  auto alignment = StepAlignmentFromName(ParamStr(in.params, "align"));
  if (!alignment) return InvalidArgument("compare: align must be average, step_number or order");
  ASSIGN_OR_RETURN(auto sections, CompareSectionsOf(ParamStr(in.params, "tool")));
  ASSIGN_OR_RETURN(CompareSteps steps, CompareStepsOf(ParamStr(in.params, "base_step"), ParamStr(in.params, "step")));
  CompareSide a{in.base_hosts, in.base_profile_paths, in.base_legacy_paths, steps.a};
  CompareSide b{in.hosts, in.profile_paths, in.legacy_paths, steps.b};
  ASSIGN_OR_RETURN(RunFigures fb, LoadRunFigures(b, sections, in.cache));
  if (a.profile_paths.empty() && a.legacy_paths.empty()) {
    return InvalidArgument("compare: no baseline run A to compare with (base_run)");
  }
  ASSIGN_OR_RETURN(RunFigures fa, LoadRunFigures(a, sections, in.cache));
  RunComparison c = CompareRuns(fa, fb, *alignment);
  ToolOutput out;
  if (in.csv) {
    out.body = ComparisonToCsv(c);
    out.content_type = "text/csv";
  } else {
    out.body = ComparisonToJson(c, SideLabel(in.params, "base_run", "base_host"), SideLabel(in.params, "run", "host"));
  }
  return out;
}

}  // namespace tbprof
