#include "convert/tools/tool_registry.h"

#include <charconv>

#include "convert/analysis/xspace_to_memory_profile.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/model_tools.h"
#include "convert/tools/ops_tools.h"
#include "convert/tools/trace_viewer_tools.h"
#include "convert/tools/xla_tools.h"
#include "convert/xplane/xspace_reader.h"

namespace tbprof {

const std::vector<ToolSpec>& XPlaneTools() {
  // Converters register here as they land (see each tool's header).
  static const std::vector<ToolSpec> tools = [] {
    std::vector<ToolSpec> t;
    t.push_back({"overview_page", OverviewPageTool, true});
    t.push_back({"input_pipeline_analyzer", InputPipelineTool, true});
    t.push_back({"framework_op_stats", FrameworkOpStatsTool, true});
    t.push_back({"tensorflow_stats", FrameworkOpStatsTool, true});
    t.push_back({"kernel_stats", KernelStatsTool, true});
    t.push_back({"pod_viewer", PodViewerTool, true});
    t.push_back({"memory_profile", MemoryProfileTool, false});
    t.push_back({"tf_data_bottleneck_analysis", TfDataBottleneckAnalysisTool, true});
    // HLO op tools: combine the selected hosts op by op (xprof's converters take every XSpace).
    t.push_back({"hlo_stats", HloStatsTool, true});
    t.push_back({"op_profile", OpProfileTool, true});
    t.push_back({"roofline_model", RooflineModelTool, true});
    // One program from one host's file: programs are not combined across hosts.
    t.push_back({"memory_viewer", MemoryViewerTool, false});
    t.push_back({"graph_viewer", GraphViewerTool, false});
    t.push_back({"trace_viewer@", StreamingTraceViewerTool, /*all_hosts=*/false});  // several hosts via hosts=
    t.push_back({"trace_viewer", TraceViewerTool, /*all_hosts=*/false});
    return t;
  }();
  return tools;
}

const std::vector<LegacyToolSpec>& LegacyConverters() {
  // Legacy .pb converters register here; legacy JSON files are served as they are.
  static const std::vector<LegacyToolSpec> converters = [] {
    std::vector<LegacyToolSpec> c;
    c.push_back({"overview_page", "overview_page.pb", LegacyOverviewPage});
    c.push_back({"input_pipeline_analyzer", "input_pipeline.pb", LegacyInputPipeline});
    c.push_back({"framework_op_stats", "tensorflow_stats.pb", LegacyTfStats});
    c.push_back({"kernel_stats", "kernel_stats.pb", LegacyKernelStats});
    return c;
  }();
  return converters;
}

const ToolSpec* FindXPlaneTool(std::string_view name) {
  for (const ToolSpec& t : XPlaneTools()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

int64_t ParamInt(const ToolParams& p, const std::string& key, int64_t fallback) {
  auto it = p.find(key);
  if (it == p.end()) return fallback;
  int64_t v = 0;
  const std::string& s = it->second;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size() ? v : fallback;
}

double ParamDouble(const ToolParams& p, const std::string& key, double fallback) {
  auto it = p.find(key);
  if (it == p.end()) return fallback;
  const std::string& s = it->second;
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size() && v == v ? v : fallback;
}

std::string ParamStr(const ToolParams& p, const std::string& key, const std::string& fallback) {
  auto it = p.find(key);
  return it == p.end() ? fallback : it->second;
}

}  // namespace tbprof
