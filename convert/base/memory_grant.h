// Memory a running piece of work may hold, as granted by whoever admitted it.
// The server admits a conversion by an estimate made before the work starts
// (from file sizes); the work then claims what it actually allocates in bulk
// (the model's event and stat arrays once the decoder has counted them, an
// answer's buffer as it grows). Claims within the reservation are free; past
// it the grant asks its owner for more, and a refusal becomes an error the
// work returns instead of allocating. So a file whose events are smaller than
// estimates assume, or an answer larger than expected, cannot take the
// process past its memory bound.
//
// Like cancellation, the grant is installed per thread (MemoryGrantScope) so
// converters' signatures do not carry it; RunBoth hands it to its second
// thread. Without a grant (the CLI, tests) every claim succeeds.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "convert/base/status.h"

namespace tbprof {

class MemoryGrant {
 public:
  // `more(bytes, total)` asks the owner for `bytes` beyond what is reserved,
  // `total` being the reservation it would make; OK when given.
  using MoreFn = std::function<Status(uint64_t bytes, uint64_t total)>;
  MemoryGrant(uint64_t reserved, MoreFn more) : reserved_(reserved), more_(std::move(more)) {}

  // The work is about to hold `bytes` more; `what` names it in the error.
  Status Claim(uint64_t bytes, std::string_view what);
  // Claimed memory the work no longer holds (the reservation stays).
  void Release(uint64_t bytes);

  uint64_t reserved() const;
  uint64_t claimed() const;
  uint64_t peak_claimed() const;
  // Whether a claim was refused: what the work then returns is no verdict on
  // its input (caches keep nothing of it).
  bool refused() const;

 private:
  mutable std::mutex mu_;
  uint64_t reserved_;
  uint64_t claimed_ = 0, peak_claimed_ = 0;
  bool refused_ = false;
  MoreFn more_;
};

// Installs `grant` as the calling thread's for the scope's lifetime (scopes
// nest; a null grant means "unbounded").
class MemoryGrantScope {
 public:
  explicit MemoryGrantScope(std::shared_ptr<MemoryGrant> grant);
  ~MemoryGrantScope();
  MemoryGrantScope(const MemoryGrantScope&) = delete;
  MemoryGrantScope& operator=(const MemoryGrantScope&) = delete;

 private:
  std::shared_ptr<MemoryGrant> previous_;
};

std::shared_ptr<MemoryGrant> CurrentMemoryGrant();

// The calling thread's grant's Claim / Release; OK and nothing without one.
Status ClaimMemory(uint64_t bytes, std::string_view what);
void ReleaseMemory(uint64_t bytes);
// Whether the calling thread's grant refused a claim.
bool MemoryRefused();

// Makes room in `out` for `extra` more bytes, growing it by half its capacity
// at least, with the new buffer claimed before it is allocated (while the old
// one is copied both are held) and the old one released after.
Status GrowClaimed(std::string& out, size_t extra, std::string_view what);

}  // namespace tbprof
