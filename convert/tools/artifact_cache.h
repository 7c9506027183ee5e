// A thread-safe cache of derived artifacts (loaded models, OpStats, tool
// results) under a byte budget with LRU eviction. Concurrent requests for the
// same missing key wait for one computation instead of each starting their own.
// Keys of file-derived artifacts include the file's identity (size, mtime,
// inode) so a rewritten profile is never served stale.
//
// Typed: an entry is found by its name *and* its C++ type, so a value is never
// handed out as another type, whatever its name.
//
// Accounting counts what entries keep alive: an entry declares its own bytes
// and the objects it shares with other entries (a trace index holds the model
// it indexes); a shared object is counted once while any entry holds it, also
// after the entry that owned it was evicted.
//
// Failures are cached like results (a corrupt or oversized file fails once per
// identity, not once per request), except transient ones (kUnavailable: the
// file changed while it was read; kInternal: an exception such as bad_alloc).
// Nothing computed under a cancelled token (convert/base/cancellation.h) is
// kept, and callers waiting for it compute it themselves.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <typeindex>
#include <unordered_map>
#include <vector>

#include "convert/base/file_bytes.h"
#include "convert/base/status.h"

namespace tbprof {

// An object whose memory an entry keeps alive together with other entries.
struct SharedCharge {
  std::shared_ptr<const void> object;
  size_t bytes = 0;
};

template <typename T>
struct CacheValue {
  std::shared_ptr<const T> value;
  size_t bytes = 0;                    // held by `value` alone
  std::vector<SharedCharge> shares;    // held with other entries
};

class ArtifactCache {
 public:
  explicit ArtifactCache(size_t budget_bytes) : budget_(budget_bytes) {}

  template <typename T>
  using Compute = std::function<StatusOr<CacheValue<T>>()>;

  // The cached value (or cached failure) of `key`, else computes it once
  // however many callers ask at the same time.
  template <typename T>
  StatusOr<std::shared_ptr<const T>> Get(const std::string& key, const Compute<T>& compute) {
    auto r = GetErased(Key{std::type_index(typeid(T)), key}, [&]() -> StatusOr<Erased> {
      auto v = compute();
      if (!v.ok()) return v.status();
      return Erased{std::static_pointer_cast<const void>(v->value), v->bytes, std::move(v->shares)};
    });
    if (!r.ok()) return r.status();
    return std::static_pointer_cast<const T>(*r);
  }
  // The same for a computation that shares nothing: (value, bytes).
  template <typename T>
  StatusOr<std::shared_ptr<const T>> Get(const std::string& key,
                                         const std::function<StatusOr<std::pair<std::shared_ptr<const T>, size_t>>()>& fn) {
    return Get<T>(key, Compute<T>([&]() -> StatusOr<CacheValue<T>> {
                    auto v = fn();
                    if (!v.ok()) return v.status();
                    return CacheValue<T>{std::move(v->first), v->second, {}};
                  }));
  }

  // Whether `key` is settled: a value or a cached failure (nothing computed;
  // a computation in flight counts as not settled). A value is returned in
  // *value when asked for; a failure in *failure.
  template <typename T>
  bool Peek(const std::string& key, std::shared_ptr<const T>* value, Status* failure = nullptr) {
    std::shared_ptr<const void> v;
    Status s;
    if (!PeekErased(Key{std::type_index(typeid(T)), key}, &v, &s)) return false;
    if (value != nullptr) *value = std::static_pointer_cast<const T>(v);
    if (failure != nullptr) *failure = s;
    return true;
  }
  // The cached value of `key`, or null (also for a cached failure).
  template <typename T>
  std::shared_ptr<const T> Peek(const std::string& key) {
    std::shared_ptr<const T> v;
    Peek<T>(key, &v);
    return v;
  }

  size_t budget_bytes() const { return budget_; }
  size_t bytes_used() const;
  size_t entries() const;
  // Bytes evicted since the cache was made (for returning freed memory to the system).
  uint64_t evicted_bytes() const;
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  void Clear();

 private:
  struct Key {
    std::type_index type;
    std::string name;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return std::hash<std::string>()(k.name) ^ k.type.hash_code(); }
  };
  struct Erased {
    std::shared_ptr<const void> value;
    size_t bytes = 0;
    std::vector<SharedCharge> shares;
  };
  struct Slot {
    std::shared_ptr<const void> value;  // null for a cached failure
    Status failure;
    size_t bytes = 0;
    std::vector<const void*> shares;
    std::list<Key>::iterator lru;
  };
  struct Pending {
    bool done = false;
    bool cancelled = false;  // computed for a client that left: waiters compute it again
    StatusOr<std::shared_ptr<const void>> result = Status(ErrorCode::kInternal, "pending");
  };
  struct Shared {
    std::shared_ptr<const void> object;
    size_t bytes = 0;
    int holders = 0;
  };

  StatusOr<std::shared_ptr<const void>> GetErased(const Key& key, const std::function<StatusOr<Erased>()>& compute);
  bool PeekErased(const Key& key, std::shared_ptr<const void>* value, Status* failure);
  void InsertLocked(const Key& key, Slot slot, std::vector<SharedCharge> shares);
  void EraseLocked(std::unordered_map<Key, Slot, KeyHash>::iterator it);
  void EvictLocked();

  const size_t budget_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::unordered_map<Key, Slot, KeyHash> map_;
  std::list<Key> lru_;  // front = most recent
  std::unordered_map<Key, std::shared_ptr<Pending>, KeyHash> pending_;
  std::unordered_map<const void*, Shared> shared_;
  size_t used_ = 0;
  uint64_t evicted_ = 0;
  uint64_t hits_ = 0, misses_ = 0;
};

// What `compute` makes of the file at `path`: with a cache, computed once per
// file identity (a changed file is computed again) under `kind`; without one,
// computed on each call.
template <typename T>
StatusOr<std::shared_ptr<const T>> GetForFile(ArtifactCache* cache, std::string_view kind, const std::string& path,
                                              const ArtifactCache::Compute<T>& compute) {
  if (cache == nullptr) {
    ASSIGN_OR_RETURN(CacheValue<T> v, compute());
    return v.value;
  }
  ASSIGN_OR_RETURN(std::string key, FileIdentityKey(path));
  return cache->Get<T>(std::string(kind) + "|" + key, compute);
}

// What `cache` holds of the file at `path` under `kind` (GetForFile's key),
// else null; nothing is computed. Null too without a cache or when the file
// cannot be stat'ed.
template <typename T>
std::shared_ptr<const T> PeekForFile(ArtifactCache* cache, std::string_view kind, const std::string& path) {
  if (cache == nullptr) return nullptr;
  auto key = FileIdentityKey(path);
  return key.ok() ? cache->Peek<T>(std::string(kind) + "|" + *key) : nullptr;
}

}  // namespace tbprof
