#include "convert/analysis/op_stats_pages/tpu_step_analysis.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>
#include <optional>
#include <string_view>

#include "convert/analysis/op_stats_pages/input_pipeline_basics.h"
#include "convert/base/math_util.h"

namespace tbprof {

using tensorflow::profiler::SparseCoreStepSummary;

namespace {

constexpr char kMultipleStepsInTfFunctionDoc[] =
    "https://www.tensorflow.org/guide/tpu#improving_performance_by_multiple_steps_within_tffunction";

std::string AnchorElement(const char* url, const char* text) {
  return std::string("<a href=\"") + url + "\" target=\"_blank\">" + text + "</a>";
}

// TensorCoreIdleAnalysis with every core profiled.
void TcIdleAnalysis(double tc_idle_percent, TpuBottleneckAnalysis& a) {
  if (tc_idle_percent < kTcIdleThresholdInPercent) {
    a.set_tc_idle_classification("no");
    a.set_tc_idle_statement("");
    return;
  }
  a.set_tc_idle_classification("yes");
  a.set_tc_idle_statement(OneDigit(tc_idle_percent) +
                          " % of the total step time sampled is due to host overhead that is not input-related. "
                          "For TF 2.x, you may want to use a " +
                          AnchorElement(kMultipleStepsInTfFunctionDoc,
                                        "host-training loop (i.e. running multiple steps within a tf.function)."));
}

// AllReduceAnalysis with every core profiled: all-reduce overlaps input, so
// only the time beyond the input time counts.
void AllReduceAnalysis(double compute_percent, double sync_percent, double input_percent, TpuBottleneckAnalysis& a) {
  if (compute_percent + sync_percent - input_percent < kAllReduceBoundThresholdInPercent) {
    a.set_all_reduce_classification("no");
    a.set_all_reduce_statement("");
    return;
  }
  a.set_all_reduce_classification("yes");
  a.set_all_reduce_statement("Also, " + OneDigit(sync_percent) +
                             " % of the total step time sampled is spent on synchronization with other TPU cores, "
                             "and " +
                             OneDigit(compute_percent) +
                             " % of the total step time sampled is spent on actual AllReduce.");
}

void ScV0Analysis(double scv0_percent, TpuBottleneckAnalysis& a) {
  if (scv0_percent == 0) {
    a.set_scv0_classification("no");
    a.set_scv0_statement("");
    return;
  }
  bool moderate = scv0_percent < kModeratelySparseCoreV0BoundThresholdInPercent;
  a.set_scv0_classification(moderate ? "moderate" : "high");
  a.set_scv0_statement("Also, " + OneDigit(scv0_percent) +
                       " % of the total step time sampled is spent on the SparseCoreV0 compute. " +
                       (moderate ? "You may also want to reduce the SparseCoreV0 compute time."
                                 : "You should focus on reducing the SparseCoreV0 compute time as well."));
}

void OutputAnalysis(double output_percent, TpuBottleneckAnalysis& a) {
  if (output_percent >= kOutfeedBound.highly) {
    a.set_output_classification("host");
    a.set_output_statement("Your program is HIGHLY output-bound because " + OneDigit(output_percent) +
                           "% of the total step time sampled is spent on output. Therefore, you should first focus "
                           "on reducing the output time.");
  } else if (output_percent >= kOutfeedBound.moderately) {
    a.set_output_classification("both");
    a.set_output_statement("Your program is MODERATELY output-bound because " + OneDigit(output_percent) +
                           "% of the total step time sampled is spent on output. Therefore, you would need to "
                           "reduce both the output time and other time.");
  } else {
    a.set_output_classification("device");
    a.set_output_statement("");
  }
}

TpuBottleneckAnalysis ComputeTpuBottleneckAnalysis(const InputPipelineAnalysisResult& result) {
  std::vector<PerTpuStepDetails> steps(static_cast<size_t>(result.step_details_size()));
  for (size_t i = 0; i < steps.size(); ++i) result.step_details(static_cast<int>(i)).UnpackTo(&steps[i]);
  auto total = [&](auto figure) {
    double sum = 0;
    for (const PerTpuStepDetails& d : steps) sum += std::invoke(figure, d);
    return sum;
  };
  const double step = total(StepTimeMs), infeed = total(InfeedTimeMs),
               outfeed = total(&PerTpuStepDetails::tc_outfeed_time_ms),
               scv0 = total(&PerTpuStepDetails::scv0_compute_time_ms),
               ar_compute = total(&PerTpuStepDetails::all_reduce_compute_time_ms),
               ar_sync = total(&PerTpuStepDetails::all_reduce_sync_time_ms),
               idle = total(&PerTpuStepDetails::tc_idle_time_ms);
  TpuBottleneckAnalysis a;
  if (step == 0) {
    a.set_input_classification("unknown");
    a.set_input_statement("No step time measured. Therefore we cannot tell where the performance bottleneck is.");
    a.set_tc_idle_classification("no");
    a.set_scv0_classification("no");
    a.set_all_reduce_classification("no");
    return a;
  }
  double infeed_percent = 100.0 * infeed / step, outfeed_percent = 100.0 * outfeed / step,
         idle_percent = 100.0 * idle / step;
  std::string cls, statement;
  ClassifyInputBound(infeed_percent, /*all_other_percent=*/0, &cls, &statement);
  a.set_input_classification(cls);
  a.set_input_statement(statement);
  OutputAnalysis(outfeed_percent, a);
  TcIdleAnalysis(idle_percent, a);
  AllReduceAnalysis(100.0 * ar_compute / step, 100.0 * ar_sync / step, infeed_percent, a);
  ScV0Analysis(100.0 * scv0 / step, a);
  a.set_compute_percent(std::max(0.0, 100.0 - infeed_percent - outfeed_percent - idle_percent));
  a.set_input_percent(infeed_percent);
  a.set_output_percent(outfeed_percent);
  a.set_tc_idle_percent(idle_percent);
  return a;
}

// ComputeStepTimeSummaryInMs: a step takes its slowest TensorCore's time.
StepSummary StepTimeSummaryInMs(const std::vector<PerCoreStepInfo>& steps) {
  SampleStat<double> stat;
  for (const PerCoreStepInfo& step : steps) {
    double max_ms = 0;
    for (const auto& [core, info] : step.step_info_per_core) {
      if (core >= kSparseCoreIndexStart) continue;
      max_ms = std::max(static_cast<double>(info.duration_ps) / 1e9, max_ms);
    }
    stat.Update(max_ms);
  }
  return StepSummaryOf(stat);
}

}  // namespace

void ComputeTpuInputPipelineAnalysis(const OpStats& op_stats, InputPipelineAnalysisResult& result) {
  bool has_sparse_core = false;
  for (const auto& [core, details] : op_stats.core_id_to_details) has_sparse_core |= details.is_sparse_core;
  *result.mutable_step_time_summary() = StepTimeSummaryInMs(op_stats.tpu_step_db);
  std::vector<PerTpuStepDetails> steps;
  for (const PerCoreStepInfo& step : op_stats.tpu_step_db) {
    steps.push_back(ComputeTpuPerStepDataAcrossCores(step, op_stats.core_id_to_details));
    result.add_step_details()->PackFrom(steps.back());
  }
  auto summary = [&](double (PerTpuStepDetails::*figure)() const) {
    SampleStat<double> stat;
    for (const PerTpuStepDetails& d : steps) stat.Update((d.*figure)());
    return StepSummaryOf(stat);
  };
  // A step's input share is its slowest core's.
  *result.mutable_input_percent_summary() = summary(&PerTpuStepDetails::infeed_percent_maximum);
  TpuStepTimeBreakdown b;
  SparseCoreStepSummary sc;
  using D = PerTpuStepDetails;
  std::vector<std::pair<double (D::*)() const, StepSummary*>> parts = {
      {&D::tc_compute_time_ms, b.mutable_tc_compute_ms_summary()},
      {&D::scv0_compute_time_ms, b.mutable_scv0_compute_ms_summary()},
      {&D::tc_infeed_time_ms, b.mutable_tc_infeed_ms_summary()},
      {&D::tc_outfeed_time_ms, b.mutable_tc_outfeed_ms_summary()},
      {&D::scv0_infeed_time_ms, b.mutable_scv0_infeed_ms_summary()},
      {&D::tc_idle_time_ms, b.mutable_tc_idle_ms_summary()},
      {&D::host_transfer_ms, b.mutable_host_transfer_ms_summary()},
      {&D::sc_compute_time_ms, sc.mutable_sc_compute_ms_summary()},
      {&D::sc_infeed_time_ms, sc.mutable_sc_infeed_ms_summary()},
      {&D::sc_outfeed_time_ms, sc.mutable_sc_outfeed_ms_summary()},
      {&D::sc_idle_time_ms, sc.mutable_sc_idle_ms_summary()},
      {&D::sc_step_time_ms, sc.mutable_sc_step_time_ms_summary()}};
  for (auto [figure, out] : parts) *out = summary(figure);
  // The SparseCore summary only where the chips have SparseCores.
  if (has_sparse_core) *b.mutable_sparse_core_step_summary() = sc;
  result.mutable_step_time_breakdown()->PackFrom(b);
  result.set_tag(true);
  TpuBottleneckAnalysis a = ComputeTpuBottleneckAnalysis(result);
  result.set_input_percent(a.input_percent());
  result.set_output_percent(a.output_percent());
  result.set_idle_percent(a.tc_idle_percent());
  result.set_compute_percent(a.compute_percent());
  result.mutable_recommendation()->mutable_bottleneck_analysis()->PackFrom(a);
}

DataTable TpuStepBreakdownTable(const InputPipelineAnalysisResult& result) {
  TpuStepTimeBreakdown b;
  bool has_breakdown = result.step_time_breakdown().UnpackTo(&b);
  // SparseCoreV0 columns unless the chips have SparseCores of their own.
  const bool scv0 = !b.has_sparse_core_step_summary();
  DataTable t;
  std::string graph_columns = "stepnum,tcComputeTimeMs";
  t.AddColumns({{"stepnum", "stepnum", "string"}, {"tcComputeTimeMs", "TensorCore compute (in ms)", "number"}});
  if (scv0) {
    t.AddColumns({{"scv0ComputeTimeMs", "SparseCoreV0 compute (in ms)", "number"},
                  {"scv0InfeedTimeMs", "SparseCoreV0 input (in ms)", "number"}});
    graph_columns += ",scv0ComputeTimeMs,scv0InfeedTimeMs";
  }
  t.AddColumns({{"tcInfeedTimeMs", "TensorCore input (in ms)", "number"},
                {"tcOutfeedTimeMs", "TensorCore output (in ms)", "number"},
                {"tcIdleTimeMs", "TensorCore idle (in ms)", "number"},
                {"hostTransferTimeMs", "Host transfer (in ms)", "number"},
                {"tooltip", "tooltip", "string", "tooltip"},
                {"infeedPercentAverage", "% step time waiting for input data", "number"},
                {"infeedPercentMin", "Infeed percent min", "number", "interval"},
                {"infeedPercentMax", "Infeed percent max", "number", "interval"}});
  graph_columns += ",tcInfeedTimeMs,tcOutfeedTimeMs,tcIdleTimeMs,hostTransferTimeMs,tooltip";
  SetStepTimeProperties(result, t);
  SetSummaryProperties("infeed_percent", result.input_percent_summary(), t);
  t.SetProperty("step_time_graph_column_ids", graph_columns);
  if (has_breakdown) {
    // Averages of the parts of a step, two decimals; SparseCore parts only
    // when every step ran on a SparseCore.
    using Part = std::pair<const char*, const StepSummary& (TpuStepTimeBreakdown::*)() const>;
    std::vector<Part> parts = {{"tc_compute_ms_average", &TpuStepTimeBreakdown::tc_compute_ms_summary},
                               {"tc_infeed_ms_average", &TpuStepTimeBreakdown::tc_infeed_ms_summary},
                               {"tc_outfeed_ms_average", &TpuStepTimeBreakdown::tc_outfeed_ms_summary},
                               {"tc_idle_ms_average", &TpuStepTimeBreakdown::tc_idle_ms_summary},
                               {"host_transfer_ms_average", &TpuStepTimeBreakdown::host_transfer_ms_summary}};
    if (scv0) {
      parts.push_back({"scv0_compute_ms_average", &TpuStepTimeBreakdown::scv0_compute_ms_summary});
      parts.push_back({"scv0_infeed_ms_average", &TpuStepTimeBreakdown::scv0_infeed_ms_summary});
    }
    for (const auto& [key, part] : parts) t.SetProperty(key, TwoDigits((b.*part)().average()));
    const SparseCoreStepSummary& sc = b.sparse_core_step_summary();
    if (sc.sc_step_time_ms_summary().minimum() > 0) {
      using ScPart = std::pair<const char*, const StepSummary& (SparseCoreStepSummary::*)() const>;
      for (const auto& [key, part] : {ScPart{"sc_compute_ms_average", &SparseCoreStepSummary::sc_compute_ms_summary},
                                      ScPart{"sc_infeed_ms_average", &SparseCoreStepSummary::sc_infeed_ms_summary},
                                      ScPart{"sc_outfeed_ms_average", &SparseCoreStepSummary::sc_outfeed_ms_summary},
                                      ScPart{"sc_idle_ms_average", &SparseCoreStepSummary::sc_idle_ms_summary}}) {
        t.SetProperty(key, TwoDigits((sc.*part)().average()));
      }
      t.SetProperty("sc_step_time_ms_average", OneDigit(sc.sc_step_time_ms_summary().average()));
    }
  }
  TpuBottleneckAnalysis a;
  if (result.recommendation().bottleneck_analysis().UnpackTo(&a)) {
    t.SetProperty("input_conclusion", a.input_statement());
    t.SetProperty("output_conclusion", a.output_statement());
  }
  t.SetProperty("summary_nextstep", result.recommendation().summary_next_step());
  for (const auto& any : result.step_details()) {
    PerTpuStepDetails d;
    if (!any.UnpackTo(&d)) continue;
    std::string tooltip = "step " + std::to_string(d.step_number()) + ":\nTime waiting for input data = " +
                          FixedDigits(InfeedTimeMs(d), 3) +
                          " ms, Step time = " + FixedDigits(StepTimeMs(d) - AllReduceTimeMs(d), 3) + " ms";
    const std::string step = std::to_string(d.step_number());
    if (scv0) {
      t.AddRow({step, d.tc_compute_time_ms(), d.scv0_compute_time_ms(), d.scv0_infeed_time_ms(), d.tc_infeed_time_ms(),
                d.tc_outfeed_time_ms(), d.tc_idle_time_ms(), d.host_transfer_ms(), tooltip,
                d.infeed_percent_average(), d.infeed_percent_minimum(), d.infeed_percent_maximum()});
    } else {
      t.AddRow({step, d.tc_compute_time_ms(), d.tc_infeed_time_ms(), d.tc_outfeed_time_ms(), d.tc_idle_time_ms(),
                d.host_transfer_ms(), tooltip, d.infeed_percent_average(), d.infeed_percent_minimum(),
                d.infeed_percent_maximum()});
    }
  }
  return t;
}

DataTable MaxInfeedCoreTable(const InputPipelineAnalysisResult& result) {
  DataTable t;
  if (result.hardware_type() != "TPU") return t;
  t.AddColumn("index", "Index", "string");
  for (int i = 0; i < result.step_details_size(); ++i) t.AddColumn(std::to_string(i), std::to_string(i), "string");
  std::vector<DataTable::Cell> steps = {std::string("Step number")}, cores = {std::string("Core name")};
  for (const auto& any : result.step_details()) {
    PerTpuStepDetails d;
    if (!any.UnpackTo(&d)) continue;
    steps.push_back(std::to_string(d.step_number()));
    cores.push_back(d.max_infeed_time_core_name().empty() ? std::string("unknown") : d.max_infeed_time_core_name());
  }
  t.AddRow(std::move(steps));
  t.AddRow(std::move(cores));
  return t;
}

}  // namespace tbprof
