#include "convert/analysis/compare/run_comparison.h"

#include <algorithm>
#include <map>

#include "convert/analysis/compare/row_matching.h"

namespace tbprof {
namespace {

using tensorflow::profiler::GenericStepTimeBreakdown;
using tensorflow::profiler::InputPipelineAnalysisResult;
using tensorflow::profiler::PerGenericStepDetails;
using tensorflow::profiler::TpuStepTimeBreakdown;

using GenericSummaryOf = const tensorflow::profiler::StepSummary& (GenericStepTimeBreakdown::*)() const;
using StepFigureOf = double (PerGenericStepDetails::*)() const;

// The step-time categories, named as the input-pipeline page's columns mean
// them; each reads one run's average (from the breakdown) or one step's figure.
// A category that happens on a device (or launches work onto one) is unknown for a run without one (CPU_ONLY):
// the breakdown holds 0 there, which would read as "measured, none".
struct StepCategory {
  const char* name;
  GenericSummaryOf summary;
  StepFigureOf figure;
  StepFigureOf plus = nullptr;  // a second figure of the step the category adds up with `figure`
  bool needs_device = false;

  double average(const GenericStepTimeBreakdown& b) const { return (b.*summary)().average(); }
  double of_step(const PerGenericStepDetails& d) const {
    return plus == nullptr ? (d.*figure)() : (d.*figure)() + (d.*plus)();
  }
};

using B = GenericStepTimeBreakdown;
using D = PerGenericStepDetails;
constexpr StepCategory kStepCategories[] = {
    {"input_ms", &B::input_ms_summary, &D::host_wait_input_ms, &D::host_to_device_ms},
    {"host_compute_ms", &B::host_compute_ms_summary, &D::host_compute_ms},
    {"device_compute_ms", &B::device_compute_ms_summary, &D::device_compute_ms, nullptr, true},
    {"kernel_launch_ms", &B::host_prepare_ms_summary, &D::host_prepare_ms, nullptr, true},
    {"device_collectives_ms", &B::device_collectives_ms_summary, &D::device_collectives_ms, nullptr, true},
    {"device_to_device_ms", &B::device_to_device_ms_summary, &D::device_to_device_ms, nullptr, true},
    {"output_ms", &B::output_ms_summary, &D::output_ms},
    {"compile_ms", &B::host_compile_ms_summary, &D::host_compile_ms},
    {"other_ms", &B::unknown_time_ms_summary, &D::unknown_time_ms},
};

bool HasNoDevice(const InputPipelineAnalysisResult* r) { return r != nullptr && r->hardware_type() == "CPU_ONLY"; }

// The generic (non-TPU) steps of a result; empty when it has none or is a TPU result.
std::vector<PerGenericStepDetails> GenericSteps(const InputPipelineAnalysisResult* r) {
  std::vector<PerGenericStepDetails> steps;
  if (r == nullptr || r->tag()) return steps;
  for (const auto& any : r->step_details()) {
    PerGenericStepDetails d;
    if (any.UnpackTo(&d)) steps.push_back(std::move(d));
  }
  return steps;
}

// Step count, average step time and the averages of the categories. Without
// steps every figure is unknown; a TPU result has no generic breakdown.
std::vector<Figure> StepAverages(const InputPipelineAnalysisResult* r) {
  std::vector<Figure> figures(2 + std::size(kStepCategories));
  if (r == nullptr || r->step_details_size() == 0) return figures;
  figures[0] = r->step_details_size();
  figures[1] = r->step_time_summary().average();
  GenericStepTimeBreakdown breakdown;
  if (r->tag() || !r->step_time_breakdown().UnpackTo(&breakdown)) return figures;
  for (size_t i = 0; i < std::size(kStepCategories); ++i) {
    if (!(kStepCategories[i].needs_device && HasNoDevice(r))) figures[2 + i] = kStepCategories[i].average(breakdown);
  }
  return figures;
}

// A TPU step's breakdown (TpuStepTimeBreakdown), named after its fields; a
// TPU run's steps are split this way instead of by the generic categories.
constexpr std::pair<const char*, const tensorflow::profiler::StepSummary& (TpuStepTimeBreakdown::*)() const>
    kTpuStepCategories[] = {
        {"tc_compute_ms", &TpuStepTimeBreakdown::tc_compute_ms_summary},
        {"scv0_compute_ms", &TpuStepTimeBreakdown::scv0_compute_ms_summary},
        {"tc_infeed_ms", &TpuStepTimeBreakdown::tc_infeed_ms_summary},
        {"tc_outfeed_ms", &TpuStepTimeBreakdown::tc_outfeed_ms_summary},
        {"scv0_infeed_ms", &TpuStepTimeBreakdown::scv0_infeed_ms_summary},
        {"tc_idle_ms", &TpuStepTimeBreakdown::tc_idle_ms_summary},
        {"host_transfer_ms", &TpuStepTimeBreakdown::host_transfer_ms_summary},
};

// The averages of a TPU result's breakdown; unknown for a non-TPU result or one without steps.
std::vector<Figure> TpuStepAverages(const InputPipelineAnalysisResult* r) {
  std::vector<Figure> figures(std::size(kTpuStepCategories));
  TpuStepTimeBreakdown breakdown;
  if (r == nullptr || !r->tag() || r->step_details_size() == 0 || !r->step_time_breakdown().UnpackTo(&breakdown)) {
    return figures;
  }
  for (size_t i = 0; i < std::size(kTpuStepCategories); ++i) {
    figures[i] = (breakdown.*kTpuStepCategories[i].second)().average();
  }
  return figures;
}

std::vector<MetricRow> StepRows(const InputPipelineAnalysisResult* a, const InputPipelineAnalysisResult* b) {
  std::vector<Figure> fa = StepAverages(a), fb = StepAverages(b);
  std::vector<MetricRow> rows;
  rows.push_back({"steps", fa[0], fb[0]});
  rows.push_back({"step_time_ms", fa[1], fb[1]});
  for (size_t i = 0; i < std::size(kStepCategories); ++i) rows.push_back({kStepCategories[i].name, fa[2 + i], fb[2 + i]});
  // The TPU rows only where a run is a TPU run: they are unknown for every other.
  if ((a != nullptr && a->tag()) || (b != nullptr && b->tag())) {
    std::vector<Figure> ta = TpuStepAverages(a), tb = TpuStepAverages(b);
    for (size_t i = 0; i < std::size(kTpuStepCategories); ++i) rows.push_back({kTpuStepCategories[i].first, ta[i], tb[i]});
  }
  return rows;
}

// Two PyTorch runs' step rows: step count, step time and each of
// torch-tb-profiler's categories, averaged over the steps (ms).
std::vector<MetricRow> TorchStepRows(const TorchStepTable& a, const TorchStepTable& b) {
  auto averages = [](const TorchStepTable& t) {
    std::vector<Figure> f(2 + t.categories.size());
    if (t.category_ms.empty()) return f;
    const double n = static_cast<double>(t.category_ms.size());
    double step = 0;
    std::vector<double> sums(t.categories.size(), 0);
    for (const std::vector<double>& row : t.category_ms) {
      for (size_t c = 0; c < row.size(); ++c) {
        sums[c] += row[c];
        step += row[c];
      }
    }
    f[0] = n;
    f[1] = step / n;
    for (size_t c = 0; c < sums.size(); ++c) f[2 + c] = sums[c] / n;
    return f;
  };
  std::vector<Figure> fa = averages(a), fb = averages(b);
  std::vector<MetricRow> rows = {{"steps", fa[0], fb[0]}, {"step_time_ms", fa[1], fb[1]}};
  for (size_t c = 0; c < a.categories.size() && c < b.categories.size(); ++c) {
    rows.push_back({a.categories[c], fa[2 + c], fb[2 + c]});
  }
  return rows;
}

// Why a run's step figures are unknown (empty when they are known).
std::string StepNote(const InputPipelineAnalysisResult* r) {
  if (r == nullptr) return "the run gives no step analysis (no xplane, input_pipeline or overview_page file)";
  if (r->step_details_size() == 0) {
    return "no step was measured in the run: its profile marks no steps (e.g. inference, or a program without "
           "step annotations), so step time and its breakdown cannot be computed";
  }
  return "";
}

std::string StepLabel(const PerGenericStepDetails& d) {
  return d.step_name().empty() ? std::to_string(d.step_number()) : d.step_name();
}

// `device_a` / `device_b`: whether that run has a device (its device categories are unknown otherwise).
std::vector<MetricRow> StepPairMetrics(const PerGenericStepDetails* a, const PerGenericStepDetails* b, bool device_a,
                                       bool device_b) {
  auto figure = [](const PerGenericStepDetails* d, auto&& read) -> Figure {
    if (d == nullptr) return std::nullopt;
    return read(*d);
  };
  std::vector<MetricRow> rows;
  rows.push_back({"step_time_ms", figure(a, [](const auto& d) { return d.step_time_ms(); }),
                  figure(b, [](const auto& d) { return d.step_time_ms(); })});
  for (const StepCategory& c : kStepCategories) {
    auto of_step = [&c](const PerGenericStepDetails& d) { return c.of_step(d); };
    rows.push_back({c.name, figure(c.needs_device && !device_a ? nullptr : a, of_step),
                    figure(c.needs_device && !device_b ? nullptr : b, of_step)});
  }
  return rows;
}

StepPair MakeStepPair(const PerGenericStepDetails* a, const PerGenericStepDetails* b, bool device_a, bool device_b) {
  StepPair pair;
  if (a != nullptr) {
    pair.number_a = a->step_number();
    pair.name_a = StepLabel(*a);
  }
  if (b != nullptr) {
    pair.number_b = b->step_number();
    pair.name_b = StepLabel(*b);
  }
  pair.metrics = StepPairMetrics(a, b, device_a, device_b);
  return pair;
}

std::vector<StepPair> PairSteps(const InputPipelineAnalysisResult* ra, const InputPipelineAnalysisResult* rb,
                                StepAlignment alignment) {
  std::vector<StepPair> pairs;
  std::vector<PerGenericStepDetails> a = GenericSteps(ra), b = GenericSteps(rb);
  if (alignment == StepAlignment::kAverage || a.empty() || b.empty()) return pairs;
  const bool device_a = !HasNoDevice(ra), device_b = !HasNoDevice(rb);
  if (alignment == StepAlignment::kOrder) {
    for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
      pairs.push_back(MakeStepPair(i < a.size() ? &a[i] : nullptr, i < b.size() ? &b[i] : nullptr, device_a, device_b));
    }
    return pairs;
  }
  // By step number, in step-number order; a number in one run only pairs with nothing.
  std::map<int, std::pair<const PerGenericStepDetails*, const PerGenericStepDetails*>> by_number;
  for (const auto& d : a) by_number[d.step_number()].first = &d;
  for (const auto& d : b) by_number[d.step_number()].second = &d;
  for (const auto& [number, both] : by_number) {
    pairs.push_back(MakeStepPair(both.first, both.second, device_a, device_b));
  }
  return pairs;
}

std::vector<MetricRow> InputStageRows(const InputPipelineAnalysisResult* a, const InputPipelineAnalysisResult* b) {
  using tensorflow::profiler::InputTimeBreakdown;
  // A result without steps analysed no input time, and one without input ops
  // (a PyTorch trace's DataLoader, a job whose input is not tf.data) cannot
  // split it into stages: its stages are unknown, not 0.
  auto stage = [](const InputPipelineAnalysisResult* r, double (InputTimeBreakdown::*read)() const) -> Figure {
    if (r == nullptr || r->step_details_size() == 0 || r->input_op_details_size() == 0) return std::nullopt;
    return (r->input_time_breakdown().*read)();
  };
  const std::pair<const char*, double (InputTimeBreakdown::*)() const> stages[] = {
      {"demanded_file_read_us", &InputTimeBreakdown::demanded_file_read_us},
      {"advanced_file_read_us", &InputTimeBreakdown::advanced_file_read_us},
      {"preprocessing_us", &InputTimeBreakdown::preprocessing_us},
      {"enqueue_us", &InputTimeBreakdown::enqueue_us},
      {"unclassified_non_enqueue_us", &InputTimeBreakdown::unclassified_non_enqueue_us}};
  std::vector<MetricRow> rows;
  for (const auto& [name, read] : stages) rows.push_back({name, stage(a, read), stage(b, read)});
  return rows;
}

std::string InputClassification(const InputPipelineAnalysisResult* r) {
  if (r == nullptr || r->tag()) return "";
  tensorflow::profiler::BottleneckAnalysis analysis;
  if (!r->recommendation().bottleneck_analysis().UnpackTo(&analysis)) return "";
  return analysis.input_classification();
}

TfDataSide TfDataSideOf(const TfDataStats* stats) {
  TfDataSide side;
  if (stats == nullptr) return side;
  side.known = true;
  side.input_bound = stats->is_input_bound;
  if (!stats->bottlenecks.empty()) {
    const TfDataBottleneck& top = stats->bottlenecks.front();
    side.iterator = top.iterator_long_name;
    side.bottleneck_type = top.bottleneck_type;
    side.latency_us = static_cast<double>(top.max_latency_ps) / 1e6;
  }
  return side;
}

}  // namespace

