// The `compare` tool: run B (the request's run) against a baseline run A,
// each read through the cache exactly as its single-run tools read it, so a
// comparison after both runs were opened costs only the matching.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "convert/analysis/compare/run_comparison.h"
#include "convert/tools/tool_io.h"

namespace tbprof {

// The files of one side of a comparison: xplane files (several hosts combine
// as ALL_HOSTS does), or, without them, legacy per-tool files.
// `step`: a step whose host events to compare too (HTA's trace diff of one
// iteration); it needs events, so xplane or PyTorch trace files.
struct CompareSide {
  std::vector<std::string> hosts;
  std::vector<std::string> profile_paths;
  std::vector<std::string> legacy_paths;
  std::optional<int64_t> step;
};

// The steps of a request or of the CLI's flags: `step` is B's, `base_step`
// A's, and either alone names both runs' step. Empty text: no step.
// InvalidArgument naming the parameter when one is not a whole number.
struct CompareSteps {
  std::optional<int64_t> a, b;
};
StatusOr<CompareSteps> CompareStepsOf(std::string_view base_step, std::string_view step);

// The single-run tools whose figures a comparison can hold.
const std::vector<std::string>& CompareSections();
// `tool=a,b` of a request (or --tool): the sections named, every one when
// empty; InvalidArgument naming an unknown one.
StatusOr<std::set<std::string>> CompareSectionsOf(std::string_view list);
// Whether compare reads a legacy file of this suffix.
bool CompareReadsLegacySuffix(std::string_view suffix);

// The figures of one side; a section its files cannot give stays null.
StatusOr<RunFigures> LoadRunFigures(const CompareSide& side, const std::set<std::string>& sections,
                                    ArtifactCache* cache);

// ToolInput's files are B, its base_* files A. Parameters: `align`
// (average, step_number, order), `tool` (sections), `run`, `host`,
// `base_run`, `base_host` (labels), `step`, `base_step` (CompareStepsOf). CSV when ToolInput::csv is set.
StatusOr<ToolOutput> CompareTool(const ToolInput& in);

}  // namespace tbprof
