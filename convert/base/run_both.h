// Two pieces of independent work on the two cores this tool is sized for:
// `second` on a new thread, `first` on the calling one. Both always finish
// before it returns; an exception from either is rethrown (first's first).
// The caller's cancellation token and memory grant hold on the second thread too.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <utility>
#include <vector>

#include "convert/base/cancellation.h"
#include "convert/base/memory_grant.h"

namespace tbprof {

template <typename First, typename Second>
void RunBoth(First&& first, Second&& second) {
  std::exception_ptr second_error;
  std::thread worker([&, token = CurrentCancellation(), grant = CurrentMemoryGrant()] {
    CancellationScope cancellation(token);
    MemoryGrantScope memory(grant);
    try {
      second();
    } catch (...) {
      second_error = std::current_exception();
    }
  });
  try {
    first();
  } catch (...) {
    worker.join();
    throw;
  }
  worker.join();
  if (second_error) std::rethrow_exception(second_error);
}

// Calls work(i) for every i < items, shared out between the two threads by
// weight(i): heaviest first, each to the lighter side. Work on different
// items must not share state.
template <typename Weight, typename Work>
void ForEachOnBoth(size_t items, Weight&& weight, Work&& work) {
  std::vector<size_t> order(items);
  for (size_t i = 0; i < items; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weight(a) > weight(b); });
  std::vector<size_t> sides[2];
  size_t load[2] = {0, 0};
  for (size_t i : order) {
    const int lighter = load[1] < load[0];
    sides[lighter].push_back(i);
    load[lighter] += weight(i);
  }
  RunBoth([&] { for (size_t i : sides[0]) work(i); }, [&] { for (size_t i : sides[1]) work(i); });
}

}  // namespace tbprof
