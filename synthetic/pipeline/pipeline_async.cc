// Prefetch, ParallelMap and ParallelInterleave: stages whose work runs on
// background threads named `tf_data_iterator_resource`, linked to their
// consumer by `<Kind>Produce` / `<Kind>Consume` events sharing an element_id.
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <span>
#include <thread>

#include "tracer/host_tracer.h"
#include "synthetic/pipeline/pipeline_dataset.h"
#include "synthetic/pipeline/pipeline_iterator.h"

namespace tbprof::pipeline::internal {
namespace {

using harness::TraceMe;
using harness::TraceMeEncode;

constexpr char kWorkerThreadName[] = "tf_data_iterator_resource";

struct Produced {
  int64_t element_id;
  Element element;
};

// Tells an iterator's threads to stop (under its lock, so none misses the
// wake-up) and waits for them.
void StopWorkers(std::mutex& mu, bool& cancelled, std::condition_variable& cv, std::span<std::thread> threads) {
  {
    std::lock_guard<std::mutex> lock(mu);
    cancelled = true;
  }
  cv.notify_all();
  for (std::thread& t : threads) t.join();
}

// Gives a produced element, already taken off its buffer under `lock`, to the
// consumer: the producers are woken first and the consume is traced outside
// the lock, so tracing never holds them back.
bool HandOver(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, Produced p, const char* kind,
              Element& out) {
  lock.unlock();
  cv.notify_all();
  TraceMe consume([&] { return TraceMeEncode(kind, {{"element_id", p.element_id}}); });
  out = std::move(p.element);
  return true;
}

// ---- Prefetch -------------------------------------------------------------
struct PrefetchParams {
  DatasetPtr input;
  int buffer_size;
};
class PrefetchIterator : public Iterator {
 public:
  PrefetchIterator(std::string prefix, int64_t parent, const PrefetchParams& p)
      : Iterator(std::move(prefix), parent, "buffer_limit=" + std::to_string(Limit(p.buffer_size))),
        limit_(Limit(p.buffer_size)) {
    input_ = MakeChild(p.input, *this);
    worker_ = std::thread([this] { Run(); });
  }
  ~PrefetchIterator() override {
    StopWorkers(mu_, cancelled_, cv_, std::span<std::thread>(&worker_, 1));
  }

 protected:
  bool GetNextInternal(Element& out) override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !buffer_.empty() || end_; });
    if (buffer_.empty()) return false;
    Produced p = std::move(buffer_.front());
    buffer_.pop_front();
    return HandOver(lock, cv_, std::move(p), "PrefetchConsume", out);
  }

 private:
  static int Limit(int buffer_size) { return buffer_size == kAutotune ? 4 : std::max(1, buffer_size); }
  void Run() {
    harness::SetCurrentThreadName(kWorkerThreadName);
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return cancelled_ || static_cast<int>(buffer_.size()) < limit_; });
        if (cancelled_) return;
      }
      Produced p{NextElementId(), {}};
      bool got;
      {
        TraceMe produce([&] { return TraceMeEncode("PrefetchProduce", {{"element_id", p.element_id}}); });
        got = input_->GetNext(p.element);
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (got) {
          buffer_.push_back(std::move(p));
        } else {
          end_ = true;
        }
      }
      cv_.notify_all();
      if (!got) return;
    }
  }

  const int limit_;
  std::unique_ptr<Iterator> input_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Produced> buffer_;
  bool end_ = false, cancelled_ = false;
  std::thread worker_;
};

