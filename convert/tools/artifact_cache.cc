#include "convert/tools/artifact_cache.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <exception>

namespace tbprof {

StatusOr<std::shared_ptr<const void>> ArtifactCache::GetOrCompute(const std::string& key,
                                                                  const Compute& compute) {
  std::shared_ptr<Pending> mine;
  {
    std::unique_lock<std::mutex> lock(mu_);
    auto it = map_.find(key);
    if (it != map_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.lru);
      ++hits_;
      return it->second.entry.value;
    }
    auto p = pending_.find(key);
    if (p != pending_.end()) {
      std::shared_ptr<Pending> theirs = p->second;
      cv_.wait(lock, [&] { return theirs->done; });
      ++hits_;
      return theirs->result;
    }
    ++misses_;
    mine = std::make_shared<Pending>();
    pending_.emplace(key, mine);
  }
  // A throwing computation must still release its waiters (they would block
  // forever on the pending slot), so exceptions become an error result.
  StatusOr<Entry> computed = Internal("computation failed");
  try {
    computed = compute();
  } catch (const std::exception& e) {
    computed = Internal(std::string("computation failed: ") + e.what());
  }
  std::lock_guard<std::mutex> lock(mu_);
  pending_.erase(key);
  mine->done = true;
  if (!computed.ok()) {
    mine->result = computed.status();
  } else {
    mine->result = computed->value;
    if (computed->bytes <= budget_) {
      lru_.push_front(key);
      map_[key] = Slot{*computed, lru_.begin()};
      used_ += computed->bytes;
      EvictLocked();
    }
  }
  cv_.notify_all();
  return mine->result;
}

std::shared_ptr<const void> ArtifactCache::Peek(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  ++hits_;
  return it->second.entry.value;
}

void ArtifactCache::EvictLocked() {
  while (used_ > budget_ && !lru_.empty()) {
    auto it = map_.find(lru_.back());
    used_ -= it->second.entry.bytes;
    map_.erase(it);
    lru_.pop_back();
  }
}

size_t ArtifactCache::bytes_used() const {
  std::lock_guard<std::mutex> lock(mu_);
  return used_;
}

size_t ArtifactCache::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return map_.size();
}

void ArtifactCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  map_.clear();
  lru_.clear();
  used_ = 0;
}

StatusOr<std::string> FileIdentityKey(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return NotFound(path + ": " + std::strerror(errno));
  return path + "|" + std::to_string(st.st_size) + "|" +
         std::to_string(int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec) + "|" +
         std::to_string(st.st_ino);
}

}  // namespace tbprof
