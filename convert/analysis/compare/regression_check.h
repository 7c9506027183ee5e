// Thresholds on a comparison, for CI: `tbprof compare A B --fail-if EXPR`.
//
//   EXPR      := SUBJECT ('>' | '<') THRESHOLD
//   SUBJECT   := 'step_time' | a step category ('input', 'host_compute',
//                'device_compute', 'kernel_launch', 'device_collectives',
//                'device_to_device', 'output', 'compile', 'other'; a TPU
//                run's 'tc_compute', 'scv0_compute', 'tc_infeed', 'tc_outfeed',
//                'scv0_infeed', 'tc_idle', 'host_transfer')
//              | 'op:' NAME | 'hlo:' NAME | 'kernel:' NAME | 'event:' NAME
//   THRESHOLD := signed number followed by '%', 'ms' or 'us'
//
// A step subject reads the per-step average; 'op:' the framework ops of that
// name (host and device, every type, summed), 'hlo:' the HLO ops of that name,
// 'kernel:' the kernel, 'event:' the host events of that name in the chosen
// step (--step; without one the name is in neither run). The check is crossed when B − A (in percent of A, or
// in the unit given) is above ('>') or below ('<') the threshold. An op found
// in one run only took no time in the other; a percentage of a zero baseline
// is +infinity when B is above it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "convert/analysis/compare/run_comparison.h"
#include "convert/base/status.h"

namespace tbprof {

struct RegressionCheck {
  std::string text;     // as written
  std::string section;  // "steps", "framework_ops", "hlo_ops", "kernels", "step_events"
  std::string name;     // the step row ("step_time_ms", …) or the op / kernel name
  bool above = true;    // '>' (else '<')
  double threshold = 0;
  enum class Unit { kPercent, kMs, kUs } unit = Unit::kPercent;
};

// InvalidArgument naming what is wrong with `text`.
StatusOr<RegressionCheck> ParseRegressionCheck(std::string_view text);

struct CheckOutcome {
  enum class Result { kPassed, kCrossed, kUndecidable } result = Result::kPassed;
  std::string message;  // the figures behind the result, or why it cannot be decided
};

CheckOutcome EvaluateRegressionCheck(const RegressionCheck& check, const RunComparison& c);

}  // namespace tbprof
