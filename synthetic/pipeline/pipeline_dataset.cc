#include "synthetic/pipeline/pipeline_dataset.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>

#include "synthetic/pipeline/pipeline_iterator.h"
#include "synthetic/pipeline/pipeline_work.h"

namespace tbprof::pipeline {

using internal::DatasetPtr;
using internal::MakeChild;
using internal::TypedDataset;

std::vector<Element> Collect(Iterator& it, int64_t max_elements) {
  std::vector<Element> out;
  Element e;
  while ((max_elements < 0 || static_cast<int64_t>(out.size()) < max_elements) && it.GetNext(e)) {
    out.push_back(std::move(e));
    e = Element{};
  }
  return out;
}

namespace {

// ---- Root -----------------------------------------------------------------
struct RootParams {
  DatasetPtr input;
};
class RootIterator : public Iterator {
 public:
  RootIterator(std::string prefix, int64_t parent, const RootParams& p) : Iterator(std::move(prefix), parent) {
    input_ = MakeChild(p.input, *this);
  }

 protected:
  bool GetNextInternal(Element& out) override { return input_->GetNext(out); }

 private:
  std::unique_ptr<Iterator> input_;
};

// ---- Range ----------------------------------------------------------------
struct RangeParams {
  int64_t start, stop, step;
};
class RangeIterator : public Iterator {
 public:
  RangeIterator(std::string prefix, int64_t parent, const RangeParams& p)
      : Iterator(std::move(prefix), parent), p_(p), next_(p.start) {}

 protected:
  bool GetNextInternal(Element& out) override {
    if (p_.step == 0 || (p_.step > 0 ? next_ >= p_.stop : next_ <= p_.stop)) return false;
    out = Element{{next_}, {}};
    next_ += p_.step;
    return true;
  }

 private:
  RangeParams p_;
  int64_t next_;
};

// ---- Generator ------------------------------------------------------------
struct GeneratorParams {
  GeneratorFn fn;
};
class GeneratorIterator : public Iterator {
 public:
  GeneratorIterator(std::string prefix, int64_t parent, const GeneratorParams& p)
      : Iterator(std::move(prefix), parent), fn_(p.fn) {}

 protected:
  bool GetNextInternal(Element& out) override {
    if (done_) return false;
    out = Element{};
    if (!fn_(index_++, out)) done_ = true;
    return !done_;
  }

 private:
  GeneratorFn fn_;
  int64_t index_ = 0;
  bool done_ = false;
};

// ---- Records (TFRecord-like files) ----------------------------------------
// Record layout: u32 payload length, payload (first 8 bytes = record id),
// u64 hash of the payload. Little-endian.
struct RecordParams {
  std::vector<std::string> files;
  double io_micros;
};
class RecordIterator : public Iterator {
 public:
  RecordIterator(std::string prefix, int64_t parent, const RecordParams& p)
      : Iterator(std::move(prefix), parent), p_(p) {}

 protected:
  bool GetNextInternal(Element& out) override {
    while (true) {
      if (!in_.is_open()) {
        if (file_index_ >= p_.files.size()) return false;
        in_.open(p_.files[file_index_++], std::ios::binary);
        if (!in_) {
          std::fprintf(stderr, "pipeline: cannot open record file %s\n", p_.files[file_index_ - 1].c_str());
          in_ = std::ifstream();
          continue;
        }
      }
      uint32_t len = 0;
      if (!in_.read(reinterpret_cast<char*>(&len), sizeof len)) {
        in_.close();
        in_ = std::ifstream();
        continue;
      }
      std::string payload(len, '\0');
      uint64_t stored_hash = 0;
      if (!in_.read(payload.data(), len) || !in_.read(reinterpret_cast<char*>(&stored_hash), sizeof stored_hash) ||
          HashBytes(payload) != stored_hash || len < 8) {
        std::fprintf(stderr, "pipeline: corrupt record in %s\n", p_.files[file_index_ - 1].c_str());
        in_.close();
        in_ = std::ifstream();
        continue;
      }
      IoWait(p_.io_micros);
      int64_t id = 0;
      std::memcpy(&id, payload.data(), sizeof id);
      out = Element{{id}, std::move(payload)};
      return true;
    }
  }

 private:
  RecordParams p_;
  size_t file_index_ = 0;
  std::ifstream in_;
};

// ---- Map / Filter ---------------------------------------------------------
struct MapParams {
  DatasetPtr input;
  MapFn fn;
};
class MapIterator : public Iterator {
 public:
  MapIterator(std::string prefix, int64_t parent, const MapParams& p) : Iterator(std::move(prefix), parent), fn_(p.fn) {
    input_ = MakeChild(p.input, *this);
  }

 protected:
  bool GetNextInternal(Element& out) override {
    if (!input_->GetNext(out)) return false;
    fn_(out);
    return true;
  }

 private:
  MapFn fn_;
  std::unique_ptr<Iterator> input_;
};

struct FilterParams {
  DatasetPtr input;
  PredicateFn pred;
};
class FilterIterator : public Iterator {
 public:
  FilterIterator(std::string prefix, int64_t parent, const FilterParams& p)
      : Iterator(std::move(prefix), parent), pred_(p.pred) {
    input_ = MakeChild(p.input, *this);
  }

