// Which tools and hosts a run offers, by xprof's rules: tools from the files present and the converters registered,
// hosts from file names with the ALL_HOSTS rules of each tool.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "convert/tools/artifact_cache.h"
#include "plugin/logdir.h"

namespace tbprof {

inline constexpr std::string_view kAllHosts = "ALL_HOSTS";

// The tool table's host rules (convert/tools/tool_registry.h).
bool SupportsAllHosts(std::string_view tool);
bool IsAllHostsOnly(std::string_view tool);
// Tools whose /data honours `hosts=a,b` (the trace viewers).
bool SelectsHostsByList(std::string_view tool);
// Whether `tool` on this run answers for all hosts only. A run of PyTorch
// traces offers each file (a worker's profiling span) on its own even for the
// tools xprof answers for all hosts only: spans of one worker are not hosts
// of one step, and torch-tb-profiler showed them one at a time.
bool AllHostsOnlyInRun(std::string_view tool, const RunContents& contents);
// Whether a PyTorch (Kineto) trace holds the data `tool` reads; /run_tools
// does not list the others for a run whose first file is such a trace.
bool PyTorchTraceCanFill(std::string_view tool);

// Legacy per-tool files: servable when their suffix is in the legacy table;
// the tool they serve; whether `tag` asks for them (today's name or the old
// frontend's alias).
bool IsServableLegacy(const RunFile& f);
std::string LegacyToolOf(const RunFile& f);
bool LegacyFileServesTag(const RunFile& f, std::string_view tag);

// /run_tools: registered xplane tools (conditional ones checked on the first
// XSpace, loaded through `cache`) and servable legacy files, in xprof's order.
std::vector<std::string> ToolsOfRun(const RunContents& contents, ArtifactCache* cache);

// /hosts for `tag` (trailing '^' already stripped), sorted.
std::vector<std::string> HostsOfRun(const RunContents& contents, std::string_view tag);

}  // namespace tbprof
