#include "harness/variant_comparison.h"

#include "convert/analysis/compare/comparison_output.h"
#include "convert/tools/artifact_cache.h"
#include "convert/tools/compare_tools.h"

namespace tbprof::harness {

std::string VariantComparisons(const std::vector<VariantReport>& reports, size_t top_ops) {
  std::vector<const VariantReport*> profiled;
  for (const VariantReport& r : reports) {
    if (!r.run.xplane_path.empty()) profiled.push_back(&r);
  }
  if (profiled.size() < 2) return "";
  // The host-only pipelines have no device, HLO or memory figures to compare.
  const std::set<std::string> sections = {"input_pipeline_analyzer", "framework_op_stats",
                                          "tf_data_bottleneck_analysis"};
  ArtifactCache cache(size_t{1} << 30);
  auto figures_of = [&](const VariantReport& r) {
    return LoadRunFigures(CompareSide{{r.run.variant}, {r.run.xplane_path}, {}, {}}, sections, &cache);
  };
  const VariantReport& base = *profiled.front();
  auto base_figures = figures_of(base);
  std::string out;
  for (size_t i = 1; i < profiled.size(); ++i) {
    const VariantReport& variant = *profiled[i];
    out += "\n=== " + variant.run.variant + " compared with " + base.run.variant + " (tbprof compare " +
           base.run.xplane_path + " " + variant.run.xplane_path + ")\n";
    if (!base_figures.ok()) {
      out += "cannot read " + base.run.variant + ": " + base_figures.status().message() + "\n";
      continue;
    }
    auto figures = figures_of(variant);
    if (!figures.ok()) {
      out += "cannot read " + variant.run.variant + ": " + figures.status().message() + "\n";
      continue;
    }
    RunComparison c = CompareRuns(*base_figures, *figures, StepAlignment::kAverage);
    // Host-only pipelines leave most step categories at 0 in both runs: only what either run spent is shown.
    auto zero_in_both = [](const MetricRow& m) { return m.a == 0.0 && m.b == 0.0; };
    std::erase_if(c.steps, zero_in_both);
    std::erase_if(c.input_stages, zero_in_both);
    out += ComparisonToText(c, base.run.variant, variant.run.variant, top_ops);
  }
  return out;
}

}  // namespace tbprof::harness
