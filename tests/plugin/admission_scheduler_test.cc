// The server's admission of deferred work, without a socket: which work is
// refused (413, 503), in what order queued work starts, and that memory held
// by running work and by answers being written is given back when they end.
#include "plugin/admission_scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "convert/base/memory_grant.h"
#include "convert/tools/artifact_cache.h"

namespace tbprof {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

// Jobs that note when they start and hold their thread (and memory) until
// released; whatever is still held is released when this goes.
class HeldJobs {
 public:
  explicit HeldJobs(AdmissionScheduler& scheduler) : scheduler_(scheduler), state_(std::make_shared<State>()) {}
  ~HeldJobs() {
    std::lock_guard<std::mutex> lock(state_->mu);
    for (auto& [name, gate] : state_->gates) {
      if (!gate.released) gate.release.set_value();
    }
  }

  std::optional<HttpResponse> Submit(const std::string& name, uint64_t mib,
                                     WorkLane lane = WorkLane::kConversion) {
    std::shared_future<void> gate;
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      gate = state_->gates[name].release.get_future().share();
    }
    AdmissionScheduler::Job job;
    job.working_bytes = mib * kMiB;
    job.lane = lane;
    job.run = [state = state_, &scheduler = scheduler_, name, gate, lane, bytes = job.working_bytes] {
      {
        std::lock_guard<std::mutex> lock(state->mu);
        state->started.push_back(name);
      }
      state->changed.notify_all();
      gate.wait();
      scheduler.Finished(lane, bytes);
    };
    return scheduler_.Submit(std::move(job));
  }

  void Release(const std::string& name) {
    std::lock_guard<std::mutex> lock(state_->mu);
    Gate& gate = state_->gates.at(name);
    gate.released = true;
    gate.release.set_value();
  }

  // The names of the jobs started, once `n` have (or what started in 10 s).
  std::vector<std::string> Started(size_t n) {
    std::unique_lock<std::mutex> lock(state_->mu);
    state_->changed.wait_for(lock, std::chrono::seconds(10), [&] { return state_->started.size() >= n; });
    return state_->started;
  }

 private:
  struct Gate {
    std::promise<void> release;
    bool released = false;
  };
  struct State {
    std::mutex mu;
    std::condition_variable changed;
    std::map<std::string, Gate> gates;
    std::vector<std::string> started;
  };
  AdmissionScheduler& scheduler_;
  std::shared_ptr<State> state_;
};

AdmissionScheduler::Options Budget(int threads, uint64_t memory_mib, int queued = 64) {
  return {.conversion_threads = threads, .max_queued = queued, .memory_budget_bytes = memory_mib * kMiB};
}

TEST(AdmissionScheduler, WorkThatCouldNeverFitBesideAFullCacheIsRefusedWith413) {
  ArtifactCache cache(40 * kMiB);
  AdmissionScheduler scheduler(Budget(2, 100), cache);  // 60 MiB beside the cache
  HeldJobs jobs(scheduler);
  std::optional<HttpResponse> refused = jobs.Submit("too big", 61);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 413);
  EXPECT_NE(refused->body.find("more than the 60 MiB that --memory_mb leaves beside --cache_mb"), std::string::npos)
      << refused->body;
  EXPECT_FALSE(jobs.Submit("fits", 60));
  // Listings are counted, never refused for memory.
  EXPECT_FALSE(jobs.Submit("listing", 500, WorkLane::kListing));
  EXPECT_EQ(jobs.Started(2).size(), 2u);
  EXPECT_EQ(scheduler.counts().refused_too_big, 1u);
}

