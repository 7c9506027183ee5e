// What a const getter of a class that several threads change reads: the
// result of `read`, taken while `mu` is held.
#pragma once

#include <mutex>

namespace tbprof {

template <typename Read>
auto UnderLock(std::mutex& mu, Read&& read) {
  std::lock_guard<std::mutex> lock(mu);
  return read();
}

}  // namespace tbprof
