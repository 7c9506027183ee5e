#include "convert/base/memory_grant.h"

#include <algorithm>
#include <utility>

#include "convert/base/locked.h"

namespace tbprof {
namespace {

thread_local std::shared_ptr<MemoryGrant> t_grant;

}  // namespace

Status MemoryGrant::Claim(uint64_t bytes, std::string_view what) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t wanted = claimed_ + bytes;
  if (wanted > reserved_) {
    // Ask for a little more than needed: each ask takes the owner's lock.
    constexpr uint64_t kStep = uint64_t{16} << 20;
    const uint64_t total = std::max(wanted, reserved_ + kStep);
    if (Status s = more_ ? more_(total - reserved_, total) : Status(); !s.ok()) {
      refused_ = true;
      return Status(s.code(), std::string(what) + ": " + s.message());
    }
    reserved_ = total;
  }
  claimed_ = wanted;
  peak_claimed_ = std::max(peak_claimed_, claimed_);
  return Status();
}

void MemoryGrant::Release(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  claimed_ -= std::min(bytes, claimed_);
}

uint64_t MemoryGrant::reserved() const { return UnderLock(mu_, [this] { return reserved_; }); }

uint64_t MemoryGrant::claimed() const { return UnderLock(mu_, [this] { return claimed_; }); }

bool MemoryGrant::refused() const { return UnderLock(mu_, [this] { return refused_; }); }

uint64_t MemoryGrant::peak_claimed() const { return UnderLock(mu_, [this] { return peak_claimed_; }); }

MemoryGrantScope::MemoryGrantScope(std::shared_ptr<MemoryGrant> grant) : previous_(std::exchange(t_grant, std::move(grant))) {}

MemoryGrantScope::~MemoryGrantScope() { t_grant = std::move(previous_); }

std::shared_ptr<MemoryGrant> CurrentMemoryGrant() { return t_grant; }

Status ClaimMemory(uint64_t bytes, std::string_view what) {
  return t_grant == nullptr ? Status() : t_grant->Claim(bytes, what);
}

void ReleaseMemory(uint64_t bytes) {
  if (t_grant != nullptr) t_grant->Release(bytes);
}

bool MemoryRefused() { return t_grant != nullptr && t_grant->refused(); }

Status GrowClaimed(std::string& out, size_t extra, std::string_view what) {
  if (out.capacity() - out.size() >= extra) return Status();
  const size_t old_capacity = out.capacity();
  const size_t capacity = std::max(out.size() + extra, old_capacity + old_capacity / 2);
  if (Status s = ClaimMemory(capacity, what); !s.ok()) return s;
  out.reserve(capacity);
  // A short string's buffer is inside the object: nothing was claimed for it.
  if (old_capacity > std::string().capacity()) ReleaseMemory(old_capacity);
  return Status();
}

}  // namespace tbprof
