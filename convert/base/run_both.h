// Two pieces of independent work on the two cores this tool is sized for:
// `second` on a new thread, `first` on the calling one. Both always finish
// before it returns; an exception from either is rethrown (first's first).
// The caller's cancellation token holds on the second thread too.
#pragma once

#include <exception>
#include <thread>
#include <utility>

#include "convert/base/cancellation.h"

namespace tbprof {

template <typename First, typename Second>
void RunBoth(First&& first, Second&& second) {
  std::exception_ptr second_error;
  std::thread worker([&, token = CurrentCancellation()] {
    CancellationScope cancellation(token);
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

}  // namespace tbprof
