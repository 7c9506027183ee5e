#include "convert/tools/artifact_cache.h"

#include <exception>

#include "convert/base/cancellation.h"
#include "convert/base/locked.h"
#include "convert/base/memory_grant.h"

namespace tbprof {

namespace {

// Failures that say something lasting about the input (same file, same
// answer) are cached; these may go away on their own and are not.
bool IsTransient(const Status& s) {
  return s.code() == ErrorCode::kUnavailable || s.code() == ErrorCode::kInternal;
}

// Whether the calling thread's work was cancelled (its client left).
bool WorkCancelled() {
  std::shared_ptr<const CancellationToken> token = CurrentCancellation();
  return token != nullptr && token->cancelled();
}

// What a cached failure costs besides its message: the slot, the key, the list node.
constexpr size_t kFailureOverheadBytes = 256;

}  // namespace

StatusOr<std::shared_ptr<const void>> ArtifactCache::GetErased(const Key& key,
                                                               const std::function<StatusOr<Erased>()>& compute) {
  std::shared_ptr<Pending> mine;
  {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      auto it = map_.find(key);
      if (it != map_.end()) {
        lru_.splice(lru_.begin(), lru_, it->second.lru);
        ++hits_;
        if (!it->second.value) return it->second.failure;
        return it->second.value;
      }
      auto p = pending_.find(key);
      if (p == pending_.end()) break;
      std::shared_ptr<Pending> theirs = p->second;
      cv_.wait(lock, [&] { return theirs->done; });
      // Work cancelled for its own client is no answer for this one, who
      // still wants it: compute it (or wait for whoever started it again).
      if (!theirs->cancelled || WorkCancelled()) {
        ++hits_;
        return theirs->result;
      }
    }
    ++misses_;
    mine = std::make_shared<Pending>();
    pending_.emplace(key, mine);
  }
  // A throwing computation must still release its waiters (they would block
  // forever on the pending slot), so exceptions become an error result.
  StatusOr<Erased> computed = Internal("computation failed");
  try {
    computed = compute();
  } catch (const std::exception& e) {
    computed = Internal(std::string("computation failed: ") + e.what());
  }
  std::lock_guard<std::mutex> lock(mu_);
  pending_.erase(key);
  mine->done = true;
  // Work stopped part-way may have returned what it had: nothing computed
  // under a cancelled token is kept, whatever it returned.
  mine->cancelled = WorkCancelled();
  if (mine->cancelled) {
    mine->result = computed.ok() ? StatusOr<std::shared_ptr<const void>>(CancelledError("computation"))
                                 : StatusOr<std::shared_ptr<const void>>(computed.status());
  } else if (!computed.ok()) {
    mine->result = computed.status();
    if (!IsTransient(computed.status()) && !MemoryRefused()) {
      Slot slot;
      slot.failure = computed.status();
      slot.bytes = computed.status().message().size() + key.name.size() + kFailureOverheadBytes;
      InsertLocked(key, std::move(slot), {});
    }
  } else {
    mine->result = computed->value;
    size_t total = computed->bytes;
    for (const SharedCharge& c : computed->shares) total += c.bytes;
    if (computed->value && total <= budget_) {
      Slot slot;
      slot.value = computed->value;
      std::vector<SharedCharge> shares = std::move(computed->shares);
      shares.push_back(SharedCharge{computed->value, computed->bytes});
      InsertLocked(key, std::move(slot), std::move(shares));
    }
  }
  cv_.notify_all();
  return mine->result;
}

void ArtifactCache::InsertLocked(const Key& key, Slot slot, std::vector<SharedCharge> shares) {
  for (SharedCharge& c : shares) {
    if (!c.object) continue;
    Shared& s = shared_[c.object.get()];
    if (s.holders++ == 0) {
      s.object = std::move(c.object);
      s.bytes = c.bytes;
      used_ += c.bytes;
    }
    slot.shares.push_back(s.object.get());
  }
  used_ += slot.bytes;
  lru_.push_front(key);
  slot.lru = lru_.begin();
  map_.emplace(key, std::move(slot));
  EvictLocked();
}

void ArtifactCache::EraseLocked(std::unordered_map<Key, Slot, KeyHash>::iterator it) {
  used_ -= it->second.bytes;
  for (const void* object : it->second.shares) {
    auto s = shared_.find(object);
    if (--s->second.holders == 0) {
      used_ -= s->second.bytes;
      shared_.erase(s);
    }
  }
  lru_.erase(it->second.lru);
  map_.erase(it);
}

bool ArtifactCache::PeekErased(const Key& key, std::shared_ptr<const void>* value, Status* failure) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) return false;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  ++hits_;
  *value = it->second.value;
  *failure = it->second.failure;
  return true;
}

void ArtifactCache::EvictLocked() {
  while (used_ > budget_ && !lru_.empty()) {
    const size_t before = used_;
    EraseLocked(map_.find(lru_.back()));
    evicted_ += before - used_;
  }
}

uint64_t ArtifactCache::evicted_bytes() const { return UnderLock(mu_, [this] { return evicted_; }); }

size_t ArtifactCache::bytes_used() const { return UnderLock(mu_, [this] { return used_; }); }

size_t ArtifactCache::entries() const { return UnderLock(mu_, [this] { return map_.size(); }); }

void ArtifactCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  map_.clear();
  lru_.clear();
  shared_.clear();
  used_ = 0;
}

}  // namespace tbprof
