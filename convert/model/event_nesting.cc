#include "convert/model/event_nesting.h"

#include <algorithm>
#include <cstddef>

#include "convert/base/huge_pages.h"

namespace tbprof {

std::vector<uint32_t> SortedLineEvents(const XPlaneModel& plane, const LineModel& line) {
  std::vector<uint32_t> order(line.num_events);
  for (uint32_t i = 0; i < line.num_events; ++i) order[i] = line.first_event + i;
  auto less = [&](uint32_t a, uint32_t b) { return OuterFirst(plane.events[a], plane.events[b]); };
  if (!std::is_sorted(order.begin(), order.end(), less)) std::stable_sort(order.begin(), order.end(), less);
  return order;
}

std::vector<uint32_t> MergeSortedLines(const XPlaneModel& plane, const std::vector<std::vector<uint32_t>>& lines) {
  std::vector<uint32_t> order;
  size_t total = 0;
  for (const auto& line : lines) total += line.size();
  ReserveLarge(order, total);
  // Each line merged into the ones before it: a plane has a few streams, and
  // a merge of sorted runs is a linear pass (a heap over the lines' heads
  // measured three times the instructions). The merge is stable, so alike
  // events keep the order of their lines.
  auto earlier = [&](uint32_t a, uint32_t b) { return OuterFirst(plane.events[a], plane.events[b]); };
  for (const auto& line : lines) {
    const size_t mid = order.size();
    order.insert(order.end(), line.begin(), line.end());
    std::inplace_merge(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(mid), order.end(), earlier);
  }
  return order;
}

}  // namespace tbprof
