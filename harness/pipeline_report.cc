#include "harness/pipeline_report.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>

#include "convert/base/strings.h"

namespace tbprof::harness {
namespace {

std::string Format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string BottleneckCell(const VariantReport& r) {
  if (!r.analysis) return r.analysis_error.empty() ? "n/a" : "n/a (" + r.analysis_error + ")";
  if (!r.analysis->is_input_bound) return "none (not input bound)";
  return r.analysis->bottleneck_iterator.empty() ? "?" : r.analysis->bottleneck_iterator;
}

}  // namespace

std::string ComparisonTable(const std::vector<VariantReport>& reports) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-20s %11s %9s %9s %9s %7s %11s  %s\n", "variant", "elements/s", "step ms",
                "p50 ms", "p99 ms", "input%", "slow calls", "bottleneck (tf.data analysis)");
  out += line;
  for (const VariantReport& r : reports) {
    const VariantRun& v = r.run;
    std::string slow = v.traced ? std::to_string(v.slow_calls) + "/" + std::to_string(v.root_calls) : "—";
    std::snprintf(line, sizeof line, "%-20s %11.0f %9.2f %9.2f %9.2f %6.1f%% %11s  %s", v.variant.c_str(),
                  v.elements_per_s, v.step_mean_ms, v.step_p50_ms, v.step_p99_ms, v.input_bound_pct, slow.c_str(),
                  BottleneckCell(r).c_str());
    out += line;
    if (r.check) out += std::string(r.check->ok ? "  [check ok: " : "  [CHECK FAILED: ") + r.check->message + "]";
    out += "\n";
  }
  return out;
}

std::string ReportsToJson(const std::vector<VariantReport>& reports, const PipelineCosts& c) {
  boost::json::object root;
  root["costs"] = {{"num_files", c.num_files},
                   {"records_per_file", c.records_per_file},
                   {"record_bytes", c.record_bytes},
                   {"read_us", c.read_us},
                   {"decode_us", c.decode_us},
                   {"decoded_bytes", c.decoded_bytes},
                   {"vectorized_fixed_us", c.vectorized_fixed_us},
                   {"vectorized_per_element_us", c.vectorized_per_element_us},
                   {"batch_size", c.batch_size},
                   {"prefetch_buffer", c.prefetch_buffer},
                   {"num_parallel_calls", c.num_parallel_calls},
                   {"cycle_length", c.cycle_length},
                   {"model_us", c.model_us}};
  boost::json::array variants;
  bool all_ok = true, any_check = false;
  for (const VariantReport& r : reports) {
    const VariantRun& v = r.run;
    boost::json::object o;
    o["variant"] = v.variant;
    o["steps"] = v.steps;
    o["elements"] = v.elements;
    o["wall_s"] = v.wall_s;
    o["elements_per_s"] = v.elements_per_s;
    o["step_time_ms"] = {{"mean", v.step_mean_ms}, {"p50", v.step_p50_ms}, {"p99", v.step_p99_ms}};
    o["input_bound_pct"] = v.input_bound_pct;
    if (v.traced) {
      o["root_calls"] = v.root_calls;
      o["slow_calls"] = v.slow_calls;
      o["max_root_call_us"] = v.max_root_call_us;
      o["traced_events"] = v.traced_events;
    } else {  // traced by whoever captured, not by the run: unknown here
      o["root_calls"] = o["slow_calls"] = o["max_root_call_us"] = o["traced_events"] = nullptr;
    }
    o["xplane"] = v.xplane_path;
    if (r.analysis) {
      o["analysis"] = {{"is_input_bound", r.analysis->is_input_bound},
                       {"bottleneck_iterator", r.analysis->bottleneck_iterator},
                       {"bottleneck_long_name", r.analysis->bottleneck_long_name},
                       {"bottleneck_type", r.analysis->bottleneck_type},
                       {"num_calls", r.analysis->num_calls},
                       {"num_slow_calls", r.analysis->num_slow_calls},
                       {"max_latency_ps", r.analysis->max_latency_ps},
                       {"summary", r.analysis->summary}};
      boost::json::array its;
      for (const auto& it : r.analysis->slowest_call)
        its.push_back({{"iterator", it.long_name}, {"self_time_us", double(it.self_time_ps) / 1e6},
                       {"blocking", it.is_blocking}});
      o["analysis"].as_object()["slowest_call_iterators"] = std::move(its);
    } else {
      o["analysis"] = nullptr;
      if (!r.analysis_error.empty()) o["analysis_error"] = r.analysis_error;
    }
    if (r.check) {
      any_check = true;
      all_ok = all_ok && r.check->ok;
      o["check"] = {{"ok", r.check->ok}, {"message", r.check->message}};
    }
    variants.push_back(std::move(o));
  }
  root["variants"] = std::move(variants);
  if (any_check) root["check_ok"] = all_ok;
  return boost::json::serialize(root) + "\n";
}

std::string ThroughputSvg(const std::vector<VariantReport>& reports) {
  const int bar_h = 28, gap = 10, left = 170, width = 720, top = 40;
  const int height = top + static_cast<int>(reports.size()) * (bar_h + gap) + 30;
  double max_v = 1;
  for (const VariantReport& r : reports) max_v = std::max(max_v, r.run.elements_per_s);
  const double scale = (width - left - 110) / max_v;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
                    std::to_string(height) + "\" font-family=\"sans-serif\" font-size=\"13\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"10\" y=\"24\" font-size=\"16\">Input pipeline throughput (elements/s) per variant</text>\n";
  int y = top;
  for (const VariantReport& r : reports) {
    int w = std::max(1, static_cast<int>(r.run.elements_per_s * scale));
    bool input_bound = r.analysis ? r.analysis->is_input_bound : r.run.input_bound_pct >= 5.0;
    svg += "<text x=\"" + std::to_string(left - 8) + "\" y=\"" + std::to_string(y + bar_h / 2 + 5) +
           "\" text-anchor=\"end\">" + EscapeMarkup(r.run.variant) + "</text>\n";
    svg += "<rect x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(y) + "\" width=\"" + std::to_string(w) +
           "\" height=\"" + std::to_string(bar_h) + "\" fill=\"" + (input_bound ? "#e8710a" : "#1a73e8") + "\"/>\n";
    svg += "<text x=\"" + std::to_string(left + w + 6) + "\" y=\"" + std::to_string(y + bar_h / 2 + 5) + "\">" +
           Format("%.0f", r.run.elements_per_s) + "</text>\n";
    y += bar_h + gap;
  }
  svg += "<text x=\"10\" y=\"" + std::to_string(height - 10) +
         "\" font-size=\"11\" fill=\"#555\">orange: input bound, blue: not input bound</text>\n";
  svg += "</svg>\n";
  return svg;
}

}  // namespace tbprof::harness
