// A thread-safe cache of derived artifacts (loaded models, OpStats, tool JSON)
// under a byte budget with LRU eviction. Concurrent requests for the same
// missing key wait for one computation instead of each starting their own.
// Keys of file-derived artifacts include the file's identity (size, mtime,
// inode) so a rewritten profile is never served stale.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "convert/base/status.h"

namespace tbprof {

class ArtifactCache {
 public:
  struct Entry {
    std::shared_ptr<const void> value;
    size_t bytes = 0;
  };
  using Compute = std::function<StatusOr<Entry>()>;

  explicit ArtifactCache(size_t budget_bytes) : budget_(budget_bytes) {}

  // Returns the cached value for `key` or computes it (once, however many
  // callers ask at the same time). Errors are returned to every waiter and
  // not cached.
  StatusOr<std::shared_ptr<const void>> GetOrCompute(const std::string& key, const Compute& compute);

  // The cached value for `key`, or null when it is not cached (nothing is
  // computed; a computation in flight counts as not cached).
  std::shared_ptr<const void> Peek(const std::string& key);
  template <typename T>
  std::shared_ptr<const T> Peek(const std::string& key) {
    return std::static_pointer_cast<const T>(Peek(key));
  }

  template <typename T>
  StatusOr<std::shared_ptr<const T>> Get(const std::string& key,
                                         const std::function<StatusOr<std::pair<std::shared_ptr<const T>, size_t>>()>& fn) {
    auto r = GetOrCompute(key, [&]() -> StatusOr<Entry> {
      ASSIGN_OR_RETURN(auto v, fn());
      return Entry{std::static_pointer_cast<const void>(v.first), v.second};
    });
    if (!r.ok()) return r.status();
    return std::static_pointer_cast<const T>(*r);
  }

  size_t bytes_used() const;
  size_t entries() const;
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  void Clear();

 private:
  struct Slot {
    Entry entry;
    std::list<std::string>::iterator lru;
  };
  struct Pending {
    bool done = false;
    StatusOr<std::shared_ptr<const void>> result = Status(ErrorCode::kInternal, "pending");
  };
  void EvictLocked();

  const size_t budget_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::unordered_map<std::string, Slot> map_;
  std::list<std::string> lru_;  // front = most recent
  std::unordered_map<std::string, std::shared_ptr<Pending>> pending_;
  size_t used_ = 0;
  uint64_t hits_ = 0, misses_ = 0;
};

// "<path>|<size>|<mtime ns>|<inode>" for an existing file; an error otherwise.
StatusOr<std::string> FileIdentityKey(const std::string& path);

}  // namespace tbprof
