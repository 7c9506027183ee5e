#include "convert/xplane/event_nesting.h"

#include <algorithm>

namespace tbprof {

std::vector<uint32_t> SortedLineEvents(const XPlaneModel& plane, const LineModel& line) {
  std::vector<uint32_t> order(line.num_events);
  for (uint32_t i = 0; i < line.num_events; ++i) order[i] = line.first_event + i;
  auto less = [&](uint32_t a, uint32_t b) { return OuterFirst(plane.events[a], plane.events[b]); };
  if (!std::is_sorted(order.begin(), order.end(), less)) std::stable_sort(order.begin(), order.end(), less);
  return order;
}

}  // namespace tbprof
