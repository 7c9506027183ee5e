// Which tools and hosts a run offers, by xprof's rules, and the files that
// serve them: tools from the run's format (ToolSpec::formats), the files'
// names and headers (never a model), hosts from file names with the
// ALL_HOSTS rules of each tool.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "convert/tools/compare_tools.h"
#include "convert/tools/tool_registry.h"
#include "plugin/catalogue/logdir.h"

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

// The format of the run's whole profiles (its first profile's, as xprof
// decides from the first XSpace), else kTfprofProfile for a run of tfprof
// profiles, else kLegacyToolFile for a legacy run, else kUnknown.
ProfileFormat RunFormat(const RunContents& contents);

// Legacy per-tool files: servable when their suffix is in the legacy table;
// the tool they serve; whether `tag` asks for them (today's name or the old
// frontend's alias).
bool IsServableLegacy(const RunFile& f);
std::string LegacyToolOf(const RunFile& f);
bool LegacyFileServesTag(const RunFile& f, std::string_view tag);

// /run_tools: the tools the run's format can fill (conditional ones checked
// on the summary of the first profile that can be summarised, read from its
// structure) and servable legacy files, in xprof's order.
std::vector<std::string> ToolsOfRun(const RunContents& contents);

// /hosts for `tag` (trailing '^' already stripped), sorted.
std::vector<std::string> HostsOfRun(const RunContents& contents, std::string_view tag);

// The files compare reads of one run: `host`'s, or for none (or ALL_HOSTS)
// every host's; a PyTorch run's first trace stands for the run (spans are
// compared one at a time, as torch-tb-profiler showed them), and `host` is set
// to it. A run without profiles gives the legacy files of the host named, or
// of its first host that has them. `files` (when given) receives the files
// read. NotFound when none is found.
StatusOr<CompareSide> CompareSideOfRun(const RunContents& contents, std::string& host,
                                       std::vector<const RunFile*>* files = nullptr);

}  // namespace tbprof
