#include "synthetic/pipeline/pipeline_iterator.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "tracer/host_tracer.h"

namespace tbprof::pipeline {

using harness::TraceMe;

namespace {
std::atomic<int64_t> g_next_iterator_id{1};
std::atomic<int64_t> g_next_element_id{1};
}  // namespace

int64_t internal::NextElementId() { return g_next_element_id.fetch_add(1, std::memory_order_relaxed); }

int AutotuneParallelism() {
  unsigned n = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp<unsigned>(n, 2, 16));
}

Iterator::Iterator(std::string prefix, int64_t parent_id, std::string trace_params)
    : prefix_(std::move(prefix)), id_(g_next_iterator_id.fetch_add(1)), parent_id_(parent_id) {
  // Same stats as tf.data's BuildTraceMeName: id, parent_id (when there is a
  // parent), then the iterator's own parameters.
  trace_name_ = prefix_ + "#id=" + std::to_string(id_);
  if (parent_id_ >= 0) trace_name_ += ",parent_id=" + std::to_string(parent_id_);
  if (!trace_params.empty()) trace_name_ += "," + trace_params;
  trace_name_ += "#";
}

bool Iterator::GetNext(Element& out) {
  TraceMe trace([this]() -> const std::string& { return trace_name_; });
  return GetNextInternal(out);
}

}  // namespace tbprof::pipeline
