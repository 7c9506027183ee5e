// Shared between pipeline_dataset.cc (synchronous stages) and
// pipeline_async.cc (stages with background threads).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <utility>

#include "synthetic/pipeline/pipeline_dataset.h"

namespace tbprof::pipeline::internal {

using DatasetPtr = std::shared_ptr<const DatasetBase>;

inline std::unique_ptr<Iterator> MakeChild(const DatasetPtr& input, const Iterator& parent) {
  return input->MakeIterator(parent.prefix(), parent.id());
}

// A dataset of one iterator type: `It` is built from the parent's prefix
// and id and the dataset's parameters. Every stage, synchronous or not, is one.
template <typename It, typename Params>
class TypedDataset : public DatasetBase {
 public:
  TypedDataset(std::string type, Params params) : type_(std::move(type)), params_(std::move(params)) {}
  std::string TypeName() const override { return type_; }
  std::unique_ptr<Iterator> MakeIterator(const std::string& parent_prefix, int64_t parent_id) const override {
    return std::make_unique<It>(parent_prefix + "::" + type_, parent_id, params_);
  }

 private:
  std::string type_;
  Params params_;
};

// Unique ids for Produce/Consume pairs.
int64_t NextElementId();

DatasetPtr MakePrefetch(DatasetPtr input, int buffer_size);
DatasetPtr MakeParallelMap(DatasetPtr input, MapFn fn, int num_parallel_calls);
DatasetPtr MakeParallelInterleave(DatasetPtr input, InterleaveFn fn, int cycle_length, int buffer_per_slot);

}  // namespace tbprof::pipeline::internal
