// Cooperative cancellation of a request's work. The server gives each piece
// of deferred work a token and marks it when the client that asked has gone;
// long computations (loading a model, building a trace index, op statistics,
// writing trace JSON) look at it at coarse checkpoints and stop early. The
// token is installed per thread (CancellationScope), so the converters'
// signatures do not carry it; RunBoth hands it to its second thread.
//
// A computation that stops returns (or its caller turns its partial result
// into) CancelledError(). The artifact cache keeps nothing computed under a
// cancelled token, whatever it returned: the next request computes the whole
// answer.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "convert/base/status.h"

namespace tbprof {

class CancellationToken {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> cancelled_{false};
};

// Installs `token` as the calling thread's for the scope's lifetime (scopes
// nest; the innermost wins; a null token means "never cancelled").
class CancellationScope {
 public:
  explicit CancellationScope(std::shared_ptr<const CancellationToken> token);
  ~CancellationScope();
  CancellationScope(const CancellationScope&) = delete;
  CancellationScope& operator=(const CancellationScope&) = delete;

 private:
  std::shared_ptr<const CancellationToken> previous_;
};

// The calling thread's token (null outside any scope).
std::shared_ptr<const CancellationToken> CurrentCancellation();

// A checkpoint of long work: whether it should stop because whoever asked for
// it has gone. Cheap enough for every few thousand events.
bool CancelRequested();

// A checkpoint for loops over events, where looking at the token each time
// would cost more than the work: Due() looks once every kEvery calls.
class CancellationPoll {
 public:
  static constexpr uint32_t kEvery = 4096;
  bool Due() { return (++calls_ & (kEvery - 1)) == 0 && CancelRequested(); }

 private:
  uint32_t calls_ = 0;
};

// What cancelled work returns (Unavailable: worth asking again); `what` names the work.
Status CancelledError(const std::string& what);

// Checkpoints passed under a token since the process started: a count of work
// done that tests and benchmarks compare (e.g. a cancelled conversion against
// a whole one).
uint64_t CancellationCheckpoints();

// Test seam: called at every checkpoint passed under a token (empty: none).
// Set it only while no work runs.
void SetCancellationCheckpointHook(std::function<void()> hook);

}  // namespace tbprof
