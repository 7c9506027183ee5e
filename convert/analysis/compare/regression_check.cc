#include "convert/analysis/compare/regression_check.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tbprof {
namespace {

constexpr std::string_view kStepSubjects[] = {"step_time",          "input",            "host_compute",
                                              "device_compute",     "kernel_launch",    "device_collectives",
                                              "device_to_device",   "output",           "compile",
                                              "other",              "tc_compute",       "scv0_compute",
                                              "tc_infeed",          "tc_outfeed",       "scv0_infeed",
                                              "tc_idle",            "host_transfer"};

bool ParseThreshold(std::string_view s, RegressionCheck& check) {
  if (s.ends_with("%")) {
    check.unit = RegressionCheck::Unit::kPercent;
    s.remove_suffix(1);
  } else if (s.ends_with("ms")) {
    check.unit = RegressionCheck::Unit::kMs;
    s.remove_suffix(2);
  } else if (s.ends_with("us")) {
    check.unit = RegressionCheck::Unit::kUs;
    s.remove_suffix(2);
  } else {
    return false;
  }
  if (s.starts_with("+")) s.remove_prefix(1);
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), check.threshold);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(check.threshold);
}

// (A, B) of the subject in µs for op tables, ms for steps; each unknown when it cannot be read.
struct SubjectFigures {
  bool found = false;
  Figure a, b;
};

SubjectFigures OpFigures(const std::vector<OpDeltaRow>& rows, const std::string& name) {
  SubjectFigures f;
  bool a_unknown = false, b_unknown = false;
  double a = 0, b = 0;
  for (const OpDeltaRow& r : rows) {
    if (r.name != name) continue;
    f.found = true;
    // An op absent from one run took no time there; a side of unknown table stays unknown.
    if (r.presence == RowPresence::kOtherSideUnknown) {
      a_unknown |= !r.time_us_a.has_value();
      b_unknown |= !r.time_us_b.has_value();
    }
    a += r.time_us_a.value_or(0);
    b += r.time_us_b.value_or(0);
  }
  if (f.found) {
    if (!a_unknown) f.a = a;
    if (!b_unknown) f.b = b;
  }
  return f;
}

std::string Text(Figure f) {
  if (!f) return "unknown";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", *f);
  return buf;
}

}  // namespace

StatusOr<RegressionCheck> ParseRegressionCheck(std::string_view text) {
  RegressionCheck check;
  check.text = std::string(text);
  size_t op = text.find_last_of("<>");
  if (op == std::string_view::npos || op == 0) {
    return InvalidArgument("--fail-if '" + check.text + "': expected SUBJECT>THRESHOLD or SUBJECT<THRESHOLD");
  }
  check.above = text[op] == '>';
  std::string_view subject = text.substr(0, op);
  if (!ParseThreshold(text.substr(op + 1), check)) {
    return InvalidArgument("--fail-if '" + check.text +
                           "': the threshold must be a signed number followed by %, ms or us (e.g. +5%)");
  }
  for (const auto& [prefix, section] : {std::pair{"op:", "framework_ops"}, {"hlo:", "hlo_ops"}, {"kernel:", "kernels"}, {"event:", "step_events"}}) {
    if (subject.starts_with(prefix)) {
      check.section = section;
      check.name = std::string(subject.substr(std::string_view(prefix).size()));
      if (check.name.empty()) return InvalidArgument("--fail-if '" + check.text + "': no name after '" + prefix + "'");
      return check;
    }
  }
  for (std::string_view s : kStepSubjects) {
    if (subject == s) {
      check.section = "steps";
      check.name = std::string(s) + "_ms";
      return check;
    }
  }
  return InvalidArgument("--fail-if '" + check.text + "': unknown subject '" + std::string(subject) +
                         "' (step_time, a step category such as device_compute, op:NAME, hlo:NAME, kernel:NAME or event:NAME)");
}

CheckOutcome EvaluateRegressionCheck(const RegressionCheck& check, const RunComparison& c) {
  SubjectFigures f;
  double to_check_unit = 1;  // from the subject's unit (ms for steps, µs for ops) to the threshold's
  if (check.section == "steps") {
    for (const MetricRow& m : c.steps) {
      if (m.name == check.name) f = {true, m.a, m.b};
    }
    if (check.unit == RegressionCheck::Unit::kUs) to_check_unit = 1e3;
  } else {
    const auto& rows = check.section == "framework_ops" ? c.framework_ops
                       : check.section == "hlo_ops"     ? c.hlo_ops
                       : check.section == "step_events" ? c.step_events
                                                        : c.kernels;
    f = OpFigures(rows, check.name);
    if (check.unit == RegressionCheck::Unit::kMs) to_check_unit = 1e-3;
  }
  CheckOutcome outcome;
  if (!f.found) {
    outcome.result = CheckOutcome::Result::kUndecidable;
    outcome.message = check.text + ": '" + check.name + "' is in neither run";
    return outcome;
  }
  if (!f.a || !f.b) {
    outcome.result = CheckOutcome::Result::kUndecidable;
    outcome.message = check.text + ": unknown in " + std::string(!f.a ? "A" : "B") + " (A " + Text(f.a) + ", B " +
                      Text(f.b) + ")";
    return outcome;
  }
  double change;
  if (check.unit == RegressionCheck::Unit::kPercent) {
    if (*f.a != 0) {
      change = (*f.b - *f.a) / *f.a * 100.0;
    } else {
      change = *f.b > 0 ? std::numeric_limits<double>::infinity() : *f.b < 0 ? -std::numeric_limits<double>::infinity() : 0;
    }
  } else {
    change = (*f.b - *f.a) * to_check_unit;
  }
  bool crossed = check.above ? change > check.threshold : change < check.threshold;
  outcome.result = crossed ? CheckOutcome::Result::kCrossed : CheckOutcome::Result::kPassed;
  const char* unit = check.unit == RegressionCheck::Unit::kPercent ? "%"
                     : check.unit == RegressionCheck::Unit::kMs    ? " ms"
                                                                   : " us";
  char buf[160];
  std::snprintf(buf, sizeof(buf), ": A %s, B %s, change %+.4g%s", Text(f.a).c_str(), Text(f.b).c_str(), change, unit);
  outcome.message = check.text + buf + (crossed ? " -- crossed" : " -- ok");
  return outcome;
}

}  // namespace tbprof
