// Which deferred work runs when: the server's admission of conversions by
// memory, with no sockets in it (http_server.cc submits its sessions' work
// here; the start-up warm-up goes through RunAdmitted).
//
// Design. Work comes in three lanes, each with threads of its own and a
// bounded queue: conversions (--workers threads, admitted by memory),
// listings (two threads) and captures (two threads, no queue: a capture
// holds its thread for its whole duration). Listings and captures hold
// little memory: they are counted, never waited for.
//
// Memory under --memory_mb (`memory_budget_bytes`) is held by three things:
// the cache's bytes, answers being written to slow readers (HoldForWriting),
// and the estimates of the work running. A conversion starts when a thread
// of its lane is free and its estimate fits beside the other two; alone it
// may use the room beside a full cache (WorkRoom), since the cache gives
// way to it. Work that could not fit even then is refused with 413; work
// that finds the queue full, with 503. While it runs, the work claims its
// bulk allocations from a grant (convert/base/memory_grant.h) that this
// scheduler widens only when the budget has room, so an estimate that was
// too low ends in 413/503, not in memory past the bound.
//
// Order: first come, first served within a lane, except that small
// conversions (kSmallWorkBytes or less) go ahead of big ones and big ones
// leave one worker free for them when there are two or more, so whole traces
// asked for by one client do not hold up everyone's small answers. Work that
// does not fit yet holds back the work of its size behind it, so a big
// conversion is not starved by other big ones. The queue moves when running
// work finishes (any lane's) or a written answer is released.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "convert/base/cancellation.h"
#include "plugin/http_message.h"
#include "plugin/routes.h"

namespace boost::asio {
class thread_pool;
}

namespace tbprof {

class ArtifactCache;
class MemoryGrant;

// What became of deferred work (for tests and benchmarks).
struct AdmissionCounts {
  uint64_t finished = 0;           // answered
  uint64_t not_started = 0;        // its client had gone before a worker took it
  uint64_t cancelled_running = 0;  // its client left while it ran
  uint64_t refused_busy = 0;       // 503: the queue was full
  uint64_t refused_too_big = 0;    // 413: its working memory could never fit
  uint64_t waited_for_memory = 0;  // started later than a free worker allowed, for memory
  // Running work that claimed more than its estimate (convert/base/memory_grant.h) and was refused:
  uint64_t refused_growing_too_big = 0;  // 413: more than could ever fit
  uint64_t refused_growing_busy = 0;     // 503: more than other work left free
  uint64_t clients_left = 0;             // connections closed while their work waited or ran
  // The most work ran at once, and the most cache bytes plus running estimates were when work was admitted.
  int peak_running = 0;
  uint64_t peak_admitted_bytes = 0;
};

class AdmissionScheduler {
 public:
  struct Options {
    int conversion_threads = 2;
    // Work waiting for a thread beyond the work running, per lane (captures: none).
    int max_queued = 64;
    // The cache and the working memory of conversions together; 0: conversions
    // are admitted by thread count only.
    uint64_t memory_budget_bytes = 0;
  };
  // `cache` is the server's: its budget and the bytes it holds count as held.
  AdmissionScheduler(Options options, const ArtifactCache& cache);
  // Joins (below).
  ~AdmissionScheduler();
  AdmissionScheduler(const AdmissionScheduler&) = delete;
  AdmissionScheduler& operator=(const AdmissionScheduler&) = delete;

  static constexpr int kListingThreads = 2;
  static constexpr int kCaptureThreads = 2;
  static constexpr uint64_t kSmallWorkBytes = uint64_t{64} << 20;

  // A piece of deferred work. `run` runs on a thread of its lane and must
  // call Finished(lane, what its grant reserved) when its memory is free.
  struct Job {
    uint64_t working_bytes = 0;
    WorkLane lane = WorkLane::kConversion;
    std::function<void()> run;
  };
  // The bytes `work` is admitted with: its estimate, or at most WorkRoom when
  // the estimate is unconfirmed, so that work of a cut gzip'ed file (whose
  // last bytes state any size) runs as the largest work may and ends where
  // its file does (422) or where its claims pass the room (413), instead of
  // being refused for a size its file never had.
  uint64_t AdmittedBytes(const ProfileService::Deferred& work) const;
  // Queues `job` (it runs once admitted): nullopt; or the answer refusing it,
  // 413 when it could never fit, 503 (Retry-After) when its lane's queue is full.
  std::optional<HttpResponse> Submit(Job job);
  // Work of `lane` that was admitted has ended holding `reserved_bytes`.
  void Finished(WorkLane lane, uint64_t reserved_bytes);
  // The grant a job of `lane` admitted with `bytes` runs under.
  std::shared_ptr<MemoryGrant> GrantFor(WorkLane lane, uint64_t bytes);

  // An answer being written counted `before` bytes and counts `now`; waiting
  // work may fit when it shrinks.
  void HoldForWriting(uint64_t before, uint64_t now);

  // How deferred work ended that the counts tell apart.
  enum class Ending { kFinished, kNotStarted, kCancelledRunning, kClientLeft };
  void Count(Ending ending);
  AdmissionCounts counts() const;

  // Runs `work` (and what it hands back) through admission as a job of its
  // lane under its grant (and `cancel`, when given). Blocks until it ran;
  // nullopt when it was refused or `stopped` became true while it waited.
  std::optional<HttpResponse> RunAdmitted(ProfileService::Deferred work, const std::atomic<bool>& stopped,
                                          std::shared_ptr<const CancellationToken> cancel = nullptr);

  // Memory beside a full cache: the most one piece of work may need.
  uint64_t WorkRoom() const;

  // Waits for the work handed to threads to end (work still queued never runs).
  void Join();

 private:
  // One kind of deferred work: its threads and its queue (guarded by mu_).
  struct LaneState {
    std::unique_ptr<boost::asio::thread_pool> pool;
    std::deque<Job> waiting;
    int running = 0;
    int big_running = 0;  // of them, work estimated above kSmallWorkBytes (memory-admitted lanes)
    int max_running = 1;
    size_t max_queued = 0;
    bool by_memory = false;  // waits for memory, not only for a thread
  };
  static bool IsBig(const LaneState& lane, uint64_t bytes) { return lane.by_memory && bytes > kSmallWorkBytes; }
  LaneState& LaneOf(WorkLane lane) { return lanes_[static_cast<size_t>(lane)]; }
  const LaneState& LaneOf(WorkLane lane) const { return lanes_[static_cast<size_t>(lane)]; }
  uint64_t HeldBytes() const;
  bool FitsLocked(const LaneState& lane, uint64_t bytes) const;
  void DispatchLocked(WorkLane lane);
  Status GrowRunning(WorkLane lane, uint64_t more, uint64_t total);
  HttpResponse Refusal(bool too_big, const Job& job) const;

  const Options options_;
  const ArtifactCache& cache_;
  std::array<LaneState, 3> lanes_;
  mutable std::mutex mu_;
  uint64_t running_bytes_ = 0;  // every lane's running work
  // Answers computed for a request (not shared with the cache) that are being
  // written: a slow reader keeps them alive. Counted with the cache's bytes.
  std::atomic<uint64_t> sending_bytes_{0};
  AdmissionCounts counts_;  // guarded by mu_
};

}  // namespace tbprof
