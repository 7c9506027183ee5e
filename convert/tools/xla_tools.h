// Entry points of the HLO-op tools: hlo_stats, op_profile, roofline_model.
// All three read one HLO op table per xplane file (device time per HLO op,
// FLOPs and bytes, the device's roofs), computed once per file identity and
// shared through the cache; several hosts are combined op by op.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "convert/analysis/xspace_to_hlo_stats.h"
#include "convert/tools/tool_registry.h"

namespace tbprof {

// The HLO op table of one file (the model is loaded keeping only the stats it reads,
// unless the cache holds the whole model already).
StatusOr<std::shared_ptr<const HloOpDb>> LoadHloOpDbCached(const std::string& xplane_path, ArtifactCache* cache);

// CSV when params has "__csv"="1" (hlo_stats, roofline_model).
StatusOr<ToolOutput> HloStatsTool(const ToolInput& in);
StatusOr<ToolOutput> OpProfileTool(const ToolInput& in);
StatusOr<ToolOutput> RooflineModelTool(const ToolInput& in);

}  // namespace tbprof
