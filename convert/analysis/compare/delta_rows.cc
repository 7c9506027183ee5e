#include "convert/analysis/compare/delta_rows.h"

namespace tbprof {

std::string_view RowPresenceName(RowPresence presence) {
  constexpr std::string_view kNames[] = {"both", "added", "removed", "unknown"};  // in RowPresence's order
  return kNames[static_cast<size_t>(presence)];
}

Figure DeltaOf(Figure a, Figure b) {
  if (!a || !b) return std::nullopt;
  return *b - *a;
}

Figure DeltaPercentOf(Figure a, Figure b) {
  if (!a || !b || *a == 0) return std::nullopt;
  return (*b - *a) / *a * 100.0;
}

namespace {

// An op present in one run only: the other run spent no time on it.
Figure RowDelta(RowPresence presence, Figure a, Figure b) {
  if (presence == RowPresence::kAdded) return b;
  if (presence == RowPresence::kRemoved && a) return -*a;
  return DeltaOf(a, b);
}

}  // namespace

Figure OpDeltaRow::Delta() const { return RowDelta(presence, time_us_a, time_us_b); }
Figure OpDeltaRow::DeltaPercent() const {
  return presence == RowPresence::kBoth ? DeltaPercentOf(time_us_a, time_us_b) : std::nullopt;
}
Figure OpDeltaRow::SelfDelta() const { return RowDelta(presence, self_time_us_a, self_time_us_b); }

}  // namespace tbprof
