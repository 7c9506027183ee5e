// xprof's tool-list test (openxla/xprof), with the run holding one XSpace
// built as the test builds it, read through /run_tools' ToolsOfRun.
//
// Ported scenarios (file :: test — status — result):
// xprof/convert/xplane_to_tool_names_test.cc
//   ToolsForTpuWithoutHloModule, ToolsForTpuWithHloModule, ToolsForGpuWithoutHloModule, ToolsForGpuWithHloModule
//       in part  pass: kernel_stats exactly when a GPU plane is present, graph_viewer and memory_viewer exactly
//                when the metadata plane holds an HLO module, and xprof's other tools. Deliberate differences,
//                checked as tbprof's answer:
//                - op_profile, hlo_stats and roofline_model are listed only with an HLO module (xprof lists them
//                  always; without a module they have nothing to show);
//                - tf_data_bottleneck_analysis is listed (tbprof's UI has a page for it; xprof's has none);
//                - the trace viewer is the streaming trace_viewer@ (xprof's test lists trace_viewer because its
//                  session has no run directory, the Vertex AI case; with one, xprof lists trace_viewer@ too).
//   ToolsForTpuWithDcnCollectiveStats, ToolsForTpuWithPerfCounters
//       left out: megascale_stats and perf_counters are not tbprof tools
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "convert/tools/artifact_cache.h"
#include "plugin/catalogue/run_tools.h"
#include "proto/xspace_builder.h"
#include "tests/testing/hlo_fixtures.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

std::vector<std::string> ToolsOf(const std::string& device_plane, bool has_hlo_module) {
  tensorflow::profiler::XSpace space;
  AddPlane(space, device_plane);
  if (has_hlo_module) hlo_test::AddMetadataPlane(space, {{1, hlo_test::ChainModule("module", 1)}});
  const std::string name = device_plane.substr(1, 10) + (has_hlo_module ? "_hlo" : "");
  RunContents run;
  run.profiles.push_back({"hostname", "xplane.pb", ops_test::WriteSpace(space, name), "", ProfileFormat::kXPlane});
  std::vector<std::string> tools = ToolsOfRun(run);
  std::sort(tools.begin(), tools.end());
  return tools;
}

TEST(XprofToolNamesPorts, ToolsList) {
  struct Case {
    const char* test;
    const char* plane;
    bool has_hlo_module;
    std::vector<std::string> xprof_extra;  // what xprof's test adds to its base list
  };
  const Case cases[] = {
      {"ToolsForTpuWithoutHloModule", "/device:TPU:", false, {}},
      {"ToolsForTpuWithHloModule", "/device:TPU:", true, {"graph_viewer", "memory_viewer"}},
      {"ToolsForGpuWithoutHloModule", "/device:GPU:", false, {"kernel_stats"}},
      {"ToolsForGpuWithHloModule", "/device:GPU:", true, {"kernel_stats", "graph_viewer", "memory_viewer"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.test);
    std::vector<std::string> want = {"trace_viewer@",  "overview_page", "input_pipeline_analyzer",
                                     "framework_op_stats", "memory_profile", "tf_data_bottleneck_analysis"};
    if (c.has_hlo_module) want.insert(want.end(), {"op_profile", "hlo_stats", "roofline_model"});
    want.insert(want.end(), c.xprof_extra.begin(), c.xprof_extra.end());
    want.push_back("tfprof");  // tbprof's own tool, not xprof's: every xplane run can fill it
    // tbprof's own too: HTA's analyses, wherever there is a GPU's work.
    if (std::string_view(c.plane) == "/device:GPU:") want.push_back("trace_analysis");
    std::sort(want.begin(), want.end());
    EXPECT_EQ(ToolsOf(c.plane, c.has_hlo_module), want);
  }
}

}  // namespace
}  // namespace tbprof