 protected:
  bool GetNextInternal(Element& out) override {
    while (input_->GetNext(out)) {
      if (pred_(out)) return true;
    }
    return false;
  }

 private:
  PredicateFn pred_;
  std::unique_ptr<Iterator> input_;
};

// ---- Batch ----------------------------------------------------------------
struct BatchParams {
  DatasetPtr input;
  int batch_size;
  bool drop_remainder;
};
class BatchIterator : public Iterator {
 public:
  BatchIterator(std::string prefix, int64_t parent, const BatchParams& p)
      : Iterator(std::move(prefix), parent), p_(p) {
    input_ = MakeChild(p.input, *this);
  }

 protected:
  bool GetNextInternal(Element& out) override {
    out = Element{};
    int n = 0;
    Element e;
    while (n < p_.batch_size && input_->GetNext(e)) {
      out.values.insert(out.values.end(), e.values.begin(), e.values.end());
      out.bytes += e.bytes;
      ++n;
    }
    return n > 0 && (n == p_.batch_size || !p_.drop_remainder);
  }

 private:
  BatchParams p_;
  std::unique_ptr<Iterator> input_;
};

// ---- Interleave (sequential) ----------------------------------------------
struct InterleaveParams {
  DatasetPtr input;
  InterleaveFn fn;
  int cycle_length, block_length;
};
class InterleaveIterator : public Iterator {
 public:
  InterleaveIterator(std::string prefix, int64_t parent, const InterleaveParams& p)
      : Iterator(std::move(prefix), parent,
                 "cycle_length=" + std::to_string(p.cycle_length) + ",block_length=" + std::to_string(p.block_length)),
        p_(p),
        slots_(std::max(1, p.cycle_length)) {
    input_ = MakeChild(p.input, *this);
  }

 protected:
  bool GetNextInternal(Element& out) override {
    while (true) {
      auto& slot = slots_[cycle_index_];
      if (!slot && !input_exhausted_) {
        Element in;
        if (input_->GetNext(in)) {
          // tf.data names sub-iterators <prefix>[<cycle index>]::<type>.
          slot = p_.fn(in).impl()->MakeIterator(prefix() + "[" + std::to_string(cycle_index_) + "]", id());
        } else {
          input_exhausted_ = true;
        }
      }
      if (!slot) {
        if (input_exhausted_ && std::none_of(slots_.begin(), slots_.end(), [](auto& s) { return s != nullptr; }))
          return false;
        Advance();
        continue;
      }
      if (slot->GetNext(out)) {
        if (++block_index_ >= p_.block_length) Advance();
        return true;
      }
      // Exhausted: like tf.data, move on; this slot is refilled on its next turn.
      slot.reset();
      Advance();
    }
  }

 private:
  void Advance() {
    block_index_ = 0;
    cycle_index_ = (cycle_index_ + 1) % slots_.size();
  }
  InterleaveParams p_;
  std::unique_ptr<Iterator> input_;
  std::vector<std::unique_ptr<Iterator>> slots_;
  size_t cycle_index_ = 0;
  int block_index_ = 0;
  bool input_exhausted_ = false;
};

// ---- Cache ----------------------------------------------------------------
struct CacheState {
  std::mutex mu;
  bool complete = false;
  std::vector<Element> elements;
};
struct CacheParams {
  DatasetPtr input;
  std::shared_ptr<CacheState> state;
};
class CacheIterator : public Iterator {
 public:
  CacheIterator(std::string prefix, int64_t parent, const CacheParams& p)
      : Iterator(std::move(prefix), parent), state_(p.state) {
    std::lock_guard<std::mutex> lock(state_->mu);
    reading_cache_ = state_->complete;
    if (!reading_cache_) input_ = MakeChild(p.input, *this);
  }

 protected:
  bool GetNextInternal(Element& out) override {
    if (reading_cache_) {
      // Complete caches are immutable, so no lock is needed to read them.
      if (next_ >= state_->elements.size()) return false;
      out = state_->elements[next_++];
      return true;
    }
    if (input_->GetNext(out)) {
      pending_.push_back(out);
      return true;
    }
    std::lock_guard<std::mutex> lock(state_->mu);
    if (!state_->complete) {
      state_->elements = std::move(pending_);
      state_->complete = true;
    }
    return false;
  }

 private:
  std::shared_ptr<CacheState> state_;
  bool reading_cache_ = false;
  size_t next_ = 0;
  std::vector<Element> pending_;
  std::unique_ptr<Iterator> input_;
};

// ---- Shuffle --------------------------------------------------------------
struct ShuffleParams {
  DatasetPtr input;
  int buffer_size;
  uint64_t seed;
};
class ShuffleIterator : public Iterator {
 public:
  ShuffleIterator(std::string prefix, int64_t parent, const ShuffleParams& p)
      : Iterator(std::move(prefix), parent, "buffer_size=" + std::to_string(p.buffer_size)),
        p_(p),
        rng_(p.seed) {
    input_ = MakeChild(p.input, *this);
  }

