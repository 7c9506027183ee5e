// Presentation of pipeline runs: the comparison table, JSON, and an SVG bar
// chart of throughput per variant.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/pipeline_runner.h"
#include "harness/pipeline_validation.h"

namespace tbprof::harness {

struct VariantReport {
  VariantRun run;
  std::optional<PipelineAnalysis> analysis;  // absent: analysis not built in or failed
  std::string analysis_error;
  std::optional<CheckResult> check;  // only with --check
};

std::string ComparisonTable(const std::vector<VariantReport>& reports);
std::string ReportsToJson(const std::vector<VariantReport>& reports, const PipelineCosts& costs);
std::string ThroughputSvg(const std::vector<VariantReport>& reports);

}  // namespace tbprof::harness
