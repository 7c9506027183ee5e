#include "convert/analysis/op_stats_pages/input_pipeline_basics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tbprof {

std::string PercentStatement(const char* fmt, double v) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), fmt, OneDigit(v).c_str());
  return buf;
}

StepSummary StepSummaryOf(const SampleStat<double>& stat) {
  StepSummary s;
  if (stat.empty()) return s;
  s.set_average(stat.avg());
  s.set_standard_deviation(std::sqrt(std::max(0.0, stat.sample_variance())));
  s.set_minimum(stat.min());
  s.set_maximum(stat.max());
  return s;
}

bool ClassifyInputBound(double input_percent, double all_other_percent, std::string* classification,
                        std::string* statement) {
  if (input_percent >= kInfeedBound.highly) {
    *classification = "host";
    *statement = PercentStatement(
        "Your program is HIGHLY input-bound because %s%% of the total step time sampled is waiting for input. "
        "Therefore, you should first focus on reducing the input time.",
        input_percent);
    return false;
  }
  if (input_percent >= kInfeedBound.moderately) {
    *classification = "both";
    *statement = PercentStatement(
        "Your program is MODERATELY input-bound because %s%% of the total step time sampled is waiting for input. "
        "Therefore, you would need to reduce both the input time and other time.",
        input_percent);
    return false;
  }
  if (all_other_percent >= kAllOtherBound.moderately) {
    *classification = "both";
    *statement = PercentStatement(
        "Your program is POTENTIALLY input-bound because %s%% of the total step time sampled is spent on 'All "
        "Others' time (which could be due to I/O or Python execution or both).",
        all_other_percent);
    return true;
  }
  *classification = "device";
  *statement = PercentStatement(
      "Your program is NOT input-bound because only %s%% of the total step time sampled is waiting for input. "
      "Therefore, you should focus on reducing other time.",
      input_percent);
  return false;
}

void SetSummaryProperties(const std::string& prefix, const StepSummary& summary, DataTable& t) {
  t.SetProperty(prefix + "_average", OneDigit(summary.average()));
  t.SetProperty(prefix + "_standard_deviation", OneDigit(summary.standard_deviation()));
  t.SetProperty(prefix + "_minimum", OneDigit(summary.minimum()));
  t.SetProperty(prefix + "_maximum", OneDigit(summary.maximum()));
}

void SetStepTimeProperties(const InputPipelineAnalysisResult& result, DataTable& t) {
  t.SetProperty("hardware_type", result.hardware_type());
  SetSummaryProperties("steptime_ms", result.step_time_summary(), t);
}

}  // namespace tbprof