// ---- ParallelMap ----------------------------------------------------------
// Workers take input elements in sequence order (under input_mu_) and run the
// function concurrently; the consumer returns results in sequence order.
struct ParallelMapParams {
  DatasetPtr input;
  MapFn fn;
  int num_parallel_calls;
};
class ParallelMapIterator : public Iterator {
 public:
  ParallelMapIterator(std::string prefix, int64_t parent, const ParallelMapParams& p)
      : Iterator(std::move(prefix), parent, Params(p.num_parallel_calls)),
        fn_(p.fn),
        parallelism_(p.num_parallel_calls == kAutotune ? AutotuneParallelism() : std::max(1, p.num_parallel_calls)) {
    input_ = MakeChild(p.input, *this);
    for (int i = 0; i < parallelism_; ++i) workers_.emplace_back([this] { Run(); });
  }
  ~ParallelMapIterator() override {
    StopWorkers(mu_, cancelled_, cv_, workers_);
  }

 protected:
  bool GetNextInternal(Element& out) override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return results_.count(consume_seq_) || consume_seq_ >= end_seq_; });
    auto it = results_.find(consume_seq_);
    if (it == results_.end()) return false;
    Produced p = std::move(it->second);
    results_.erase(it);
    ++consume_seq_;
    return HandOver(lock, cv_, std::move(p), "ParallelMapConsume", out);
  }

 private:
  static std::string Params(int n) {
    return n == kAutotune ? "autotune=true,parallelism=" + std::to_string(AutotuneParallelism())
                          : "autotune=false,parallelism=" + std::to_string(std::max(1, n));
  }
  void Run() {
    harness::SetCurrentThreadName(kWorkerThreadName);
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] {
          return cancelled_ || input_exhausted_ ||
                 next_seq_ + in_flight_ - consume_seq_ < static_cast<int64_t>(parallelism_);
        });
        if (cancelled_ || input_exhausted_) return;
        ++in_flight_;
      }
      Produced p{NextElementId(), {}};
      bool got;
      int64_t seq;
      {
        TraceMe produce([&] { return TraceMeEncode("ParallelMapProduce", {{"element_id", p.element_id}}); });
        {
          std::lock_guard<std::mutex> input_lock(input_mu_);
          got = !input_exhausted_.load() && input_->GetNext(p.element);
          std::lock_guard<std::mutex> lock(mu_);
          seq = next_seq_++;
          --in_flight_;
          if (!got) {
            input_exhausted_ = true;
            end_seq_ = std::min(end_seq_, seq);
          }
        }
        if (got) fn_(p.element);
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (got) results_.emplace(seq, std::move(p));
      }
      cv_.notify_all();
    }
  }

  MapFn fn_;
  const int parallelism_;
  std::unique_ptr<Iterator> input_;
  std::mutex input_mu_;  // input_->GetNext and sequence numbering
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<int64_t, Produced> results_;
  int64_t next_seq_ = 0, consume_seq_ = 0, end_seq_ = INT64_MAX;
  int64_t in_flight_ = 0;
  std::atomic<bool> input_exhausted_{false};
  bool cancelled_ = false;
  std::vector<std::thread> workers_;
};

// ---- ParallelInterleave ---------------------------------------------------
// One reader thread per cycle slot; the consumer visits slots round-robin,
// so the output order is that of a sequential Interleave with block_length 1.
struct ParallelInterleaveParams {
  DatasetPtr input;
  InterleaveFn fn;
  int cycle_length, buffer_per_slot;
};
class ParallelInterleaveIterator : public Iterator {
 public:
  ParallelInterleaveIterator(std::string prefix, int64_t parent, const ParallelInterleaveParams& p)
      : Iterator(std::move(prefix), parent,
                 "cycle_length=" + std::to_string(std::max(1, p.cycle_length)) + ",deterministic=true"),
        fn_(p.fn),
        buffer_per_slot_(std::max(1, p.buffer_per_slot)),
        slots_(std::max(1, p.cycle_length)) {
    input_ = MakeChild(p.input, *this);
    for (size_t i = 0; i < slots_.size(); ++i) workers_.emplace_back([this, i] { Run(i); });
  }
  ~ParallelInterleaveIterator() override {
    StopWorkers(mu_, cancelled_, cv_, workers_);
  }

