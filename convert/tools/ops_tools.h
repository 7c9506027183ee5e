// Entry points of the OpStats-based tools for the tool registry: the xplane
// converters (overview_page, input_pipeline_analyzer, framework_op_stats /
// tensorflow_stats, kernel_stats, pod_viewer) and the legacy per-tool .pb files.
#pragma once

#include <string>

#include "convert/base/file_name.h"
#include "convert/tools/tool_io.h"
#include "convert/xplane/xspace_reader.h"

namespace tbprof {

StatusOr<ToolOutput> OverviewPageTool(const ToolInput& in);
StatusOr<ToolOutput> InputPipelineTool(const ToolInput& in);
// CSV of the with-idle table when ToolInput::csv is set.
StatusOr<ToolOutput> FrameworkOpStatsTool(const ToolInput& in);
StatusOr<ToolOutput> KernelStatsTool(const ToolInput& in);
StatusOr<ToolOutput> PodViewerTool(const ToolInput& in);

// Reads and parses one legacy tool proto file (gzip'ed or not).
template <typename Proto>
StatusOr<Proto> ReadLegacyProto(const std::string& path) {
  ASSIGN_OR_RETURN(auto bytes, ReadFileMaybeGzip(path));
  Proto proto;
  if (!proto.ParseFromString(bytes)) {
    return DamagedProfileFile(path, bytes.size(), "not a readable " + Proto::descriptor()->full_name());
  }
  return proto;
}

StatusOr<ToolOutput> LegacyOverviewPage(const std::string& path, const ToolInput& in);
StatusOr<ToolOutput> LegacyInputPipeline(const std::string& path, const ToolInput& in);
StatusOr<ToolOutput> LegacyTfStats(const std::string& path, const ToolInput& in);
StatusOr<ToolOutput> LegacyKernelStats(const std::string& path, const ToolInput& in);

}  // namespace tbprof
