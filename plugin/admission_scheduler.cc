#include "plugin/admission_scheduler.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <exception>
#include <future>
#include <string>

#include "convert/base/json.h"
#include "convert/base/memory_grant.h"
#include "convert/tools/artifact_cache.h"

namespace tbprof {

AdmissionScheduler::AdmissionScheduler(Options options, const ArtifactCache& cache)
    : options_(options), cache_(cache) {
  auto init = [](LaneState& lane, int threads, int queued, bool by_memory) {
    lane.max_running = threads;
    lane.max_queued = static_cast<size_t>(queued);
    lane.by_memory = by_memory;
    lane.pool = std::make_unique<boost::asio::thread_pool>(static_cast<size_t>(threads));
  };
  const int queued = std::max(0, options_.max_queued);
  init(LaneOf(WorkLane::kConversion), std::max(1, options_.conversion_threads), queued, true);
  init(LaneOf(WorkLane::kListing), kListingThreads, queued, false);
  init(LaneOf(WorkLane::kCapture), kCaptureThreads, 0, false);  // a third capture is refused, not queued
}

AdmissionScheduler::~AdmissionScheduler() { Join(); }

void AdmissionScheduler::Join() {
  for (LaneState& lane : lanes_) lane.pool->join();
}

uint64_t AdmissionScheduler::WorkRoom() const {
  const uint64_t cache = cache_.budget_bytes();
  return options_.memory_budget_bytes > cache ? options_.memory_budget_bytes - cache : 0;
}

uint64_t AdmissionScheduler::AdmittedBytes(const ProfileService::Deferred& work) const {
  if (!work.estimate_unconfirmed || options_.memory_budget_bytes == 0 || !LaneOf(work.lane).by_memory) {
    return work.working_bytes;
  }
  return std::min(work.working_bytes, WorkRoom());
}

uint64_t AdmissionScheduler::HeldBytes() const { return cache_.bytes_used() + sending_bytes_.load(); }

std::optional<HttpResponse> AdmissionScheduler::Submit(Job job) {
  std::lock_guard<std::mutex> lock(mu_);
  LaneState& lane = LaneOf(job.lane);
  if (lane.by_memory && options_.memory_budget_bytes > 0 && job.working_bytes > WorkRoom()) {
    ++counts_.refused_too_big;
    return Refusal(true, job);
  }
  const bool starts_now =
      lane.waiting.empty() && lane.running < lane.max_running && FitsLocked(lane, job.working_bytes);
  if (!starts_now && lane.waiting.size() >= lane.max_queued) {
    ++counts_.refused_busy;
    return Refusal(false, job);
  }
  const WorkLane which = job.lane;
  lane.waiting.push_back(std::move(job));
  DispatchLocked(which);
  if (lane.by_memory && !lane.waiting.empty() && lane.running < lane.max_running) ++counts_.waited_for_memory;
  return std::nullopt;
}

HttpResponse AdmissionScheduler::Refusal(bool too_big, const Job& job) const {
  HttpResponse r;
  if (too_big) {
    r.status = 413;
    r.body = "this request needs about " + std::to_string(job.working_bytes >> 20) +
             " MiB of working memory, more than the " + std::to_string(WorkRoom() >> 20) +
             " MiB that --memory_mb leaves beside --cache_mb; ask for less, or serve with a larger --memory_mb";
    return r;
  }
  r.status = 503;
  if (job.lane == WorkLane::kCapture) {
    // capture_profile answers every failure as {"error": message}, which its
    // UI shows; a busy server is one more of them.
    r.content_type = "application/json";
    r.body = "{\"error\":" +
             JsonString("busy: " + std::to_string(kCaptureThreads) +
                        " captures are running; try again when one has finished") +
             "}";
  } else {
    r.body = "busy: " + std::string(job.lane == WorkLane::kListing ? "listings" : "conversions") +
             " run on every thread of theirs and " + std::to_string(std::max(0, options_.max_queued)) +
             " wait; try again";
  }
  r.headers.emplace_back("Retry-After", "1");
  return r;
}

std::shared_ptr<MemoryGrant> AdmissionScheduler::GrantFor(WorkLane lane, uint64_t bytes) {
  return std::make_shared<MemoryGrant>(
      bytes, [this, lane](uint64_t more, uint64_t total) { return GrowRunning(lane, more, total); });
}

Status AdmissionScheduler::GrowRunning(WorkLane which, uint64_t more, uint64_t total) {
  std::lock_guard<std::mutex> lock(mu_);
  const LaneState& lane = LaneOf(which);
  if (lane.by_memory && options_.memory_budget_bytes > 0) {
    if (total > WorkRoom()) {
      ++counts_.refused_growing_too_big;
      return ResourceExhausted("needs more than the " + std::to_string(WorkRoom() >> 20) +
                               " MiB of working memory that --memory_mb leaves beside --cache_mb; ask for less (a "
                               "host, a time window, a resolution), or serve with a larger --memory_mb");
    }
    // As in FitsLocked: alone, the work may use the room beside a full cache.
    const uint64_t held = lane.running <= 1 ? sending_bytes_.load() + running_bytes_ + more
                                            : HeldBytes() + running_bytes_ + more;
    if (held > (lane.running <= 1 ? WorkRoom() : options_.memory_budget_bytes)) {
      ++counts_.refused_growing_busy;
      return Unavailable("needs " + std::to_string(total >> 20) +
                         " MiB of working memory, more than other work leaves free now; try again");
    }
  }
  running_bytes_ += more;
  counts_.peak_admitted_bytes = std::max<uint64_t>(counts_.peak_admitted_bytes, HeldBytes() + running_bytes_);
  return Status();
}

void AdmissionScheduler::Finished(WorkLane which, uint64_t reserved_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  LaneState& lane = LaneOf(which);
  --lane.running;
  if (IsBig(lane, reserved_bytes)) --lane.big_running;
  running_bytes_ -= reserved_bytes;
  DispatchLocked(which);
  // Memory freed by any lane may let a waiting conversion start.
  if (which != WorkLane::kConversion) DispatchLocked(WorkLane::kConversion);
}

void AdmissionScheduler::HoldForWriting(uint64_t before, uint64_t now) {
  if (now == before) return;
  sending_bytes_ += now;
  sending_bytes_ -= before;
  if (now > before) return;
  std::lock_guard<std::mutex> lock(mu_);
  DispatchLocked(WorkLane::kConversion);
}

void AdmissionScheduler::Count(Ending ending) {
  // The count of each Ending, in its order.
  static constexpr uint64_t AdmissionCounts::*kCountOf[] = {&AdmissionCounts::finished, &AdmissionCounts::not_started,
                                                           &AdmissionCounts::cancelled_running,
                                                           &AdmissionCounts::clients_left};
  std::lock_guard<std::mutex> lock(mu_);
  ++(counts_.*kCountOf[static_cast<size_t>(ending)]);
}

AdmissionCounts AdmissionScheduler::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

// Whether work of `bytes` may start now in `lane`. The cache's bytes count
// as they are, except when no conversion runs: then the cache, even full,
// leaves WorkRoom, so work that Submit did not refuse fits unless answers
// being written to slow readers hold that room (it frees as they finish).
bool AdmissionScheduler::FitsLocked(const LaneState& lane, uint64_t bytes) const {
  if (!lane.by_memory || options_.memory_budget_bytes == 0) return true;
  if (lane.running == 0) return sending_bytes_.load() + running_bytes_ + bytes <= WorkRoom();
  return HeldBytes() + running_bytes_ + bytes <= options_.memory_budget_bytes;
}

// The order of the design note: the first small job, else the first (when a
// big one may run), each only when it fits.
void AdmissionScheduler::DispatchLocked(WorkLane which) {
  LaneState& lane = LaneOf(which);
  while (!lane.waiting.empty() && lane.running < lane.max_running) {
    auto pick = std::find_if(lane.waiting.begin(), lane.waiting.end(),
                             [&](const Job& j) { return !IsBig(lane, j.working_bytes); });
    if (pick == lane.waiting.end()) {
      if (lane.big_running >= std::max(1, lane.max_running - 1)) return;
      pick = lane.waiting.begin();
    }
    Job& next = *pick;
    if (!FitsLocked(lane, next.working_bytes)) return;
    if (IsBig(lane, next.working_bytes)) ++lane.big_running;
    ++lane.running;
    running_bytes_ += next.working_bytes;
    if (lane.by_memory) counts_.peak_running = std::max(counts_.peak_running, lane.running);
    counts_.peak_admitted_bytes = std::max<uint64_t>(counts_.peak_admitted_bytes, HeldBytes() + running_bytes_);
    boost::asio::post(*lane.pool, std::move(next.run));
    lane.waiting.erase(pick);
  }
}

std::optional<HttpResponse> AdmissionScheduler::RunAdmitted(ProfileService::Deferred work,
                                                            const std::atomic<bool>& stopped,
                                                            std::shared_ptr<const CancellationToken> cancel) {
  if (stopped) return std::nullopt;
  auto done = std::make_shared<std::promise<HttpResponse>>();
  std::future<HttpResponse> answer = done->get_future();
  work.working_bytes = AdmittedBytes(work);
  Job job;
  job.working_bytes = work.working_bytes;
  job.lane = work.lane;
  job.run = [this, work, done, cancel] {
    HttpResponse r;
    std::shared_ptr<MemoryGrant> grant = GrantFor(work.lane, work.working_bytes);
    try {
      CancellationScope cancellation(cancel);
      MemoryGrantScope memory(grant);
      r = work();
    } catch (const std::exception& e) {
      r.status = 500;
      r.body = e.what();
    }
    Finished(work.lane, grant->reserved());
    done->set_value(std::move(r));
  };
  if (Submit(std::move(job))) return std::nullopt;
  // Work still queued when the server stops never runs: stop waiting then.
  while (answer.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
    if (stopped) return std::nullopt;
  }
  return answer.get();
}

}  // namespace tbprof