 protected:
  bool GetNextInternal(Element& out) override {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      Slot& slot = slots_[cycle_index_];
      if (!slot.iterator && !input_exhausted_) {
        lock.unlock();
        Element in;
        bool got = input_->GetNext(in);
        std::unique_ptr<Iterator> sub;
        if (got) sub = fn_(in).impl()->MakeIterator(prefix() + "[" + std::to_string(cycle_index_) + "]", id());
        lock.lock();
        if (got) {
          slot.iterator = std::move(sub);
          slot.ended = false;
          cv_.notify_all();
        } else {
          input_exhausted_ = true;
        }
      }
      if (!slot.iterator) {
        if (input_exhausted_ && std::none_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.iterator != nullptr; }))
          return false;
        cycle_index_ = (cycle_index_ + 1) % slots_.size();
        continue;
      }
      cv_.wait(lock, [&] { return !slot.queue.empty() || slot.ended; });
      if (!slot.queue.empty()) {
        Produced p = std::move(slot.queue.front());
        slot.queue.pop_front();
        cycle_index_ = (cycle_index_ + 1) % slots_.size();
        return HandOver(lock, cv_, std::move(p), "ParallelInterleaveConsume", out);
      }
      // The slot's dataset is exhausted and its reader idle: move on, as the
      // sequential Interleave does; the slot is refilled on its next turn.
      slot.iterator.reset();
      cycle_index_ = (cycle_index_ + 1) % slots_.size();
    }
  }

 private:
  struct Slot {
    std::unique_ptr<Iterator> iterator;  // replaced by the consumer only while the reader is idle
    std::deque<Produced> queue;
    bool ended = false;
  };
  void Run(size_t index) {
    harness::SetCurrentThreadName(kWorkerThreadName);
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      Slot& slot = slots_[index];
      cv_.wait(lock, [&] {
        return cancelled_ || (slot.iterator && !slot.ended && static_cast<int>(slot.queue.size()) < buffer_per_slot_);
      });
      if (cancelled_) return;
      Iterator* it = slot.iterator.get();
      lock.unlock();
      Produced p{NextElementId(), {}};
      bool got;
      {
        TraceMe produce([&] { return TraceMeEncode("ParallelInterleaveProduce", {{"element_id", p.element_id}}); });
        got = it->GetNext(p.element);
      }
      lock.lock();
      if (got) {
        slot.queue.push_back(std::move(p));
      } else {
        slot.ended = true;
      }
      cv_.notify_all();
    }
  }

  InterleaveFn fn_;
  const int buffer_per_slot_;
  std::unique_ptr<Iterator> input_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Slot> slots_;
  size_t cycle_index_ = 0;
  bool input_exhausted_ = false, cancelled_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace

}  // namespace tbprof::pipeline::internal

namespace tbprof::pipeline {

using internal::ParallelInterleaveIterator;
using internal::ParallelInterleaveParams;
using internal::ParallelMapIterator;
using internal::ParallelMapParams;
using internal::PrefetchIterator;
using internal::PrefetchParams;
using internal::TypedDataset;

Dataset Dataset::Prefetch(int buffer_size) const {
  return Dataset(std::make_shared<TypedDataset<PrefetchIterator, PrefetchParams>>(
      "Prefetch", PrefetchParams{impl_, buffer_size}));
}
Dataset Dataset::ParallelMap(MapFn fn, int num_parallel_calls) const {
  return Dataset(std::make_shared<TypedDataset<ParallelMapIterator, ParallelMapParams>>(
      "ParallelMapV2", ParallelMapParams{impl_, std::move(fn), num_parallel_calls}));
}
Dataset Dataset::ParallelInterleave(InterleaveFn fn, int cycle_length, int buffer_per_slot) const {
  return Dataset(std::make_shared<TypedDataset<ParallelInterleaveIterator, ParallelInterleaveParams>>(
      "ParallelInterleaveV4", ParallelInterleaveParams{impl_, std::move(fn), cycle_length, buffer_per_slot}));
}

}  // namespace tbprof::pipeline
