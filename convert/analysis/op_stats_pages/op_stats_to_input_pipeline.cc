#include "convert/analysis/op_stats_pages/op_stats_to_input_pipeline.h"
#include "convert/analysis/op_stats_pages/input_pipeline_basics.h"
#include "convert/analysis/op_stats_pages/step_diagnostics.h"
#include "convert/analysis/op_stats_pages/torch_step_pages.h"
#include "convert/analysis/op_stats_pages/tpu_step_analysis.h"
#include "convert/base/math_util.h"
#include "convert/base/strings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <vector>

namespace tbprof {

namespace {

double PsToMs(uint64_t ps) { return static_cast<double>(ps) / 1e9; }

uint64_t TypePs(const StepInfo& step, int type) {
  auto it = step.type_ps.find(type);
  return it == step.type_ps.end() ? 0 : it->second;
}

// An input-pipeline stage names its own category (`_ipl_stage_cat`, the op's
// type): "enqueue", "read", "preprocessing" or "unknown", in any case. A
// stage that reads is counted as reading on demand, as xprof counts it.
const char* StageInputCategory(std::string_view category) {
  const std::string lower = AsciiLowered(category);
  if (lower == "enqueue") return "Enqueue";
  if (lower == "read") return "Demanded file read";
  if (lower == "preprocessing") return "Preprocessing";
  if (lower == "unknown") return "Unknown";
  return nullptr;
}

bool IsInputOp(const std::string& category) {
  return category.starts_with("InfeedEnqueue") || category == "Dataset" || category == "MemcpyHToD" ||
         StageInputCategory(category) != nullptr;
}

const char* CategorizeInputOp(const std::string& name, const std::string& category) {
  if (const char* stage = StageInputCategory(category)) return stage;
  if (category.starts_with("InfeedEnqueue") || category == "MemcpyHToD") return "Enqueue";
  static constexpr const char* kReaders[] = {"::TFRecord", "::TextLine", "::FixedLengthRecord", "::SSTable",
                                             "::RecordIO",  "::ArrayRecord"};
  for (const char* r : kReaders) {
    if (name.ends_with(r)) {
      for (const char* adv : {"::MemoryReader", "::MemoryWriter", "::Interleave", "::Prefetch", "::ParallelMap"}) {
        if (name.find(adv) != std::string::npos) return "Advanced file read";
      }
      return "Demanded file read";
    }
  }
  return "Preprocessing";
}

// RatioOfHostToDeviceTimeToStepTime: with InfeedEnqueue ops on the host,
// their share of the time between them (HostInfeedEnqueueRatio); else
// `step_ratio`, the steps' share of host-to-device time. At most 1.
double HostToDeviceRatio(const OpMetricsDb& host_db, double step_ratio) {
  const uint64_t span = host_db.total_host_infeed_enq_start_timestamp_ps_diff;
  return std::min(1.0, span > 0 ? SafeDivide(static_cast<double>(host_db.total_host_infeed_enq_duration_ps),
                                             static_cast<double>(span))
                                : step_ratio);
}

// The host's input ops and the input time's breakdown (GenerateHostResult).
// Without input ops there is no breakdown at all.
void AddHostInputOps(const OpMetricsDb& host_db, double h2d_ratio, InputPipelineAnalysisResult& result) {
  // In SortedOpMetricsDb order (self time desc, name asc).
  std::vector<const OpMetrics*> input_ops;
  uint64_t input_op_time_ps = 0;
  for (const auto& [name, m] : host_db.ops) {
    if (!IsInputOp(m.category)) continue;
    input_ops.push_back(&m);
    input_op_time_ps += m.self_time_ps;
  }
  if (input_ops.empty()) return;
  std::sort(input_ops.begin(), input_ops.end(), [](const OpMetrics* a, const OpMetrics* b) {
    return a->self_time_ps != b->self_time_ps ? a->self_time_ps > b->self_time_ps : a->name < b->name;
  });
  std::map<std::string, double> category_us;
  for (const OpMetrics* m : input_ops) {
    auto* d = result.add_input_op_details();
    d->set_op_name(m->name);
    d->set_count(m->occurrences);
    d->set_time_in_ms(PsToMs(m->time_ps));
    d->set_self_time_in_ms(PsToMs(m->self_time_ps));
    d->set_time_in_percent(SafeDivide(100.0 * static_cast<double>(m->time_ps), static_cast<double>(input_op_time_ps)));
    d->set_self_time_in_percent(
        SafeDivide(100.0 * static_cast<double>(m->self_time_ps), static_cast<double>(input_op_time_ps)));
    d->set_category(CategorizeInputOp(m->name, m->category));
    category_us[d->category()] += static_cast<double>(m->self_time_ps) / 1e6;
  }
  auto& tb = *result.mutable_input_time_breakdown();
  double enqueue_us = category_us["Enqueue"];
  double demanded = category_us["Demanded file read"], advanced = category_us["Advanced file read"],
         preprocessing = category_us["Preprocessing"];
  double total_input_op_us = demanded + advanced + preprocessing;
  double non_enqueue_us = h2d_ratio != 0 ? enqueue_us * (1 - h2d_ratio) / h2d_ratio : total_input_op_us;
  double scaled_demanded = SafeDivide(non_enqueue_us * demanded, total_input_op_us);
  double scaled_advanced = SafeDivide(non_enqueue_us * advanced, total_input_op_us);
  double scaled_pre = SafeDivide(non_enqueue_us * preprocessing, total_input_op_us);
  tb.set_enqueue_us(enqueue_us);
  tb.set_demanded_file_read_us(scaled_demanded);
  tb.set_advanced_file_read_us(scaled_advanced);
  tb.set_preprocessing_us(scaled_pre);
  tb.set_unclassified_non_enqueue_us(std::max(0.0, non_enqueue_us - scaled_demanded - scaled_advanced - scaled_pre));
}

void ClassifyLevel(double percent, double high, double moderate, const char* statement_fmt, std::string* cls,
                   std::string* statement) {
  if (percent >= high) {
    *cls = "high";
  } else if (percent >= moderate) {
    *cls = "moderate";
  } else {
    *cls = "no";
    statement->clear();
    return;
  }
  *statement = PercentStatement(statement_fmt, percent);
}

}  // namespace

namespace {

// The generic (GPU, CPU) steps, summaries, host input ops and bottleneck
// (ComputeGenericInputPipelineAnalysisResult, GenerateHostResult and
// ComputeBottleneckAnalysis). Returns whether any host has steps.
bool ComputeGenericInputPipelineAnalysis(const OpStats& op_stats, InputPipelineAnalysisResult& result) {
  // Combined hosts share their steps' indices (the step intersection). A step
  // takes as long as its slowest host (xprof's ComputeStepTimeSummaryInMs):
  // that host's step is the row, so the table, the graph drawn from it and
  // the summaries all describe the same steps.
  std::vector<const StepInfo*> steps;
  for (const HostSteps& h : op_stats.steps) {
    for (size_t k = 0; k < h.steps.size(); ++k) {
      if (k == steps.size()) steps.push_back(&h.steps[k]);
      if (h.steps[k].duration_ps > steps[k]->duration_ps) steps[k] = &h.steps[k];
    }
  }
  std::vector<PerGenericStepDetails> details;
  for (const StepInfo* step : steps) {
    const StepInfo& s = *step;
    PerGenericStepDetails& d = details.emplace_back();
    d.set_step_number(static_cast<int32_t>(s.step_num));
    d.set_step_name(s.step_name.empty() ? std::to_string(s.step_num) : s.step_name);
    d.set_step_time_ms(PsToMs(s.duration_ps));
    d.set_unknown_time_ms(PsToMs(TypePs(s, UNKNOWN_TIME)));
    d.set_host_wait_input_ms(PsToMs(TypePs(s, HOST_WAIT_INPUT)));
    d.set_host_to_device_ms(PsToMs(TypePs(s, HOST_TO_DEVICE) + TypePs(s, DEVICE_WAIT_HOST)));
    d.set_output_ms(PsToMs(TypePs(s, DEVICE_TO_HOST)));
    d.set_device_compute_ms(PsToMs(TypePs(s, DEVICE_COMPUTE_16) + TypePs(s, DEVICE_COMPUTE_32)));
    d.set_device_to_device_ms(PsToMs(TypePs(s, DEVICE_TO_DEVICE) + TypePs(s, DEVICE_WAIT_DEVICE)));
    d.set_device_collectives_ms(PsToMs(TypePs(s, DEVICE_COLLECTIVES)));
    d.set_host_compute_ms(PsToMs(TypePs(s, HOST_COMPUTE)));
    d.set_host_prepare_ms(PsToMs(TypePs(s, HOST_PREPARE)));
    d.set_host_compile_ms(PsToMs(TypePs(s, HOST_COMPILE)));
    result.add_step_details()->PackFrom(d);
  }
  using D = PerGenericStepDetails;
  using Figure = std::function<double(const D&)>;
  auto summary = [&](const Figure& figure) {
    SampleStat<double> stat;
    for (const D& d : details) stat.Update(figure(d));
    return StepSummaryOf(stat);
  };
  auto total = [&](const Figure& figure) {
    double sum = 0;
    for (const D& d : details) sum += figure(d);
    return sum;
  };
  const Figure input_ms = [](const D& d) { return d.host_wait_input_ms() + d.host_to_device_ms(); };
  *result.mutable_step_time_summary() = summary(&D::step_time_ms);
  *result.mutable_input_percent_summary() =
      summary([&](const D& d) { return SafeDivide(100.0 * input_ms(d), d.step_time_ms()); });
  GenericStepTimeBreakdown breakdown;
  using B = GenericStepTimeBreakdown;
  for (const auto& [figure, out] : std::vector<std::pair<Figure, StepSummary* (B::*)()>>{
           {&D::unknown_time_ms, &B::mutable_unknown_time_ms_summary},
           {&D::host_wait_input_ms, &B::mutable_host_wait_input_ms_summary},
           {&D::host_to_device_ms, &B::mutable_host_to_device_ms_summary},
           {input_ms, &B::mutable_input_ms_summary},
           {&D::output_ms, &B::mutable_output_ms_summary},
           {&D::device_compute_ms, &B::mutable_device_compute_ms_summary},
           {&D::device_to_device_ms, &B::mutable_device_to_device_ms_summary},
           {&D::device_collectives_ms, &B::mutable_device_collectives_ms_summary},
           {&D::host_compute_ms, &B::mutable_host_compute_ms_summary},
           {&D::host_prepare_ms, &B::mutable_host_prepare_ms_summary},
           {&D::host_compile_ms, &B::mutable_host_compile_ms_summary}}) {
    *(breakdown.*out)() = summary(figure);
  }
  result.mutable_step_time_breakdown()->PackFrom(breakdown);

  // The share of the average step spent sending input to the device.
  double step_h2d_ratio =
      SafeDivide(breakdown.host_to_device_ms_summary().average(), result.step_time_summary().average());
  AddHostInputOps(op_stats.host_op_metrics_db, HostToDeviceRatio(op_stats.host_op_metrics_db, step_h2d_ratio), result);
  const double total_step = total(&D::step_time_ms), total_input = total(input_ms), total_output = total(&D::output_ms),
               total_compute = total(&D::device_compute_ms), total_collectives = total(&D::device_collectives_ms),
               total_prepare = total(&D::host_prepare_ms), total_unknown = total(&D::unknown_time_ms);
  const auto& tb = result.input_time_breakdown();

  // Bottleneck analysis over the totals of all steps.
  BottleneckAnalysis b;
  if (total_step <= 0) {
    b.set_input_classification("unknown");
    b.set_input_statement(
        "No step time measured. Therefore we cannot tell where the performance bottleneck is.");
    b.set_kernel_launch_classification("no");
    b.set_all_other_classification("no");
    b.set_device_collectives_classification("no");
  } else {
    double input_pct_total = 100.0 * total_input / total_step;
    double output_pct = 100.0 * total_output / total_step;
    double compute_pct = 100.0 * total_compute / total_step;
    double collectives_pct = 100.0 * total_collectives / total_step;
    double kernel_launch_pct = 100.0 * total_prepare / total_step;
    double all_other_pct = 100.0 * total_unknown / total_step;
    b.set_input_percent(input_pct_total);
    b.set_output_percent(output_pct);
    b.set_compute_percent(compute_pct);
    b.set_idle_percent(std::max(0.0, 100.0 - input_pct_total - output_pct - compute_pct - collectives_pct));
    std::string cls, st;
    bool all_other_reported = ClassifyInputBound(input_pct_total, all_other_pct, &cls, &st);
    b.set_input_classification(cls);
    b.set_input_statement(st);
    bool tf_data_in_use = tb.demanded_file_read_us() > 0 || tb.advanced_file_read_us() > 0 ||
                          tb.preprocessing_us() > 0;
    std::string kl_fmt = "%s %% of the total step time sampled is spent on 'Kernel Launch'.";
    if (tf_data_in_use) {
      kl_fmt += " It could be due to CPU contention with tf.data. In this case, you may try to set the environment "
                "variable TF_GPU_THREAD_MODE=gpu_private.";
    }
    ClassifyLevel(kernel_launch_pct, kKernelLaunchBound.highly,
                  kKernelLaunchBound.moderately, kl_fmt.c_str(), &cls, &st);
    b.set_kernel_launch_classification(cls);
    b.set_kernel_launch_statement(st);
    if (all_other_reported) {
      b.set_all_other_classification("no");
    } else {
      ClassifyLevel(all_other_pct, kAllOtherBound.highly, kAllOtherBound.moderately,
                    "%s %% of the total step time sampled is spent on 'All Others' time. This could be due to "
                    "Python execution overhead.",
                    &cls, &st);
      b.set_all_other_classification(cls);
      b.set_all_other_statement(st);
    }
    ClassifyLevel(collectives_pct, kDeviceCollectivesBound.highly,
                  kDeviceCollectivesBound.moderately,
                  "%s %% of the total step time sampled is spent on 'Device Collective Communication'.", &cls, &st);
    b.set_device_collectives_classification(cls);
    b.set_device_collectives_statement(st);
  }
  result.set_input_percent(b.input_percent());
  result.set_output_percent(b.output_percent());
  result.set_idle_percent(b.idle_percent());
  result.set_compute_percent(b.compute_percent());
  result.mutable_recommendation()->mutable_bottleneck_analysis()->PackFrom(b);
  return !steps.empty();
}

}  // namespace

InputPipelineAnalysisResult ConvertOpStatsToInputPipelineAnalysis(const OpStats& op_stats) {
  InputPipelineAnalysisResult result;
  result.set_hardware_type(op_stats.run_environment.hardware_type);
  bool has_steps = false;
  std::string cls;
  if (result.hardware_type() == "TPU") {
    ComputeTpuInputPipelineAnalysis(op_stats, result);
    has_steps = !op_stats.tpu_step_db.empty();
    // The TPU breakdown says nothing of host-to-device time.
    AddHostInputOps(op_stats.host_op_metrics_db, HostToDeviceRatio(op_stats.host_op_metrics_db, 0.0), result);
    TpuBottleneckAnalysis b;
    result.recommendation().bottleneck_analysis().UnpackTo(&b);
    cls = b.input_classification();
  } else {
    has_steps = ComputeGenericInputPipelineAnalysis(op_stats, result);
    BottleneckAnalysis b;
    result.recommendation().bottleneck_analysis().UnpackTo(&b);
    cls = b.input_classification();
  }
  const auto& tb = result.input_time_breakdown();
  auto& rec = *result.mutable_recommendation();
  if (cls == "host" || cls == "both") {
    bool tf_data_in_use = tb.demanded_file_read_us() > 0 || tb.advanced_file_read_us() > 0 ||
                          tb.preprocessing_us() > 0;
    rec.set_summary_next_step(
        tf_data_in_use ? "Look at Section 3 for the breakdown of input time on the host."
                       : "Consider using <a href=\"https://www.tensorflow.org/guide/data\" target=\"_blank\">the "
                         "tf.data API</a> to enable profiler's host-side analysis for input pipeline. Profiler "
                         "currently does not support custom input pipeline (please ignore Section 3 below).");
  } else {
    rec.set_summary_next_step("You may skip the rest of this page.");
  }
  rec.add_details("Enqueuing data: you may want to combine small input data chunks into fewer but larger chunks.");
  rec.add_details(
      "Data preprocessing: you may increase num_parallel_calls in <a "
      "href=\"https://www.tensorflow.org/api_docs/python/tf/data/Dataset#map\" target=\"_blank\">Dataset map()</a> "
      "or preprocess the data OFFLINE.");
  rec.add_details(
      "Reading data from files in advance: you may tune parameters in the following tf.data API (<a "
      "href=\"https://www.tensorflow.org/api_docs/python/tf/data/Dataset#prefetch\" target=\"_blank\">prefetch "
      "size</a>, <a href=\"https://www.tensorflow.org/api_docs/python/tf/data/Dataset#interleave\" "
      "target=\"_blank\">interleave cycle_length</a>, <a "
      "href=\"https://www.tensorflow.org/api_docs/python/tf/data/TFRecordDataset#class_tfrecorddataset\" "
      "target=\"_blank\">reader buffer_size</a>)");
  rec.add_details(
      "Reading data from files on demand: you should read data IN ADVANCE using the following tf.data API (<a "
      "href=\"https://www.tensorflow.org/api_docs/python/tf/data/Dataset#prefetch\" target=\"_blank\">prefetch</a>, "
      "<a href=\"https://www.tensorflow.org/api_docs/python/tf/data/Dataset#interleave\" "
      "target=\"_blank\">interleave</a>, <a "
      "href=\"https://www.tensorflow.org/api_docs/python/tf/data/TFRecordDataset#class_tfrecorddataset\" "
      "target=\"_blank\">reader buffer</a>)");
  rec.add_details(
      "Other data reading or processing: you may consider using the <a "
      "href=\"https://www.tensorflow.org/programmers_guide/datasets\" target=\"_blank\">tf.data API</a> (if you "
      "are not using it now)");
  if (!has_steps) result.mutable_diagnostics()->add_warnings(NoStepWarning(op_stats));
  return result;
}

DataTable GenericStepBreakdownTable(const InputPipelineAnalysisResult& result) {
  DataTable t;
  t.AddColumns({{"stepnum", "Step number", "string"}, {"deviceComputeTimeMs", "Device compute", "number"},
                {"deviceToDeviceTimeMs", "Device to device", "number"},
                {"deviceCollectivesTimeMs", "Device collective communication", "number"},
                {"hostComputeTimeMs", "Host compute", "number"}, {"kernelLaunchTimeMs", "Kernel launch", "number"},
                {"infeedTimeMs", "Input", "number"}, {"outfeedTimeMs", "Output", "number"},
                {"compileTimeMs", "Compilation", "number"}, {"otherTimeMs", "All others", "number"},
                {"tooltip", "tooltip", "string", "tooltip"}, {"stepTimeMs", "Step time", "number"}});
  for (const auto& any : result.step_details()) {
    PerGenericStepDetails d;
    if (!any.UnpackTo(&d)) continue;
    double input = d.host_wait_input_ms() + d.host_to_device_ms();
    char tooltip[1024];
    std::snprintf(tooltip, sizeof(tooltip),
                  "Step %s, duration: %.2f ms\n-All others: %.2f ms\n-Compilation: %.2f ms\n-Output: %.2f ms\n"
                  "-Input: %.2f ms\n-Kernel launch: %.2f ms\n-Host compute: %.2f ms\n-Device collectives: %.2f ms\n"
                  "-Device to device: %.2f ms\n-Device compute: %.2f ms",
                  d.step_name().c_str(), d.step_time_ms(), d.unknown_time_ms(), d.host_compile_ms(), d.output_ms(),
                  input, d.host_prepare_ms(), d.host_compute_ms(), d.device_collectives_ms(),
                  d.device_to_device_ms(), d.device_compute_ms());
    t.AddRow({d.step_name(), d.device_compute_ms(), d.device_to_device_ms(), d.device_collectives_ms(),
              d.host_compute_ms(), d.host_prepare_ms(), input, d.output_ms(), d.host_compile_ms(),
              d.unknown_time_ms(), std::string(tooltip), d.step_time_ms()});
  }
  BottleneckAnalysis b;
  result.recommendation().bottleneck_analysis().UnpackTo(&b);
  GenericStepTimeBreakdown bd;
  result.step_time_breakdown().UnpackTo(&bd);
  SetStepTimeProperties(result, t);
  // The space before "tooltip" is xprof's; readers of the list trim each id.
  t.SetProperty("step_time_graph_column_ids",
                "stepnum,deviceComputeTimeMs,deviceToDeviceTimeMs,deviceCollectivesTimeMs,hostComputeTimeMs,"
                "kernelLaunchTimeMs,infeedTimeMs,outfeedTimeMs,compileTimeMs,otherTimeMs, tooltip");
  auto avg_sdv = [&](const std::string& prefix, const StepSummary& s) {
    t.SetProperty(prefix + "_avg", OneDigit(s.average()));
    t.SetProperty(prefix + "_sdv", OneDigit(s.standard_deviation()));
  };
  avg_sdv("device_compute_time_ms", bd.device_compute_ms_summary());
  avg_sdv("device_to_device_time_ms", bd.device_to_device_ms_summary());
  avg_sdv("device_collectives_time_ms", bd.device_collectives_ms_summary());
  avg_sdv("infeed_time_ms", bd.input_ms_summary());
  avg_sdv("outfeed_time_ms", bd.output_ms_summary());
  avg_sdv("host_compute_time_ms", bd.host_compute_ms_summary());
  avg_sdv("kernel_launch_time_ms", bd.host_prepare_ms_summary());
  avg_sdv("compile_time_ms", bd.host_compile_ms_summary());
  avg_sdv("other_time_ms", bd.unknown_time_ms_summary());
  t.SetProperty("input_conclusion", b.input_statement());
  t.SetProperty("summary_nextstep", result.recommendation().summary_next_step());
  // This page says each bottleneck in words: xprof fills its *_bottleneck properties with the statement,
  // where the overview page's recommendation gives the classification ("high", "no").
  SetGenericBottleneckProperties({b.kernel_launch_statement(), b.kernel_launch_statement(), b.all_other_statement(),
                                  b.all_other_statement(), b.device_collectives_statement(),
                                  b.device_collectives_statement()},
                                 t);
  return t;
}

void SetGenericBottleneckProperties(const GenericBottlenecks& g, DataTable& t) {
  const std::pair<const char*, const std::string*> properties[] = {
      {"kernel_launch_bottleneck", &g.kernel_launch},   {"kernel_launch_statement", &g.kernel_launch_statement},
      {"all_other_bottleneck", &g.all_other},           {"all_other_statement", &g.all_other_statement},
      {"device_collectives_bottleneck", &g.device_collectives},
      {"device_collectives_statement", &g.device_collectives_statement}};
  for (const auto& [key, value] : properties) t.SetProperty(key, *value);
}

DataTable DiagnosticsTable(const Diagnostics& diagnostics) {
  DataTable t;
  t.AddColumn("severity", "Severity", "string");
  t.AddColumn("message", "Message", "string");
  for (const std::string& m : diagnostics.info()) t.AddRow({std::string("INFO"), m});
  for (const std::string& m : diagnostics.warnings()) t.AddRow({std::string("WARNING"), m});
  for (const std::string& m : diagnostics.errors()) t.AddRow({std::string("ERROR"), m});
  return t;
}

DataTable StepBreakdownTable(const InputPipelineAnalysisResult& result) {
  return result.tag() ? TpuStepBreakdownTable(result) : GenericStepBreakdownTable(result);
}

std::string InputPipelineToJson(const InputPipelineAnalysisResult& result,
                                const std::optional<TorchStepTable>& torch_steps) {
  DataTable steps = torch_steps ? TorchStepBreakdownTable(*torch_steps, result) : StepBreakdownTable(result);
  DataTable ops;
  ops.AddColumns({{"opName", "Input Op", "string"}, {"count", "Count", "number"},
                  {"timeInMs", "Total Time (in ms)", "number"},
                  {"timeInPercent", "Total Time (as % of total input-processing time)", "number"},
                  {"selfTimeInMs", "Total Self Time (in ms)", "number"},
                  {"selfTimeInPercent", "Total Self Time (as % of total input-processing time)", "number"},
                  {"category", "Category", "string"}});
  for (const auto& d : result.input_op_details()) {
    ops.AddRow({d.op_name(), static_cast<double>(d.count()), d.time_in_ms(), d.time_in_percent() / 100.0,
                d.self_time_in_ms(), d.self_time_in_percent() / 100.0, d.category()});
  }
  const auto& tb = result.input_time_breakdown();
  for (const auto& [key, us] : {std::pair{"enqueue_us", tb.enqueue_us()},
                                {"demanded_file_read_us", tb.demanded_file_read_us()},
                                {"advanced_file_read_us", tb.advanced_file_read_us()},
                                {"preprocessing_us", tb.preprocessing_us()},
                                {"unclassified_nonequeue_us", tb.unclassified_non_enqueue_us()}}) {
    ops.SetProperty(key, FixedDigits(us, 3));
  }
  DataTable links;
  links.AddColumn("link", "link", "string");
  const auto& details = result.recommendation().details();
  for (const std::string& d : torch_steps ? TorchInputAdvice() : std::vector<std::string>(details.begin(), details.end())) {
    links.AddRow({d});
  }
  DataTable diag = DiagnosticsTable(result.diagnostics());
  // Five tables on every device, as xprof: the first (per step, the TPU core that waited longest for
  // input) has no columns off TPU, so readers can index the others by position.
  DataTable max_infeed_cores = MaxInfeedCoreTable(result);
  return DataTablesToJson({&max_infeed_cores, &steps, &ops, &links, &diag});
}

}  // namespace tbprof
