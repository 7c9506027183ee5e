// The rows of a comparison: a figure in each run, whether a table row was
// found in both, and the delta rules (B − A; nothing from an unknown side).
// Shared by the matching rules (row_matching) and the comparison itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tbprof {

using Figure = std::optional<double>;
// B − A when both are known.
Figure DeltaOf(Figure a, Figure b);
// (B − A) / A in percent when both are known and A is not 0.
Figure DeltaPercentOf(Figure a, Figure b);

// One figure in each run.
struct MetricRow {
  std::string name;  // e.g. "step_time_ms", "GPU_0_bfc/peak_bytes_in_use"
  Figure a, b;
};

// Whether a table row was found in both runs, only in B, only in A, or in a
// run whose table is unknown (then its side stays empty and has no delta).
enum class RowPresence { kBoth, kAdded, kRemoved, kOtherSideUnknown };
std::string_view RowPresenceName(RowPresence presence);

// An op (framework or HLO) or a kernel in both runs. Times in microseconds.
// A row found in one run only has empty figures on the other side; its delta
// is then the time it adds (B) or saves (−A): an op that did not run took no time.
struct OpDeltaRow {
  std::string where;  // framework ops: "Host" or "Device"; otherwise empty
  std::string type;   // framework op type or HLO category; empty for kernels
  std::string name;
  RowPresence presence = RowPresence::kBoth;
  Figure occurrences_a, occurrences_b, time_us_a, time_us_b, self_time_us_a, self_time_us_b;
  Figure tensor_core_share_a, tensor_core_share_b;  // kernels: share of the kernel's time on TensorCores
  Figure Delta() const;
  Figure DeltaPercent() const;
  Figure SelfDelta() const;
};

}  // namespace tbprof