TEST(AdmissionScheduler, WorkFindingItsLanesQueueFullIsRefusedWith503) {
  ArtifactCache cache(0);
  AdmissionScheduler scheduler(Budget(1, 0, /*queued=*/1), cache);
  HeldJobs jobs(scheduler);
  EXPECT_FALSE(jobs.Submit("running", 1));
  EXPECT_FALSE(jobs.Submit("queued", 1));
  std::optional<HttpResponse> busy = jobs.Submit("one too many", 1);
  ASSERT_TRUE(busy);
  EXPECT_EQ(busy->status, 503);
  EXPECT_EQ(busy->body, "busy: conversions run on every thread of theirs and 1 wait; try again");
  ASSERT_EQ(busy->headers.size(), 1u);
  EXPECT_EQ(busy->headers[0].first, "Retry-After");

  // Captures hold their thread for their whole duration: a third is refused, not queued.
  EXPECT_FALSE(jobs.Submit("capture 1", 0, WorkLane::kCapture));
  EXPECT_FALSE(jobs.Submit("capture 2", 0, WorkLane::kCapture));
  std::optional<HttpResponse> third = jobs.Submit("capture 3", 0, WorkLane::kCapture);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->status, 503);
  // As every other capture_profile failure: JSON (before: plain text).
  EXPECT_EQ(third->content_type, "application/json");
  EXPECT_EQ(third->body, R"({"error":"busy: 2 captures are running; try again when one has finished"})");
  EXPECT_EQ(scheduler.counts().refused_busy, 2u);
}

// On one worker: first come, first served, except that small conversions go
// ahead of big ones.
TEST(AdmissionScheduler, SmallConversionsGoAheadOfBigOnes) {
  ArtifactCache cache(0);
  AdmissionScheduler scheduler(Budget(1, 0), cache);
  HeldJobs jobs(scheduler);
  const uint64_t big = AdmissionScheduler::kSmallWorkBytes / kMiB + 1;
  ASSERT_FALSE(jobs.Submit("first", 1));
  ASSERT_EQ(jobs.Started(1), std::vector<std::string>{"first"});
  for (const auto& [name, mib] : std::vector<std::pair<std::string, uint64_t>>{
           {"big 1", big}, {"small 1", 1}, {"big 2", big}, {"small 2", 1}}) {
    ASSERT_FALSE(jobs.Submit(name, mib)) << name;
  }
  for (size_t n = 1; n < 5; ++n) jobs.Release(jobs.Started(n).back());
  EXPECT_EQ(jobs.Started(5), (std::vector<std::string>{"first", "small 1", "small 2", "big 1", "big 2"}));
}

// With two workers, big conversions leave one free for small ones.
TEST(AdmissionScheduler, BigConversionsLeaveAWorkerForSmallOnes) {
  ArtifactCache cache(0);
  AdmissionScheduler scheduler(Budget(2, 0), cache);
  HeldJobs jobs(scheduler);
  const uint64_t big = AdmissionScheduler::kSmallWorkBytes / kMiB + 1;
  ASSERT_FALSE(jobs.Submit("big 1", big));
  ASSERT_EQ(jobs.Started(1).size(), 1u);
  ASSERT_FALSE(jobs.Submit("big 2", big));
  ASSERT_FALSE(jobs.Submit("small", 1));
  EXPECT_EQ(jobs.Started(2), (std::vector<std::string>{"big 1", "small"}));
  jobs.Release("big 1");
  EXPECT_EQ(jobs.Started(3).back(), "big 2");
}

