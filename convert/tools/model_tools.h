// Tools computed straight from loaded models rather than from OpStats:
// memory_profile and tf_data_bottleneck_analysis.
#pragma once

#include "convert/tools/tool_io.h"

namespace tbprof {

// Tool memory_profile: exactly one selected host (xprof serves one host per
// request); param `max_num_snapshots` overrides the timeline size.
StatusOr<ToolOutput> MemoryProfileTool(const ToolInput& input);

// Tool tf_data_bottleneck_analysis: every selected host, combined.
StatusOr<ToolOutput> TfDataBottleneckAnalysisTool(const ToolInput& input);

}  // namespace tbprof
