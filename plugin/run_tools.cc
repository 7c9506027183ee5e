#include "plugin/run_tools.h"

#include <algorithm>

#include "convert/tools/cached_loads.h"
#include "convert/tools/tfprof_tools.h"
#include "convert/tools/tool_registry.h"
#include "convert/model/xspace_model.h"

namespace tbprof {
namespace {

void SortTools(std::vector<std::string>& tools) {
  std::sort(tools.begin(), tools.end(), [](const std::string& a, const std::string& b) {
    size_t ra = ToolListingRank(a), rb = ToolListingRank(b);
    return ra != rb ? ra < rb : a < b;
  });
}

bool IsPyTorchFile(const RunFile& f) { return f.suffix.starts_with("pt.trace.json"); }

}  // namespace

bool SupportsAllHosts(std::string_view tool) {
  const ToolSpec* t = FindProfileTool(tool);
  return t != nullptr && t->hosts_entry != AllHostsEntry::kNone;
}
bool IsAllHostsOnly(std::string_view tool) {
  const ToolSpec* t = FindProfileTool(tool);
  return t != nullptr && t->hosts_entry == AllHostsEntry::kOnly;
}
bool SelectsHostsByList(std::string_view tool) {
  const ToolSpec* t = FindProfileTool(tool);
  return t != nullptr && t->host_list;
}


bool AllHostsOnlyInRun(std::string_view tool, const RunContents& contents) {
  for (const RunFile& f : contents.profiles) {
    if (IsPyTorchFile(f)) return false;
  }
  return IsAllHostsOnly(tool);
}

bool PyTorchTraceCanFill(std::string_view tool) {
  // tf.data's iterator events exist only in TensorFlow profiles; a PyTorch
  // run's input time is in input_pipeline_analyzer (DataLoader time).
  return tool != "tf_data_bottleneck_analysis";
}

bool IsServableLegacy(const RunFile& f) { return FindLegacySuffix(f.suffix) != nullptr; }

std::string LegacyToolOf(const RunFile& f) {
  const LegacyToolSpec* l = FindLegacySuffix(f.suffix);
  return l == nullptr ? std::string() : l->tool;
}

bool LegacyFileServesTag(const RunFile& f, std::string_view tag) {
  const LegacyToolSpec* l = FindLegacySuffix(f.suffix);
  return l != nullptr && (l->tool == tag || l->alias == tag);
}

std::vector<std::string> ToolsOfRun(const RunContents& contents, ArtifactCache* cache) {
  std::vector<std::string> tools;
  auto add = [&](const std::string& t) {
    if (std::find(tools.begin(), tools.end(), t) == tools.end()) tools.push_back(t);
  };
  if (!contents.profiles.empty()) {
    // xprof decides from the first XSpace only, and loads it only when a
    // tool's listing depends on its data.
    std::shared_ptr<const XSpaceModel> model;
    bool model_tried = false;
    const bool pytorch = IsPyTorchFile(contents.profiles.front());
    for (const ToolSpec& t : ProfileTools()) {
      if (pytorch && !PyTorchTraceCanFill(t.name)) continue;
      bool listed = t.listing == Listing::kAlways;
      if (t.listing == Listing::kIfDataPresent && t.listed_if) {
        if (!model_tried) {
          model_tried = true;
          auto m = LoadModelCached(contents.profiles.front().path, cache);
          if (m.ok()) model = *m;
        }
        listed = model && t.listed_if(*model);
      }
      if (listed) add(t.name);
    }
  }
  for (const RunFile& f : contents.legacy) {
    if (IsServableLegacy(f)) add(LegacyToolOf(f));
  }
  if (!contents.tfprof_profiles.empty()) add(std::string(kTfprofToolName));
  SortTools(tools);
  return tools;
}

std::vector<std::string> HostsOfRun(const RunContents& contents, std::string_view tag) {
  std::vector<std::string> hosts;
  if (!contents.profiles.empty()) {
    for (const RunFile& f : contents.profiles) {
      if (!f.host.empty() && std::find(hosts.begin(), hosts.end(), f.host) == hosts.end()) hosts.push_back(f.host);
    }
    const ToolSpec* spec = FindProfileTool(tag);
    if (hosts.size() < 2 && spec != nullptr && spec->offered_with_several_hosts_only) return {};
    if (hosts.size() > 1) {
      if (AllHostsOnlyInRun(tag, contents)) {
        hosts = {std::string(kAllHosts)};
      } else if (SupportsAllHosts(tag)) {
        hosts.emplace_back(kAllHosts);
      }
    }
  } else if (!contents.tfprof_profiles.empty() && (tag.empty() || tag == kTfprofToolName)) {
    // tfprof's files: each profile_<N> (one dump step) on its own.
    for (const RunFile& f : contents.tfprof_profiles) hosts.push_back(f.host);
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
