#include "convert/tools/tool_registry.h"

#include <algorithm>

#include "convert/tools/compare_tools.h"
#include "convert/tools/model_tools.h"
#include "convert/tools/ops_tools.h"
#include "convert/tools/tfprof_tools.h"
#include "convert/tools/trace_analysis_tools.h"
#include "convert/tools/trace_viewer_tools.h"
#include "convert/tools/xla_tools.h"
#include "convert/xplane/xspace_reader.h"

namespace tbprof {

namespace {

bool HasGpuPlane(const ProfileSummary& s) { return s.has_gpu_plane; }
bool HasHloPrograms(const ProfileSummary& s) { return s.has_hlo_programs; }

using enum AllHostsEntry;
using enum ProfileFormat;

// A PyTorch trace carries no tf.data iterator events (its input time is in
// input_pipeline_analyzer: DataLoader time), no compiled programs, and not
// the graph tfprof's views are made of.
constexpr ProfileFormats kXPlaneOnly = {kXPlane};

std::vector<ToolSpec> MakeProfileTools() {
  std::vector<ToolSpec> t;
  // The menu follows xprof's run_tools order (menu_rank); tools it does not rank come after, by name.
  t.push_back({.name = "overview_page", .display_name = "Overview Page", .run = OverviewPageTool, .menu_rank = 0,
               .all_hosts = true, .hosts_entry = kOnly, .cost = WorkCost::kOpStats});
  t.push_back({.name = "input_pipeline_analyzer", .display_name = "Input Pipeline Analysis",
               .run = InputPipelineTool, .menu_rank = 5, .all_hosts = true, .hosts_entry = kOffered,
               .cost = WorkCost::kOpStats});
  t.push_back({.name = "framework_op_stats", .display_name = "Framework Op Stats", .run = FrameworkOpStatsTool,
               .menu_rank = 11, .all_hosts = true, .hosts_entry = kOffered, .csv = true,
               .same_as = "tensorflow_stats", .cost = WorkCost::kOpStats});
  // The TensorFlow-era name of framework_op_stats: served, never listed.
  t.push_back({.name = "tensorflow_stats", .display_name = "TensorFlow Stats", .run = FrameworkOpStatsTool,
               .menu_rank = 12, .all_hosts = true, .listing = Listing::kNever, .csv = true,
               .same_as = "framework_op_stats", .cost = WorkCost::kOpStats});
  t.push_back({.name = "kernel_stats", .display_name = "Kernel Stats", .run = KernelStatsTool, .menu_rank = 6,
               .all_hosts = true, .hosts_entry = kOffered, .listing = Listing::kIfDataPresent,
               .listed_if = HasGpuPlane, .csv = true, .cost = WorkCost::kOpStats});
  // xprof serves pod_viewer but does not list it; /hosts offers it where it compares hosts.
  t.push_back({.name = "pod_viewer", .display_name = "Pod Viewer", .run = PodViewerTool, .menu_rank = 10,
               .all_hosts = true, .hosts_entry = kOnly, .listing = Listing::kNever,
               .offered_with_several_hosts_only = true, .cost = WorkCost::kOpStats});
  // HTA's analyses of every rank side by side; listed where the run has GPU work (any format).
  t.push_back({.name = "trace_analysis", .display_name = "Trace Analysis", .run = TraceAnalysisTool,
               .all_hosts = true, .hosts_entry = kOffered, .listing = Listing::kIfDataPresent,
               .listed_if = HasGpuPlane, .cost = WorkCost::kTraceAnalysis});
  t.push_back({.name = "memory_profile", .display_name = "Memory Profile", .run = MemoryProfileTool, .menu_rank = 7});
  t.push_back({.name = "tf_data_bottleneck_analysis", .display_name = "tf.data Bottleneck Analysis",
               .run = TfDataBottleneckAnalysisTool, .formats = kXPlaneOnly, .all_hosts = true});
  t.push_back({.name = "hlo_stats", .display_name = "HLO Op Stats", .run = HloStatsTool, .menu_rank = 13,
               .formats = kXPlaneOnly, .all_hosts = true, .listing = Listing::kIfDataPresent,
               .listed_if = HasHloPrograms, .csv = true});
  t.push_back({.name = "op_profile", .display_name = "HLO Op Profile", .run = OpProfileTool, .menu_rank = 4,
               .formats = kXPlaneOnly, .all_hosts = true, .listing = Listing::kIfDataPresent,
               .listed_if = HasHloPrograms});
  t.push_back({.name = "roofline_model", .display_name = "Roofline Model", .run = RooflineModelTool, .menu_rank = 9,
               .formats = kXPlaneOnly, .all_hosts = true, .listing = Listing::kIfDataPresent,
               .listed_if = HasHloPrograms, .csv = true});
  t.push_back({.name = "memory_viewer", .display_name = "Memory Viewer", .run = MemoryViewerTool, .menu_rank = 8,
               .formats = kXPlaneOnly, .listing = Listing::kIfDataPresent, .listed_if = HasHloPrograms});
  // HLO op tools: listed when the run's first XSpace holds compiled programs;
  // they combine the selected hosts op by op (xprof's converters take every
  // XSpace). memory_viewer and graph_viewer show one program of one host's file.
  t.push_back({.name = "graph_viewer", .display_name = "Graph Viewer", .run = GraphViewerTool, .menu_rank = 3,
               .formats = kXPlaneOnly, .listing = Listing::kIfDataPresent, .listed_if = HasHloPrograms});
  // tfprof's views (scope, op, code; advise) over an xplane run's framework ops or a tfprof profile.
  t.push_back({.name = std::string(kTfprofToolName), .display_name = "tfprof (TensorFlow profiler views)",
               .run = TfprofTool, .formats = {kXPlane, kTfprofProfile}, .all_hosts = true,
               .hosts_entry = kOffered});
  t.push_back({.name = "trace_viewer@", .display_name = "Trace Viewer (streaming)", .run = StreamingTraceViewerTool,
               .menu_rank = 2, .host_list = true, .cost = WorkCost::kTraceWindow});
  // The non-streaming viewer: served (and a legacy trace.json.gz's), but the streaming one is listed in its place.
  t.push_back({.name = "trace_viewer", .display_name = "Trace Viewer", .run = TraceViewerTool, .menu_rank = 1,
               .host_list = true, .listing = Listing::kNever, .cost = WorkCost::kWholeTrace});
  // Two runs, planned by the server's compare route; reached from a run's page, never listed.
  t.push_back({.name = "compare", .display_name = "Compare", .run = CompareTool,
               .formats = {kXPlane, kKinetoTrace, kLegacyToolFile}, .all_hosts = true,
               .listing = Listing::kNever, .csv = true});
  for (ToolSpec& spec : t) {
    // compare's input is two runs (a side and its baseline), not one run's hosts.
    if (spec.all_hosts && spec.name != "compare") spec.run = LeavingOutUnreadableHosts(std::move(spec.run));
    spec.run = Guarded(spec.name, std::move(spec.run));
  }
  return t;
}

}  // namespace

const std::vector<ToolSpec>& ProfileTools() {
  static const std::vector<ToolSpec> tools = MakeProfileTools();
  return tools;
}

Status CheckToolReads(const ToolSpec& tool, ProfileFormat format, std::string_view file_name) {
  if (tool.formats.Has(format)) return Status::Ok();
  std::string reads;
  for (ProfileFormat f : {kXPlane, kKinetoTrace, kTfprofProfile, kLegacyToolFile}) {
    if (!tool.formats.Has(f)) continue;
    const std::string what = f == kXPlane          ? "a TensorFlow/JAX xplane profile (.xplane.pb)"
                             : f == kTfprofProfile ? "a tfprof profile (ProfileProto)"
                                                   : "a " + std::string(ProfileFormatName(f));
    reads += (reads.empty() ? "" : " or ") + what;
  }
  return InvalidArgument(tool.name + " needs " + reads + "; " + std::string(file_name) + " is " +
                         (format == kUnknown ? std::string("of no format tbprof reads")
                                             : "a " + std::string(ProfileFormatName(format))));
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

size_t ToolMenuRank(std::string_view tool) {
  const ToolSpec* spec = FindProfileTool(tool);
  return spec == nullptr ? kUnranked : spec->menu_rank;
}

}  // namespace tbprof