 protected:
  bool GetNextInternal(Element& out) override {
    while (!input_exhausted_ && static_cast<int>(buffer_.size()) < std::max(1, p_.buffer_size)) {
      Element e;
      if (input_->GetNext(e)) {
        buffer_.push_back(std::move(e));
      } else {
        input_exhausted_ = true;
      }
    }
    if (buffer_.empty()) return false;
    size_t pick = static_cast<size_t>(rng_() % buffer_.size());
    out = std::move(buffer_[pick]);
    buffer_[pick] = std::move(buffer_.back());
    buffer_.pop_back();
    return true;
  }

 private:
  ShuffleParams p_;
  std::mt19937_64 rng_;
  std::vector<Element> buffer_;
  bool input_exhausted_ = false;
  std::unique_ptr<Iterator> input_;
};

// ---- Repeat ---------------------------------------------------------------
struct RepeatParams {
  DatasetPtr input;
  int count;
};
class RepeatIterator : public Iterator {
 public:
  RepeatIterator(std::string prefix, int64_t parent, const RepeatParams& p)
      : Iterator(std::move(prefix), parent), p_(p) {
    if (p_.count != 0) input_ = MakeChild(p_.input, *this);
  }

 protected:
  bool GetNextInternal(Element& out) override {
    while (input_) {
      if (input_->GetNext(out)) {
        produced_in_epoch_ = true;
        return true;
      }
      ++epoch_;
      // An empty input would repeat forever without producing: stop instead.
      bool more = (p_.count < 0 || epoch_ < p_.count) && produced_in_epoch_;
      input_.reset();
      produced_in_epoch_ = false;
      if (more) input_ = MakeChild(p_.input, *this);
    }
    return false;
  }

 private:
  RepeatParams p_;
  int epoch_ = 0;
  bool produced_in_epoch_ = false;
  std::unique_ptr<Iterator> input_;
};

template <typename It, typename Params>
DatasetPtr Make(std::string type, Params params) {
  return std::make_shared<TypedDataset<It, Params>>(std::move(type), std::move(params));
}

}  // namespace

Dataset Dataset::Map(MapFn fn) const { return Dataset(Make<MapIterator>("Map", MapParams{impl_, std::move(fn)})); }
Dataset Dataset::Filter(PredicateFn pred) const {
  return Dataset(Make<FilterIterator>("Filter", FilterParams{impl_, std::move(pred)}));
}
Dataset Dataset::Batch(int batch_size, bool drop_remainder) const {
  return Dataset(Make<BatchIterator>("BatchV2", BatchParams{impl_, std::max(1, batch_size), drop_remainder}));
}
Dataset Dataset::Interleave(InterleaveFn fn, int cycle_length, int block_length) const {
  return Dataset(Make<InterleaveIterator>(
      "Interleave", InterleaveParams{impl_, std::move(fn), std::max(1, cycle_length), std::max(1, block_length)}));
}
Dataset Dataset::Cache() const {
  return Dataset(Make<CacheIterator>("MemoryCache", CacheParams{impl_, std::make_shared<CacheState>()}));
}
Dataset Dataset::Shuffle(int buffer_size, uint64_t seed) const {
  return Dataset(Make<ShuffleIterator>("Shuffle", ShuffleParams{impl_, buffer_size, seed}));
}
Dataset Dataset::Repeat(int count) const {
  return Dataset(Make<RepeatIterator>(count < 0 ? "ForeverRepeat" : "FiniteRepeat", RepeatParams{impl_, count}));
}
std::unique_ptr<Iterator> Dataset::MakeIterator() const {
  return std::make_unique<RootIterator>("Iterator::Root", -1, RootParams{impl_});
}

Dataset Range(int64_t start, int64_t stop, int64_t step) {
  return Dataset(Make<RangeIterator>("Range", RangeParams{start, stop, step}));
}
Dataset Generator(GeneratorFn fn) { return Dataset(Make<GeneratorIterator>("Generator", GeneratorParams{std::move(fn)})); }
Dataset Records(std::vector<std::string> files, double io_micros_per_record) {
  return Dataset(Make<RecordIterator>("TFRecord", RecordParams{std::move(files), io_micros_per_record}));
}

bool WriteRecordFile(const std::string& path, int64_t first_record_id, int num_records, int record_bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return false;
  std::mt19937_64 rng(static_cast<uint64_t>(first_record_id) * 0x9e3779b97f4a7c15ull + 1);
  const uint32_t len = static_cast<uint32_t>(std::max(8, record_bytes));
  std::string payload(len, '\0');
  for (int i = 0; i < num_records; ++i) {
    int64_t id = first_record_id + i;
    std::memcpy(payload.data(), &id, sizeof id);
    for (size_t b = sizeof id; b < payload.size(); ++b) payload[b] = static_cast<char>(rng());
    uint64_t hash = HashBytes(payload);
    out.write(reinterpret_cast<const char*>(&len), sizeof len);
    out.write(payload.data(), len);
    out.write(reinterpret_cast<const char*>(&hash), sizeof hash);
  }
  out.close();
  return static_cast<bool>(out);
}

}  // namespace tbprof::pipeline
