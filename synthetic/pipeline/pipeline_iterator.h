// The pieces every pipeline stage is made of: the element, the traced
// iterator and the dataset that makes iterators, and (in `internal`) the
// helpers that build a stage from an iterator type. pipeline_dataset.h
// composes stages from them; the synchronous stages (pipeline_dataset.cc)
// and the threaded ones (pipeline_async.cc) both build on this header alone,
// so neither stage file needs the other's.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tbprof::pipeline {

// A dataset element: integer features (an index, or a batch of them) and a
// byte payload (a record, or decoded features).
struct Element {
  std::vector<int64_t> values;
  std::string bytes;
};

// num_parallel_calls / buffer_size value meaning "let the runtime choose".
inline constexpr int kAutotune = -1;
// What kAutotune resolves to for parallel stages: the number of cores,
// at least 2, at most 16.
int AutotuneParallelism();

class Iterator {
 public:
  Iterator(std::string prefix, int64_t parent_id, std::string trace_params = {});
  virtual ~Iterator() = default;
  Iterator(const Iterator&) = delete;
  Iterator& operator=(const Iterator&) = delete;

  // Fills `out` and returns true, or returns false at end of sequence.
  bool GetNext(Element& out);
  int64_t id() const { return id_; }
  const std::string& prefix() const { return prefix_; }

 protected:
  virtual bool GetNextInternal(Element& out) = 0;

 private:
  std::string prefix_;
  int64_t id_, parent_id_;
  std::string trace_name_;  // encoded once: "<prefix>#id=..,parent_id=..#"
};

class DatasetBase {
 public:
  virtual ~DatasetBase() = default;
  // Iterator type name, the last component of the prefix (e.g. "ParallelMapV2").
  virtual std::string TypeName() const = 0;
  // `parent_prefix` is the parent's prefix; the iterator's prefix is
  // parent_prefix + "::" + TypeName().
  virtual std::unique_ptr<Iterator> MakeIterator(const std::string& parent_prefix, int64_t parent_id) const = 0;
};

namespace internal {

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

}  // namespace internal
}  // namespace tbprof::pipeline
