#include "convert/tool_registry.h"

#include <algorithm>
#include <charconv>

#include "convert/ops_tools.h"
#include "convert/trace_viewer_tools.h"
#include "convert/xspace_reader.h"
#include "convert/xspace_to_memory_profile.h"
#include "convert/xspace_to_tf_data_stats.h"

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

StatusOr<std::shared_ptr<const XSpaceModel>> LoadModelCached(const std::string& path, ArtifactCache* cache) {
  auto load = [&]() -> StatusOr<std::pair<std::shared_ptr<const XSpaceModel>, size_t>> {
    auto m = LoadXSpaceFile(path);
    if (!m.ok()) return m.status();
    size_t bytes = (*m)->MemoryBytes();
    return std::make_pair(std::shared_ptr<const XSpaceModel>(std::move(*m)), bytes);
  };
  if (cache == nullptr) {
    auto r = load();
    if (!r.ok()) return r.status();
    return r->first;
  }
  auto key = FileIdentityKey(path);
  if (!key.ok()) return key.status();
  return cache->Get<XSpaceModel>("model|" + *key, load);
}

std::shared_ptr<const XSpaceModel> PeekModelCached(const std::string& path, ArtifactCache* cache) {
  if (cache == nullptr) return nullptr;
  auto key = FileIdentityKey(path);
  return key.ok() ? cache->Peek<XSpaceModel>("model|" + *key) : nullptr;
}

std::optional<std::string> PercentDecode(std::string_view s, bool plus_is_space) {
  auto hex = [](char h) -> int {
    if (h >= '0' && h <= '9') return h - '0';
    if (h >= 'a' && h <= 'f') return h - 'a' + 10;
    if (h >= 'A' && h <= 'F') return h - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

StatusOr<ToolParams> ParseQuery(std::string_view query) {
  ToolParams params;
  size_t pos = 0;
  while (pos <= query.size()) {
    size_t amp = std::min(query.find('&', pos), query.size());
    std::string_view item = query.substr(pos, amp - pos);
    pos = amp + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    auto key = PercentDecode(item.substr(0, eq), true);
    auto value = PercentDecode(eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1), true);
    if (!key || !value) return InvalidArgument("malformed percent-encoding in the query string");
    params.emplace(std::move(*key), std::move(*value));  // first one wins
  }
  return params;
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
