// Shared between pipeline_dataset.cc (synchronous stages) and
// pipeline_async.cc (stages with background threads).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "synthetic/pipeline/pipeline_dataset.h"

namespace tbprof::pipeline::internal {

using DatasetPtr = std::shared_ptr<const DatasetBase>;

inline std::unique_ptr<Iterator> MakeChild(const DatasetPtr& input, const Iterator& parent) {
  return input->MakeIterator(parent.prefix(), parent.id());
}

// Unique ids for Produce/Consume pairs.
int64_t NextElementId();

DatasetPtr MakePrefetch(DatasetPtr input, int buffer_size);
DatasetPtr MakeParallelMap(DatasetPtr input, MapFn fn, int num_parallel_calls);
DatasetPtr MakeParallelInterleave(DatasetPtr input, InterleaveFn fn, int cycle_length, int buffer_per_slot);

}  // namespace tbprof::pipeline::internal
