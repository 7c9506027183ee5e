// Entry points of the HLO tools: hlo_stats, op_profile, roofline_model,
// memory_viewer and graph_viewer.
// All three read one HLO op table per xplane file (device time per HLO op,
// FLOPs and bytes, the device's roofs), computed once per file identity and
// shared through the cache; several hosts are combined op by op.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "convert/analysis/hlo/xspace_to_hlo_stats.h"
#include "convert/tools/tool_io.h"

namespace tbprof {

// The HLO op table of one file (the model is loaded keeping only the stats it reads,
// unless the cache holds the whole model already).
StatusOr<std::shared_ptr<const HloOpDb>> LoadHloOpDbCached(const std::string& xplane_path, ArtifactCache* cache);
// The HLO op table of the input's files: one host's, or several combined op by op.
StatusOr<std::shared_ptr<const HloOpDb>> HloOpDbForPaths(const ToolInput& in);

// CSV when ToolInput::csv is set (hlo_stats, roofline_model).
StatusOr<ToolOutput> HloStatsTool(const ToolInput& in);
StatusOr<ToolOutput> OpProfileTool(const ToolInput& in);
StatusOr<ToolOutput> RooflineModelTool(const ToolInput& in);

// One program, chosen by `module_name` (its name, or "name(program id)") or
// `program_id`; without either, the first module by name.
// memory_viewer: xprof's PreprocessResult JSON; `memory_space` picks the color (0, HBM, by default).
StatusOr<ToolOutput> MemoryViewerTool(const ToolInput& in);
// graph_viewer: `type=graph` (the default) draws the neighbourhood of
// `node_name` as DOT (`format=dot`, the default) or as our node/edge JSON
// (`format=json`); `type=short_txt|long_txt` gives the module as text.
StatusOr<ToolOutput> GraphViewerTool(const ToolInput& in);

}  // namespace tbprof