// A conversion waits, with a worker free, until running work gives its
// memory back.
TEST(AdmissionScheduler, AConversionWaitsForMemoryUntilRunningWorkEnds) {
  ArtifactCache cache(0);
  AdmissionScheduler scheduler(Budget(2, 100), cache);
  HeldJobs jobs(scheduler);
  ASSERT_FALSE(jobs.Submit("first", 60));
  ASSERT_FALSE(jobs.Submit("second", 60));
  EXPECT_EQ(scheduler.counts().waited_for_memory, 1u);
  EXPECT_EQ(jobs.Started(1).size(), 1u);
  jobs.Release("first");
  EXPECT_EQ(jobs.Started(2), (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(scheduler.counts().peak_running, 1);
}

// Work whose client left before it started gives back its estimate
// unstarted, as the server's sessions do; the next work then fits.
TEST(AdmissionScheduler, WorkEndedUnstartedGivesItsMemoryBack) {
  ArtifactCache cache(0);
  AdmissionScheduler scheduler(Budget(2, 100), cache);
  HeldJobs jobs(scheduler);
  ASSERT_FALSE(jobs.Submit("held", 60));
  AdmissionScheduler::Job gone;
  gone.working_bytes = 30 * kMiB;
  gone.run = [&scheduler] {
    scheduler.Finished(WorkLane::kConversion, 30 * kMiB);
    scheduler.Count(AdmissionScheduler::Ending::kNotStarted);
  };
  ASSERT_FALSE(scheduler.Submit(std::move(gone)));
  jobs.Release("held");
  ASSERT_FALSE(jobs.Submit("next", 100));
  EXPECT_EQ(jobs.Started(2), (std::vector<std::string>{"held", "next"}));
  EXPECT_EQ(scheduler.counts().not_started, 1u);
}

// An answer being written to a slow reader holds memory; waiting work starts
// when the answer is released.
TEST(AdmissionScheduler, AnAnswerBeingWrittenHoldsBackConversionsUntilReleased) {
  ArtifactCache cache(0);
  AdmissionScheduler scheduler(Budget(2, 100), cache);
  HeldJobs jobs(scheduler);
  scheduler.HoldForWriting(0, 70 * kMiB);
  ASSERT_FALSE(jobs.Submit("waits", 40));
  EXPECT_EQ(scheduler.counts().waited_for_memory, 1u);
  scheduler.HoldForWriting(70 * kMiB, 10 * kMiB);
  EXPECT_EQ(jobs.Started(1), std::vector<std::string>{"waits"});
}

// A running conversion's claims past its estimate: 413 past what could ever
// fit, 503 past what other work leaves free now, granted otherwise.
TEST(AdmissionScheduler, RunningWorkGrowsOnlyWithinTheBudget) {
  ArtifactCache cache(0);
  AdmissionScheduler scheduler(Budget(2, 100), cache);
  std::atomic<bool> stopped{false};
  std::vector<Status> claims;
  ProfileService::Deferred work;
  work.working_bytes = 10 * kMiB;
  work.run = [&]() -> std::variant<HttpResponse, ProfileService::Deferred> {
    claims.push_back(ClaimMemory(200 * kMiB, "too much"));
    scheduler.HoldForWriting(0, 50 * kMiB);
    claims.push_back(ClaimMemory(60 * kMiB, "more than is free"));
    claims.push_back(ClaimMemory(30 * kMiB, "what is free"));
    scheduler.HoldForWriting(50 * kMiB, 0);
    HttpResponse r;
    r.body = "ran";
    return r;
  };
  std::optional<HttpResponse> answer = scheduler.RunAdmitted(std::move(work), stopped);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->body, "ran");
  ASSERT_EQ(claims.size(), 3u);
  EXPECT_EQ(claims[0].code(), ErrorCode::kResourceExhausted) << claims[0].message();
  EXPECT_EQ(claims[1].code(), ErrorCode::kUnavailable) << claims[1].message();
  EXPECT_TRUE(claims[2].ok()) << claims[2].message();
  const AdmissionCounts counts = scheduler.counts();
  EXPECT_EQ(counts.refused_growing_too_big, 1u);
  EXPECT_EQ(counts.refused_growing_busy, 1u);
  // What the work was granted (its estimate and its claim) was given back.
  HeldJobs jobs(scheduler);
  EXPECT_FALSE(jobs.Submit("all of it", 100));
  EXPECT_EQ(jobs.Started(1).size(), 1u);
}

// The warm-up's path: nothing when refused or when the server stops first.
TEST(AdmissionScheduler, RunAdmittedIsEmptyWhenRefusedOrStopped) {
  ArtifactCache cache(0);
  AdmissionScheduler scheduler(Budget(1, 100, /*queued=*/1), cache);
  ProfileService::Deferred too_big;
  too_big.working_bytes = 101 * kMiB;
  too_big.run = [] { return std::variant<HttpResponse, ProfileService::Deferred>(HttpResponse{}); };
  std::atomic<bool> stopped{false};
  EXPECT_FALSE(scheduler.RunAdmitted(too_big, stopped));

  HeldJobs jobs(scheduler);
  ASSERT_FALSE(jobs.Submit("holds the worker", 1));
  ProfileService::Deferred queued = too_big;
  queued.working_bytes = kMiB;
  stopped = true;
  EXPECT_FALSE(scheduler.RunAdmitted(queued, stopped));
  EXPECT_EQ(scheduler.counts().refused_too_big, 1u);
}

}  // namespace
}  // namespace tbprof
