#include "plugin/run_tools.h"

#include <algorithm>
#include <set>

#include "convert/analysis/hlo_module.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/tool_registry.h"
#include "convert/xplane/xspace_model.h"

namespace tbprof {
namespace {

// Tool sets of xprof (XP-HEAD profile_plugin.py).
const std::set<std::string, std::less<>> kAllHostsSupported = {
    "input_pipeline_analyzer", "framework_op_stats", "kernel_stats", "overview_page", "pod_viewer", "megascale_stats"};
const std::set<std::string, std::less<>> kAllHostsOnly = {"overview_page", "pod_viewer", "smart_suggestion"};
// xprof's run_tools order; tools not listed follow in name order.
const std::vector<std::string_view> kToolSortOrder = {
    "overview_page", "trace_viewer", "trace_viewer@", "graph_viewer", "op_profile", "hlo_op_profile",
    "input_pipeline_analyzer", "input_pipeline", "kernel_stats", "memory_profile", "memory_viewer",
    "roofline_model", "perf_counters", "pod_viewer", "framework_op_stats", "tensorflow_stats", "hlo_op_stats",
    "hlo_stats", "inference_profile", "megascale_stats"};
// Listed for every xplane run (xplane_to_tool_names.cc), when registered.
const std::vector<std::string_view> kAlwaysListed = {"overview_page", "input_pipeline_analyzer",
                                                     "framework_op_stats", "memory_profile", "op_profile",
                                                     "hlo_stats", "roofline_model"};
// Servable but deliberately not listed by xprof.
const std::set<std::string, std::less<>> kNeverListed = {"pod_viewer", "inference_profile"};
// Listed only when the first XSpace shows the data they need.
const std::set<std::string, std::less<>> kConditional = {"kernel_stats", "memory_viewer", "graph_viewer",
                                                         "megascale_stats", "perf_counters", "utilization_viewer"};
void SortTools(std::vector<std::string>& tools) {
  auto rank = [](const std::string& t) {
    auto it = std::find(kToolSortOrder.begin(), kToolSortOrder.end(), t);
    return static_cast<size_t>(it - kToolSortOrder.begin());
  };
  std::sort(tools.begin(), tools.end(), [&](const std::string& a, const std::string& b) {
    size_t ra = rank(a), rb = rank(b);
    return ra != rb ? ra < rb : a < b;
  });
}

}  // namespace

bool SupportsAllHosts(std::string_view tool) { return kAllHostsSupported.count(tool) > 0; }
bool IsAllHostsOnly(std::string_view tool) { return kAllHostsOnly.count(tool) > 0; }
bool SelectsHostsByList(std::string_view tool) { return tool == "trace_viewer" || tool == "trace_viewer@"; }

bool IsServableLegacy(const RunFile& f) {
  for (const LegacyToolSpec& c : LegacyConverters()) {
    if (c.suffix == f.suffix) return true;
  }
  return f.suffix.ends_with(".json") || f.suffix.ends_with(".json.gz");
}

// Tool name of a legacy file: the converter's if one is registered, else the table's.
std::string LegacyToolOf(const RunFile& f) {
  for (const LegacyToolSpec& c : LegacyConverters()) {
    if (c.suffix == f.suffix) return c.tool;
  }
  for (const LegacySuffix& s : LegacySuffixes()) {
    if (s.suffix == f.suffix) return std::string(s.tool);
  }
  return {};
}

bool LegacyFileServesTag(const RunFile& f, std::string_view tag) {
  if (LegacyToolOf(f) == tag) return true;
  for (const LegacySuffix& s : LegacySuffixes()) {
    if (s.suffix == f.suffix && s.alias == tag) return true;
  }
  return false;
}

std::vector<std::string> ToolsOfRun(const RunContents& contents, ArtifactCache* cache) {
  std::vector<std::string> tools;
  auto add = [&](const std::string& t) {
    if (std::find(tools.begin(), tools.end(), t) == tools.end()) tools.push_back(t);
  };
  if (!contents.xplanes.empty()) {
    bool needs_model = false;
    for (const ToolSpec& t : XPlaneTools()) needs_model |= kConditional.count(t.name) > 0;
    // xprof decides from the first XSpace only.
    std::shared_ptr<const XSpaceModel> model;
    if (needs_model) {
      auto m = LoadModelCached(contents.xplanes.front().path, cache);
      if (m.ok()) model = *m;
    }
    auto has_plane_prefix = [&](std::string_view prefix) {
      return model && !model->FindPlanesWithPrefix(prefix).empty();
    };
    auto plane_has_stat_metadata = [&](const XPlaneModel* p, std::string_view stat) {
      StrId id = model->Find(stat);
      if (p == nullptr || id == kNoStr) return false;
      for (const auto& [name, unused] : p->stat_metadata) {
        if (name == id) return true;
      }
      return false;
    };
    auto conditional_holds = [&](const std::string& tool) {
      if (!model) return false;
      if (tool == "kernel_stats") return has_plane_prefix("/device:GPU:");
      if (tool == "memory_viewer" || tool == "graph_viewer") {
        return HasHloModules(*model);  // modules are the metadata plane's `Hlo Proto` stats
      }
      if (tool == "megascale_stats") return model->FindPlane("/device:CUSTOM:Megascale Trace") != nullptr;
      for (const XPlaneModel* p : model->FindPlanesWithPrefix("/device:TPU:")) {
        if (plane_has_stat_metadata(p, "counter_value")) return true;  // perf_counters, utilization_viewer
      }
      return false;
    };
    if (FindXPlaneTool("trace_viewer@") != nullptr) {
      add("trace_viewer@");
    } else if (FindXPlaneTool("trace_viewer") != nullptr) {
      add("trace_viewer");
    }
    for (const ToolSpec& t : XPlaneTools()) {
      if (t.name == "trace_viewer" || t.name == "trace_viewer@" || kNeverListed.count(t.name)) continue;
      bool always = std::find(kAlwaysListed.begin(), kAlwaysListed.end(), t.name) != kAlwaysListed.end();
      if (always || !kConditional.count(t.name) || conditional_holds(t.name)) add(t.name);
    }
  }
  for (const RunFile& f : contents.legacy) {
    if (IsServableLegacy(f)) add(LegacyToolOf(f));
  }
  SortTools(tools);
  return tools;
}

std::vector<std::string> HostsOfRun(const RunContents& contents, std::string_view tag) {
  std::vector<std::string> hosts;
  if (!contents.xplanes.empty()) {
    for (const RunFile& f : contents.xplanes) {
      if (!f.host.empty() && std::find(hosts.begin(), hosts.end(), f.host) == hosts.end()) hosts.push_back(f.host);
    }
    if (hosts.size() > 1) {
      if (IsAllHostsOnly(tag)) {
        hosts = {std::string(kAllHosts)};
      } else if (SupportsAllHosts(tag)) {
        hosts.emplace_back(kAllHosts);
      }
    }
  } else {
    // Legacy runs (TBP ≤2.18): the hosts that have a file for this tool.
    for (const RunFile& f : contents.legacy) {
      if ((tag.empty() || LegacyFileServesTag(f, tag)) && IsServableLegacy(f) &&
          std::find(hosts.begin(), hosts.end(), f.host) == hosts.end()) {
        hosts.push_back(f.host);
      }
    }
  }
  std::sort(hosts.begin(), hosts.end());
  return hosts;
}

}  // namespace tbprof
