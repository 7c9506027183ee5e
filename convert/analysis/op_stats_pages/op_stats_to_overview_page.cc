#include "convert/analysis/op_stats_pages/op_stats_to_overview_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <set>

#include "convert/analysis/op_stats_pages/op_stats_to_input_pipeline.h"
#include "convert/analysis/op_stats_pages/op_stats_to_tf_stats.h"
#include "convert/analysis/op_stats_pages/torch_step_pages.h"
#include "convert/analysis/kernels/xspace_to_kernel_stats.h"
#include "convert/base/data_table.h"
#include "convert/base/math_util.h"

namespace tbprof {

using tensorflow::profiler::GenericRecommendation;
using tensorflow::profiler::OverviewPage;
using tensorflow::profiler::OverviewPageAnalysis;
using tensorflow::profiler::OverviewPageRecommendation;
using tensorflow::profiler::OverviewPageRunEnvironment;

namespace {

constexpr size_t kNumTopOpsShown = 10;
constexpr double kLowPrecisionPercentThreshold = 10;
constexpr double kEagerReportThresholdInPercent = 10;


OverviewPageAnalysis ComputeAnalysis(const OpStats& s) {
  OverviewPageAnalysis a;
  // Top ops over the framework-op roll-up without idle: IDLE skipped, shares of the op time.
  const OpMetricsDb& tf_db = s.device_tf_op_metrics_db;
  const std::vector<const OpMetrics*> top = SortedOps(tf_db, kNumTopOpsShown + 1);
  std::set<std::string> top_names;
  for (const OpMetrics* m : top) top_names.insert(m->name);
  const auto kernels = GroupKernelReportsByOpName(s.kernel_stats_db, &top_names);
  double total = static_cast<double>(tf_db.total_op_time_ps);
  double cumulative = 0;
  for (const OpMetrics* m : top) {
    if (m->category == "IDLE") continue;
    if (static_cast<size_t>(a.top_device_ops_size()) == kNumTopOpsShown) break;
    auto* op = a.add_top_device_ops();
    op->set_name(m->name);
    op->set_category(m->category);
    double fraction = SafeDivide(static_cast<double>(m->self_time_ps), total);
    cumulative += fraction;
    op->set_self_time_fraction(fraction);
    op->set_cumulative_time_fraction(cumulative);
    op->set_flop_rate(SafeDivide(m->flops, static_cast<double>(m->time_ps) / 1e3));
    auto it = kernels.find(m->name);
    if (it != kernels.end()) {
      op->set_is_op_tensorcore_eligible(it->second.is_op_tensor_core_eligible);
      op->set_is_op_using_tensorcore(it->second.tensor_core_duration_ns != 0);
    }
  }
  // tbprof computes no FLOP or bandwidth utilization: where no device op
  // records FLOPs (PyTorch traces, CPU runs) they are unknown, not 0 %.
  double flops = 0;
  for (const auto& [name, m] : tf_db.ops) flops += m.flops;
  if (flops == 0) {
    a.set_flop_rate_utilization_relative_to_roofline_percent(-1);
    a.set_memory_bw_utilization_relative_to_hw_limit_percent(-1);
    a.set_mxu_utilization_percent(-1);
  }
  uint64_t host_occurrences = 0, device_occurrences = 0;
  double host_self = 0, host_eager = 0, device_self = 0, device_eager = 0;
  for (const auto& [name, m] : s.host_op_metrics_db.ops) {
    if (m.category == "IDLE") continue;
    host_occurrences += m.occurrences;
    host_self += static_cast<double>(m.self_time_ps);
    if (m.is_eager) host_eager += static_cast<double>(m.self_time_ps);
  }
  for (const auto& [name, m] : tf_db.ops) {
    if (m.category == "IDLE") continue;
    device_occurrences += m.occurrences;
    device_self += static_cast<double>(m.self_time_ps);
    if (m.is_eager) device_eager += static_cast<double>(m.self_time_ps);
  }
  // A share of nothing is unknown, not 0 % (xprof's SafeDivide would print
  // 0.0%): negative, which the table writes as xprof's "unknown".
  auto share = [](double part, double whole) { return whole > 0 ? 100.0 * part / whole : -1.0; };
  double all = static_cast<double>(host_occurrences + device_occurrences);
  a.set_host_tf_op_percent(share(static_cast<double>(host_occurrences), all));
  a.set_device_tf_op_percent(share(static_cast<double>(device_occurrences), all));
  a.set_host_op_time_eager_percent(share(host_eager, host_self));
  a.set_device_op_time_eager_percent(share(device_eager, device_self));
  auto idle_percent = [&share](const OpMetricsDb& db) {
    auto it = db.ops.find("IDLE");
    double idle = it == db.ops.end() ? 0.0 : static_cast<double>(it->second.self_time_ps);
    return share(idle, static_cast<double>(db.total_time_ps));
  };
  // Duty cycle from the devices' busy and idle time (xprof computes it for
  // TPU only; GPU kernels give the same figure). The idle share is its
  // complement, so the two always add up to 100 %. Without a traced device
  // both are unknown (negative: written as xprof's "unknown"), not 0.
  const OpMetricsDb& device_db = s.device_op_metrics_db;
  double traced = static_cast<double>(device_db.busy_time_ps + device_db.idle_time_ps);
  if (traced > 0) {
    double duty = 100.0 * static_cast<double>(device_db.busy_time_ps) / traced;
    a.set_device_duty_cycle_percent(duty);
    a.set_device_idle_time_percent(100.0 - duty);
  } else if (s.run_environment.hardware_type == "CPU_ONLY") {
    a.set_device_duty_cycle_percent(-1);
    a.set_device_idle_time_percent(-1);
  } else {
    a.set_device_duty_cycle_percent(-1);
    a.set_device_idle_time_percent(idle_percent(device_db));
  }
  a.set_host_idle_time_percent(idle_percent(s.host_op_metrics_db));
  double c16 = static_cast<double>(s.compute_16bit_ps), c32 = static_cast<double>(s.compute_32bit_ps);
  a.set_device_compute_16bit_percent(100.0 * SafeDivide(c16, c16 + c32));
  a.set_device_compute_32bit_percent(100.0 * SafeDivide(c32, c16 + c32));
  if (c16 + c32 == 0 && s.compute_unknown_precision_ps > 0) {  // computed, in a precision nothing tells
    a.set_device_compute_16bit_percent(-1);
    a.set_device_compute_32bit_percent(-1);
  }
  return a;
}

void AddTip(google::protobuf::RepeatedPtrField<tensorflow::profiler::OverviewPageTip>* tips, const char* link) {
  tips->Add()->set_link(link);
}

OverviewPageRecommendation ComputeRecommendation(const OpStats& s,
                                                 const tensorflow::profiler::InputPipelineAnalysisResult& ipa,
                                                 const OverviewPageAnalysis& analysis) {
  OverviewPageRecommendation r;
  tensorflow::profiler::BottleneckAnalysis b;
  ipa.recommendation().bottleneck_analysis().UnpackTo(&b);
  r.set_bottleneck(b.input_classification());
  r.set_statement(b.input_statement());
  GenericRecommendation g;
  g.set_kernel_launch_bottleneck(b.kernel_launch_classification());
  g.set_kernel_launch_statement(b.kernel_launch_statement());
  g.set_all_other_bottleneck(b.all_other_classification());
  g.set_all_other_statement(b.all_other_statement());
  g.set_device_collectives_bottleneck(b.device_collectives_classification());
  g.set_device_collectives_statement(b.device_collectives_statement());
  double c16 = static_cast<double>(s.compute_16bit_ps), c32 = static_cast<double>(s.compute_32bit_ps);
  if (c16 + c32 > 0 && analysis.device_compute_16bit_percent() < kLowPrecisionPercentThreshold) {
    char buf[512];
    std::snprintf(buf, sizeof(buf),
                  "Only %s%% of device computation is 16 bit. So you might want to replace more 32-bit Ops by "
                  "16-bit Ops to improve performance (if the reduced accuracy is acceptable).",
                  OneDigit(analysis.device_compute_16bit_percent()).c_str());
    g.set_precision_statement(buf);
  }
  r.mutable_recommendation()->PackFrom(g);
  std::string eager;
  if (analysis.host_op_time_eager_percent() > kEagerReportThresholdInPercent) {
    eager += OneDigit(analysis.host_op_time_eager_percent()) + "% of Op time on the host used eager execution. ";
  }
  if (analysis.device_op_time_eager_percent() > kEagerReportThresholdInPercent) {
    eager += OneDigit(analysis.device_op_time_eager_percent()) + "% of Op time on the device used eager execution. ";
  }
  if (!eager.empty()) {
    eager +=
        "Performance could be improved with <a href=\"https://www.tensorflow.org/guide/function\" "
        "target=\"_blank\">tf.function.</a>";
  }
  r.set_eager_statement_html(eager);
  AddTip(r.mutable_faq_tips(), "Refer to the TF2 Profiler FAQ");
  AddTip(r.mutable_host_tips(),
         "input_pipeline_analyzer (especially Section 3 for the breakdown of input operations on the Host)");
  AddTip(r.mutable_host_tips(),
         "trace_viewer (look at the activities on the timeline of each Host Thread near the bottom of the trace "
         "view)");
  // The device tips name the run's hardware type (GPU, TPU, CPU_ONLY) as xprof does; TPU runs are pointed
  // at op_profile and at each "TPU core" timeline instead.
  const std::string& device_name = ipa.hardware_type();
  bool tpu = device_name == "TPU";
  std::string op_tip = std::string(tpu ? "op_profile" : "framework_op_stats") +
                       " (identify the time-consuming operations executed on the " + device_name + ")";
  std::string timeline_tip = "trace_viewer (look at the activities on the timeline of each " +
                             (tpu ? std::string("TPU core") : device_name) + " in the trace view)";
  AddTip(r.mutable_device_tips(), op_tip.c_str());
  AddTip(r.mutable_device_tips(), timeline_tip.c_str());
  AddTip(r.mutable_documentation_tips(),
         "<a href=\"https://www.tensorflow.org/guide/data_performance_analysis\" target=\"_blank\">Analyze tf.data "
         "performance with the TF Profiler</a>");
  AddTip(r.mutable_documentation_tips(),
         "<a href=\"https://www.tensorflow.org/guide/data_performance\" target=\"_blank\">Better performance with "
         "the tf.data API</a>");
  return r;
}

OverviewPageRunEnvironment ComputeRunEnvironment(const OpStats& s) {
  OverviewPageRunEnvironment env;
  const RunEnvironment& re = s.run_environment;
  env.set_host_count(re.host_count);
  env.set_task_count(re.task_count);
  for (const std::string& h : re.hostnames) (*env.mutable_hostnames())[h] = true;
  env.set_device_type(re.device_type);
  env.set_device_core_count(re.device_core_count);
  if (re.is_training.has_value()) env.set_is_training(*re.is_training);
  // One entry per host with its session start; the job's duration spans them all.
  uint64_t first_start = std::numeric_limits<uint64_t>::max(), last_stop = 0;
  for (const auto& [host, session] : re.sessions) {
    auto* job = env.add_host_dependent_job_info();
    job->set_host_id(host);
    job->set_profile_time_ns(session.start_ns);
    first_start = std::min(first_start, session.start_ns);
    last_stop = std::max(last_stop, session.stop_ns);
  }
  if (!re.sessions.empty()) {
    uint64_t ms = (last_stop - first_start) / 1'000'000;
    env.mutable_host_independent_job_info()->set_profile_duration_ms(
        static_cast<uint32_t>(std::min<uint64_t>(ms, std::numeric_limits<uint32_t>::max())));
  }
  return env;
}

// absl::FormatTime's default (RFC 3339, all significant fractional digits) in
// UTC, which xprof uses for the run environment's times:
// "2023-11-14T22:13:20.5+00:00".
std::string FormatUtcTime(uint64_t unix_ns) {
  std::time_t secs = static_cast<std::time_t>(unix_ns / 1'000'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out = date;
  if (uint64_t frac = unix_ns % 1'000'000'000; frac != 0) {
    char digits[16];
    std::snprintf(digits, sizeof digits, ".%09llu", static_cast<unsigned long long>(frac));
    std::string f = digits;
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out + "+00:00";
}

DataTable AnalysisTable(const OverviewPageAnalysis& a, const std::string& hardware_type) {
  DataTable t;
  bool tpu = hardware_type == "TPU";
  bool gpu = hardware_type == "GPU";
  t.AddColumn("selfTimePercent", "Time (%)", "number");
  t.AddColumn("cumulativeTimePercent", "Cumulative time (%)", "number");
  t.AddColumn("category", "Category", "string");
  t.AddColumn("operation", "Operation", "string");
  t.AddColumn("flopRate", tpu ? "Bf16 Normalized Flop Rate(GFLOPs/Sec)" : "GFLOPs/Sec", "number");
  if (gpu) t.AddColumn("tcEligibility", "TensorCore eligibility", "boolean");
  for (const auto& op : a.top_device_ops()) {
    std::vector<DataTable::Cell> row;
    row.emplace_back(op.self_time_fraction());
    row.emplace_back(op.cumulative_time_fraction());
    row.emplace_back(std::in_place_type<std::string>, op.category());
    row.emplace_back(std::in_place_type<std::string>, op.name());
    row.emplace_back(op.flop_rate());
    if (gpu) row.emplace_back(op.is_op_tensorcore_eligible());
    t.AddRow(std::move(row));
  }
  // xprof's StrFormatToPercentage: a negative figure is one that is not known.
  auto pct = [](double v) { return v < 0 ? std::string("unknown") : OneDigit(v) + "%"; };
  t.SetProperty("device_duty_cycle_percent", pct(a.device_duty_cycle_percent()));
  t.SetProperty("device_idle_time_percent", pct(a.device_idle_time_percent()));
  t.SetProperty("device_op_time_eager_percent", pct(a.device_op_time_eager_percent()));
  t.SetProperty("device_tf_op_percent", pct(a.device_tf_op_percent()));
  // A TPU's analysis leaves out the precision split (xprof's TPU table).
  if (!tpu) {
    t.SetProperty("device_compute_16bit_percent", pct(a.device_compute_16bit_percent()));
    t.SetProperty("device_compute_32bit_percent", pct(a.device_compute_32bit_percent()));
  }
  t.SetProperty("flop_rate_utilization_relative_to_roofline",
                pct(a.flop_rate_utilization_relative_to_roofline_percent()));
  t.SetProperty("host_idle_time_percent", pct(a.host_idle_time_percent()));
  t.SetProperty("host_op_time_eager_percent", pct(a.host_op_time_eager_percent()));
  t.SetProperty("host_tf_op_percent", pct(a.host_tf_op_percent()));
  t.SetProperty("host_trace_level", std::to_string(a.host_trace_level()));
  t.SetProperty("memory_bw_utilization_relative_to_hw_limit",
                pct(a.memory_bw_utilization_relative_to_hw_limit_percent()));
  t.SetProperty("mxu_utilization_percent", pct(a.mxu_utilization_percent()));
  t.SetProperty("remark_color", a.remark_color());
  t.SetProperty("remark_text", a.remark_text());
  return t;
}

DataTable RunEnvironmentTable(const OverviewPageRunEnvironment& env) {
  DataTable t;
  for (const char* id : {"host_id", "command_line", "start_time", "bns_address"}) t.AddColumn(id, id, "string");
  uint64_t profile_start_ns = 0;
  for (const auto& job : env.host_dependent_job_info()) {
    // The job's own start time is unknown (not the epoch) when it was not recorded.
    t.AddRow({job.host_id(), job.command_line(),
              job.start_time() > 0 ? FormatUtcTime(static_cast<uint64_t>(job.start_time())) : std::string(),
              job.bns_address()});
    if (job.profile_time_ns() > 0 && (profile_start_ns == 0 || job.profile_time_ns() < profile_start_ns)) {
      profile_start_ns = job.profile_time_ns();
    }
  }
  std::string task_count = env.task_count() >= 0 ? std::to_string(env.task_count()) : "unknown";
  if (env.task_count() > 0 && env.host_count() > 0) {
    task_count += " (num tasks per host = " + std::to_string(env.task_count() / env.host_count()) + ")";
  }
  std::string cores = env.device_core_count() >= 0 ? std::to_string(env.device_core_count()) : "unknown";
  // A CPU-only run has no device whose cores could be counted: empty, not "0".
  if (env.device_type() == "CPU" && env.device_core_count() == 0) cores.clear();
  if (env.replica_count() > 0 && env.num_cores_per_replica() > 0) {
    cores += " (Replica count = " + std::to_string(env.replica_count()) +
             ", num cores per replica = " + std::to_string(env.num_cores_per_replica()) + ")";
  }
  t.SetProperty("host_count", env.host_count() >= 0 ? std::to_string(env.host_count()) : "unknown");
  t.SetProperty("task_count", task_count);
  t.SetProperty("device_type", env.device_type());
  t.SetProperty("device_core_count", cores);
  // xprof's empty value where no HLO module could tell training from inference.
  t.SetProperty("is_training", !env.has_is_training() ? "" : env.is_training() ? "true" : "false");
  // The profiling session (xprof's page shows these two when present).
  if (profile_start_ns > 0) t.SetProperty("profile_start_time", FormatUtcTime(profile_start_ns));
  uint32_t duration_ms = env.host_independent_job_info().profile_duration_ms();
  if (profile_start_ns > 0 || duration_ms > 0) t.SetProperty("profile_duration_ms", std::to_string(duration_ms));
  return t;
}

DataTable RecommendationTable(const OverviewPageRecommendation& r) {
  DataTable t;
  for (const char* id : {"tip_type", "link", "description"}) t.AddColumn(id, id, "string");
  auto add = [&](const auto& tips, const char* type, const char* description) {
    for (const auto& tip : tips) t.AddRow({std::string(type), tip.link(), std::string(description)});
  };
  add(r.faq_tips(), "faq", "Tool troubleshooting / FAQ");
  add(r.host_tips(), "host", "Next steps for reducing the Host time");
  add(r.device_tips(), "device", "Next steps for reducing the Device time");
  add(r.documentation_tips(), "doc", "Other useful resources");
  add(r.inference_tips(), "inference", "Next steps for reducing the inference latency");
  GenericRecommendation g;
  r.recommendation().UnpackTo(&g);
  t.SetProperty("bottleneck", r.bottleneck());
  t.SetProperty("statement", r.statement());
  SetGenericBottleneckProperties({g.kernel_launch_bottleneck(), g.kernel_launch_statement(), g.all_other_bottleneck(),
                                  g.all_other_statement(), g.device_collectives_bottleneck(),
                                  g.device_collectives_statement()},
                                 t);
  t.SetProperty("precision_statement", g.precision_statement());
  t.SetProperty("non_bottleneck_tip_types",
                r.bottleneck() == "host" ? "device" : r.bottleneck() == "device" ? "host" : "");
  if (!r.eager_statement_html().empty()) t.SetProperty("eager_statement_html", r.eager_statement_html());
  if (!r.tf_function_statement_html().empty()) {
    t.SetProperty("tf_function_statement_html", r.tf_function_statement_html());
  }
  if (!r.outside_compilation_statement_html().empty()) {
    t.SetProperty("outside_compilation_statement_html", r.outside_compilation_statement_html());
  }
  return t;
}

DataTable InferenceLatencyTable(const tensorflow::profiler::OverviewInferenceLatency& latency) {
  DataTable t;
  t.AddColumns({{"percentile", "percentile", "string"},
                {"hostTimeMs", "Host time (in ms)", "number"},
                {"deviceTimeMs", "Device time (in ms)", "number"},
                {"communicationTimeMs", "Host-device communication time (in ms)", "number"},
                {"totalTimeMs", "Total latency (in ms)", "number"}});
  for (int i = 0; i < latency.latency_breakdowns_size() && i < latency.percentile_numbers_size(); ++i) {
    const auto& b = latency.latency_breakdowns(i);
    t.AddRow({FixedDigits(latency.percentile_numbers(i), 1) + "%", b.host_latency_us() / 1000.0,
              b.device_latency_us() / 1000.0, b.communication_latency_us() / 1000.0,
              b.total_latency_us() / 1000.0});
  }
  return t;
}

}  // namespace

OverviewPage ConvertOpStatsToOverviewPage(const OpStats& op_stats) {
  OverviewPage page;
  *page.mutable_input_analysis() = ConvertOpStatsToInputPipelineAnalysis(op_stats);
  *page.mutable_analysis() = ComputeAnalysis(op_stats);
  *page.mutable_recommendation() = ComputeRecommendation(op_stats, page.input_analysis(), page.analysis());
  *page.mutable_run_environment() = ComputeRunEnvironment(op_stats);
  // XSpace errors/warnings, deduplicated and sorted, then the step warnings.
  std::set<std::string> errors(op_stats.errors.begin(), op_stats.errors.end());
  std::set<std::string> warnings(op_stats.warnings.begin(), op_stats.warnings.end());
  for (const std::string& e : errors) page.mutable_diagnostics()->add_errors(e);
  for (const std::string& w : warnings) page.mutable_diagnostics()->add_warnings(w);
  for (const std::string& w : page.input_analysis().diagnostics().warnings()) {
    page.mutable_diagnostics()->add_warnings(w);
  }
  return page;
}

void MarkUnrecordedShares(OverviewPage& page) {
  auto* a = page.mutable_analysis();
  if (a->host_tf_op_percent() + a->device_tf_op_percent() > 0) return;
  constexpr double kUnknown = -1;  // written as xprof's "unknown"
  a->set_host_tf_op_percent(kUnknown);
  a->set_device_tf_op_percent(kUnknown);
  if (a->host_idle_time_percent() == 0 && a->device_idle_time_percent() == 0) {
    a->set_host_idle_time_percent(kUnknown);
    a->set_device_idle_time_percent(kUnknown);
  }
  if (a->host_op_time_eager_percent() == 0 && a->device_op_time_eager_percent() == 0) {
    a->set_host_op_time_eager_percent(kUnknown);
    a->set_device_op_time_eager_percent(kUnknown);
  }
}

std::string OverviewPageToJson(const OverviewPage& page, const std::optional<TorchGpuSummary>& torch_gpu,
                               const std::optional<TorchStepTable>& torch_steps) {
  std::string hardware = page.input_analysis().hardware_type();
  DataTable analysis = AnalysisTable(page.analysis(), hardware);
  if (torch_gpu) {
    // Two decimals, as torch-tb-profiler showed them.
    auto pct = [](const std::optional<double>& v) { return v ? FixedDigits(*v, 2) + "%" : std::string("unknown"); };
    analysis.SetProperty("gpu_utilization_percent", pct(torch_gpu->utilization_percent));
    analysis.SetProperty("sm_efficiency_percent", pct(torch_gpu->sm_efficiency_percent));
    analysis.SetProperty("achieved_occupancy_percent", pct(torch_gpu->achieved_occupancy_percent));
  }
  DataTable steps = torch_steps ? TorchStepBreakdownTable(*torch_steps, page.input_analysis())
                                : StepBreakdownTable(page.input_analysis());
  DataTable env = RunEnvironmentTable(page.run_environment());
  DataTable rec = torch_steps ? TorchRecommendationTable(*torch_steps, torch_gpu.value_or(TorchGpuSummary()))
                              : RecommendationTable(page.recommendation());
  if (torch_steps) {
    analysis.SetProperty("framework", kPyTorchFramework);
    env.SetProperty("framework", kPyTorchFramework);
  }
  DataTable latency = InferenceLatencyTable(page.inference_latency());
  DataTable diag = DiagnosticsTable(page.diagnostics());
  return DataTablesToJson({&analysis, &steps, &env, &rec, &latency, nullptr, &diag});
}

}  // namespace tbprof
