// A small tf.data-like input-pipeline library. Datasets are immutable
// descriptions composed with fluent calls (`Records(files).Map(fn).Batch(16)`);
// `MakeIterator()` instantiates them under an implicit `Root` iterator. Every
// GetNext is traced the way tf.data traces it: a TraceMe named by the
// iterator prefix (`Iterator::Root::Prefetch::Map::TFRecord`) with `id` and
// `parent_id` stats; asynchronous stages run on threads named
// `tf_data_iterator_resource` and emit `<Kind>Produce`/`<Kind>Consume` events
// carrying `element_id`.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "synthetic/pipeline/pipeline_iterator.h"

namespace tbprof::pipeline {

class Dataset;
using MapFn = std::function<void(Element&)>;
using PredicateFn = std::function<bool(const Element&)>;
using InterleaveFn = std::function<Dataset(const Element&)>;
// Produces element `index` into `out`, or returns false when exhausted.
using GeneratorFn = std::function<bool(int64_t index, Element& out)>;

class Dataset {
 public:
  explicit Dataset(std::shared_ptr<const DatasetBase> impl) : impl_(std::move(impl)) {}

  Dataset Map(MapFn fn) const;
  // num_parallel_calls may be kAutotune. Output order equals input order.
  Dataset ParallelMap(MapFn fn, int num_parallel_calls) const;
  Dataset Filter(PredicateFn pred) const;
  Dataset Batch(int batch_size, bool drop_remainder = false) const;
  // buffer_size may be kAutotune.
  Dataset Prefetch(int buffer_size) const;
  // Deterministic round-robin over `cycle_length` datasets made from input
  // elements, `block_length` elements at a time.
  Dataset Interleave(InterleaveFn fn, int cycle_length, int block_length = 1) const;
  // Same order as Interleave(fn, cycle_length, 1); each cycle slot is read
  // ahead by its own thread, `buffer_per_slot` elements deep.
  Dataset ParallelInterleave(InterleaveFn fn, int cycle_length, int buffer_per_slot = 2) const;
  // In-memory cache: the first complete pass fills it, later passes read it.
  Dataset Cache() const;
  // Deterministic for a given seed.
  Dataset Shuffle(int buffer_size, uint64_t seed) const;
  // count < 0: forever.
  Dataset Repeat(int count = -1) const;

  // The root iterator (`Iterator::Root`).
  std::unique_ptr<Iterator> MakeIterator() const;
  const std::shared_ptr<const DatasetBase>& impl() const { return impl_; }

 private:
  std::shared_ptr<const DatasetBase> impl_;
};

// Sources.
Dataset Range(int64_t start, int64_t stop, int64_t step = 1);
Dataset Generator(GeneratorFn fn);
// Sequentially reads record files written by WriteRecordFile; each record
// costs `io_micros_per_record` of modelled I/O latency (a sleep) on top of
// the real read and checksum verification. values = {record id}.
Dataset Records(std::vector<std::string> files, double io_micros_per_record);

// Writes `num_records` records of `record_bytes` pseudo-random bytes; record
// ids run from first_record_id. Returns false on an I/O error.
bool WriteRecordFile(const std::string& path, int64_t first_record_id, int num_records, int record_bytes);

// Drains an iterator (tests, warm-up): all elements in order.
std::vector<Element> Collect(Iterator& it, int64_t max_elements = -1);

}  // namespace tbprof::pipeline
