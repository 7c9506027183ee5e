#include "convert/base/cancellation.h"

#include <utility>

namespace tbprof {
namespace {

thread_local std::shared_ptr<const CancellationToken> t_token;
std::atomic<uint64_t> g_checkpoints{0};
std::function<void()> g_hook;
std::atomic<bool> g_has_hook{false};

}  // namespace

CancellationScope::CancellationScope(std::shared_ptr<const CancellationToken> token)
    : previous_(std::exchange(t_token, std::move(token))) {}

CancellationScope::~CancellationScope() { t_token = std::move(previous_); }

std::shared_ptr<const CancellationToken> CurrentCancellation() { return t_token; }

bool CancelRequested() {
  const CancellationToken* token = t_token.get();
  if (token == nullptr) return false;
  g_checkpoints.fetch_add(1, std::memory_order_relaxed);
  if (g_has_hook.load(std::memory_order_acquire)) g_hook();
  return token->cancelled();
}

Status CancelledError(const std::string& what) {
  return Unavailable(what + ": cancelled, the client that asked for it has gone");
}

uint64_t CancellationCheckpoints() { return g_checkpoints.load(std::memory_order_relaxed); }

void SetCancellationCheckpointHook(std::function<void()> hook) {
  g_has_hook.store(false, std::memory_order_release);
  g_hook = std::move(hook);
  if (g_hook) g_has_hook.store(true, std::memory_order_release);
}

}  // namespace tbprof