namespace {
constexpr std::string_view kAlignmentNames[] = {"average", "step_number", "order"};  // in StepAlignment's order
}  // namespace

std::optional<StepAlignment> StepAlignmentFromName(std::string_view name) {
  if (name.empty()) return StepAlignment::kAverage;
  for (size_t i = 0; i < std::size(kAlignmentNames); ++i) {
    if (name == kAlignmentNames[i]) return static_cast<StepAlignment>(i);
  }
  return std::nullopt;
}

std::string_view StepAlignmentName(StepAlignment alignment) {
  return kAlignmentNames[static_cast<size_t>(alignment)];
}

RunComparison CompareRuns(const RunFigures& a, const RunFigures& b, StepAlignment alignment) {
  RunComparison c;
  c.alignment = alignment;
  const InputPipelineAnalysisResult* ipa = a.input_pipeline.get();
  const InputPipelineAnalysisResult* ipb = b.input_pipeline.get();
  c.steps = a.torch_steps && b.torch_steps ? TorchStepRows(*a.torch_steps, *b.torch_steps) : StepRows(ipa, ipb);
  c.step_note_a = StepNote(ipa);
  c.step_note_b = StepNote(ipb);
  c.step_pairs = PairSteps(ipa, ipb, alignment);
  c.input_stages = InputStageRows(ipa, ipb);
  c.input_classification_a = InputClassification(ipa);
  c.input_classification_b = InputClassification(ipb);
  c.tf_data_a = TfDataSideOf(a.tf_data.get());
  c.tf_data_b = TfDataSideOf(b.tf_data.get());
  auto rows_of = [](const auto& part, auto&& convert) -> std::optional<std::vector<OpDeltaRow>> {
    if (part == nullptr) return std::nullopt;
    return convert(*part);
  };
  auto fa = rows_of(a.framework_ops, FrameworkOpRows), fb = rows_of(b.framework_ops, FrameworkOpRows);
  c.framework_ops = MatchOpRows(fa ? &*fa : nullptr, fb ? &*fb : nullptr);
  auto ha = rows_of(a.hlo_ops, HloOpRows), hb = rows_of(b.hlo_ops, HloOpRows);
  c.hlo_ops = MatchOpRows(ha ? &*ha : nullptr, hb ? &*hb : nullptr);
  auto ka = rows_of(a.kernels, KernelRows), kb = rows_of(b.kernels, KernelRows);
  c.kernels = MatchOpRows(ka ? &*ka : nullptr, kb ? &*kb : nullptr);
  c.memory = MemoryRows(a.memory.get(), b.memory.get());
  if (a.step_events != nullptr || b.step_events != nullptr) {
    if (a.step_events != nullptr) c.step_a = a.step_events->step;
    if (b.step_events != nullptr) c.step_b = b.step_events->step;
    c.step_events = MatchOpRows(a.step_events ? &a.step_events->rows : nullptr,
                                b.step_events ? &b.step_events->rows : nullptr);
  }
  return c;
}

}  // namespace tbprof
