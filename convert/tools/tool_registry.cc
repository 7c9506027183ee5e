#include "convert/tools/tool_registry.h"

#include <algorithm>

#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/analysis/host_events/xspace_to_memory_profile.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/compare_tools.h"
#include "convert/tools/model_tools.h"
#include "convert/tools/ops_tools.h"
#include "convert/tools/tfprof_tools.h"
#include "convert/tools/trace_viewer_tools.h"
#include "convert/tools/xla_tools.h"
#include "convert/xplane/xspace_reader.h"

namespace tbprof {

namespace {

bool HasGpuPlane(const XSpaceModel& m) { return !m.FindPlanesWithPrefix("/device:GPU:").empty(); }

}  // namespace

const std::vector<ToolSpec>& ProfileTools() {
  static const std::vector<ToolSpec> tools = [] {
    using enum AllHostsEntry;
    std::vector<ToolSpec> t;
    // name, converter, combines hosts, /hosts entry, hosts=a,b, listing, listed_if, csv
    t.push_back({"overview_page", OverviewPageTool, true, kOnly, false, Listing::kAlways, {}, false});
    t.push_back({"input_pipeline_analyzer", InputPipelineTool, true, kOffered, false, Listing::kAlways, {}, false});
    t.push_back({"framework_op_stats", FrameworkOpStatsTool, true, kOffered, false, Listing::kAlways, {}, true});
    // The TensorFlow-era name of framework_op_stats: served, never listed.
    t.push_back({"tensorflow_stats", FrameworkOpStatsTool, true, kNone, false, Listing::kNever, {}, true});
    t.push_back({"kernel_stats", KernelStatsTool, true, kOffered, false, Listing::kIfDataPresent, HasGpuPlane, true});
    // xprof serves pod_viewer but does not list it.
    t.push_back({"pod_viewer", PodViewerTool, true, kOnly, false, Listing::kNever, {}, false, true});
    t.push_back({"memory_profile", MemoryProfileTool, false, kNone, false, Listing::kAlways, {}, false});
    t.push_back({"tf_data_bottleneck_analysis", TfDataBottleneckAnalysisTool, true, kNone, false, Listing::kAlways,
                 {}, false});
    // HLO op tools: listed when the run's first XSpace holds HLO modules; they
    // combine the selected hosts op by op (xprof's converters take every XSpace).
    t.push_back({"hlo_stats", HloStatsTool, true, kNone, false, Listing::kIfDataPresent, HasHloModules, true});
    t.push_back({"op_profile", OpProfileTool, true, kNone, false, Listing::kIfDataPresent, HasHloModules, false});
    t.push_back({"roofline_model", RooflineModelTool, true, kNone, false, Listing::kIfDataPresent, HasHloModules,
                 true});
    // One program from one host's file: programs are not combined across hosts.
    t.push_back({"memory_viewer", MemoryViewerTool, false, kNone, false, Listing::kIfDataPresent, HasHloModules,
                 false});
    t.push_back({"graph_viewer", GraphViewerTool, false, kNone, false, Listing::kIfDataPresent, HasHloModules, false});
    // tfprof's views (scope, op, code; advise) over the run's framework ops.
    t.push_back({"tfprof", TfprofTool, true, kOffered, false, Listing::kAlways, {}, false});
    t.push_back({"trace_viewer@", StreamingTraceViewerTool, false, kNone, true, Listing::kAlways, {}, false});
    // The non-streaming viewer: served, but the streaming one is listed in its place.
    t.push_back({"trace_viewer", TraceViewerTool, false, kNone, true, Listing::kNever, {}, false});
    // Two runs, planned by the server's compare route; reached from a run's page, never listed.
    t.push_back({"compare", CompareTool, true, kNone, false, Listing::kNever, {}, true});
    for (ToolSpec& spec : t) spec.run = Guarded(spec.name, std::move(spec.run));
    return t;
  }();
  return tools;
}

const std::vector<LegacyToolSpec>& LegacyConverters() {
  // The old profile plugin's per-tool files. The '@' and '#' aliases are the
  // names its frontend asked for (proto-backed and gzip'ed variants).
  static std::vector<LegacyToolSpec> legacy = {
      {"trace_viewer", "trace.json.gz", "trace_viewer#", nullptr},
      {"overview_page", "overview_page.pb", "overview_page@", LegacyOverviewPage},
      {"overview_page", "overview_page.json", "overview_page", nullptr},
      {"input_pipeline_analyzer", "input_pipeline.pb", "input_pipeline_analyzer@", LegacyInputPipeline},
      {"input_pipeline_analyzer", "input_pipeline.json", "input_pipeline_analyzer", nullptr},
      {"framework_op_stats", "tensorflow_stats.pb", "tensorflow_stats", LegacyTfStats},
      {"kernel_stats", "kernel_stats.pb", "kernel_stats", LegacyKernelStats},
      {"memory_profile", "memory_profile.json.gz", "memory_profile#", nullptr},
      {"pod_viewer", "pod_viewer.json", "pod_viewer", nullptr},
      {"op_profile", "op_profile.json", "op_profile", nullptr},
      {"memory_viewer", "memory_viewer.json", "memory_viewer", nullptr},
      {"tf_data_bottleneck_analysis", "tf_data_bottleneck_analysis.json", "tf_data_bottleneck_analysis", nullptr},
  };
  static const bool guarded = [] {
    for (LegacyToolSpec& spec : legacy) {
      if (!spec.run) continue;
      ToolFn one_file = [run = spec.run](const ToolInput& in) { return run(in.profile_paths.front(), in); };
      ToolFn safe = Guarded(spec.tool, std::move(one_file));
      spec.run = [safe](const std::string& path, const ToolInput& in) {
        ToolInput with_path = in;
        with_path.profile_paths = {path};
        return safe(with_path);
      };
    }
    return true;
  }();
  (void)guarded;
  return legacy;
}

const ToolSpec* FindProfileTool(std::string_view name) {
  for (const ToolSpec& t : ProfileTools()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const LegacyToolSpec* FindLegacySuffix(std::string_view suffix) {
  for (const LegacyToolSpec& l : LegacyConverters()) {
    if (l.suffix == suffix) return &l;
  }
  return nullptr;
}

size_t ToolListingRank(std::string_view tool) {
  // xprof's run_tools order.
  static constexpr std::string_view kOrder[] = {
      "overview_page", "trace_viewer", "trace_viewer@", "graph_viewer", "op_profile", "hlo_op_profile",
      "input_pipeline_analyzer", "input_pipeline", "kernel_stats", "memory_profile", "memory_viewer",
      "roofline_model", "perf_counters", "pod_viewer", "framework_op_stats", "tensorflow_stats", "hlo_op_stats",
      "hlo_stats", "inference_profile", "megascale_stats"};
  return static_cast<size_t>(std::find(std::begin(kOrder), std::end(kOrder), tool) - std::begin(kOrder));
}

}  // namespace tbprof
