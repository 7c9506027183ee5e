#include "tracer/host_tracer.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace tbprof::harness {
namespace tracer_internal {

std::atomic<uint64_t> g_active_session{0};

// The TSC is read instead of clock_gettime because two clock reads per event
// would use most of the 50 ns budget; ticks are mapped to wall time when the
// session stops (invariant TSC assumed on x86-64).
int64_t NowTicks() {
#if defined(__x86_64__)
  return static_cast<int64_t>(__rdtsc());
#else
  return std::chrono::steady_clock::now().time_since_epoch().count();
#endif
}

}  // namespace tracer_internal

namespace {

using tracer_internal::g_active_session;
using tracer_internal::NowTicks;

int64_t WallNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
int64_t MonoNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Slot {
  std::string name;
  int64_t start_ticks = 0, end_ticks = 0;
};

struct Chunk {
  static constexpr size_t kSlots = 1024;
  Slot slots[kSlots];
  std::atomic<Chunk*> next{nullptr};
};

// Written only by its thread; read by the collector through `session` and
// `published` (release/acquire), so appends need no lock.
struct ThreadBuffer {
  int64_t tid = 0;
  std::string name;  // guarded by Registry::mu
  std::atomic<uint64_t> session{0};
  std::atomic<size_t> published{0};
  std::atomic<bool> exited{false};
  Chunk* head = new Chunk;
  Chunk* tail = head;  // owner only
  size_t tail_used = 0;

  ~ThreadBuffer() { FreeAfter(head), delete head; }
  static void FreeAfter(Chunk* c) {
    Chunk* n = c->next.load(std::memory_order_relaxed);
    while (n) {
      Chunk* nn = n->next.load(std::memory_order_relaxed);
      delete n;
      n = nn;
    }
    c->next.store(nullptr, std::memory_order_relaxed);
  }
  // Runs on the owner thread when it first records in a new session; the
  // previous session was collected before this one started.
  void Reset(uint64_t new_session) {
    FreeAfter(head);
    tail = head;
    tail_used = 0;
    published.store(0, std::memory_order_relaxed);
    session.store(new_session, std::memory_order_release);
  }
  void Append(std::string&& n, int64_t s, int64_t e) {
    if (tail_used == Chunk::kSlots) [[unlikely]] {
      Chunk* c = new Chunk;
      tail->next.store(c, std::memory_order_release);
      tail = c;
      tail_used = 0;
    }
    Slot& slot = tail->slots[tail_used++];
    slot.name = std::move(n);
    slot.start_ticks = s;
    slot.end_ticks = e;
    published.store(published.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
};

struct Registry {
  std::mutex mu;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;
  std::mutex control_mu;  // serialises Start/Stop
  uint64_t last_session = 0;
  int64_t start_wall_ns = 0, start_mono_ns = 0, start_ticks = 0;
  double ns_per_tick = 0;  // coarse calibration, refined per session
};

Registry& GetRegistry() {
  static Registry* r = new Registry;  // never destroyed: threads may outlive main
  return *r;
}

struct LocalHolder {
  std::shared_ptr<ThreadBuffer> buffer;
  ~LocalHolder() {
    if (buffer) buffer->exited.store(true, std::memory_order_release);
  }
};

ThreadBuffer* LocalBuffer() {
  thread_local LocalHolder holder;
  if (!holder.buffer) [[unlikely]] {
    auto b = std::make_shared<ThreadBuffer>();
    b->tid = static_cast<int64_t>(::syscall(SYS_gettid));
    char os_name[32] = {};
    if (pthread_getname_np(pthread_self(), os_name, sizeof os_name) == 0) b->name = os_name;
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    r.buffers.push_back(b);
    holder.buffer = std::move(b);
  }
  return holder.buffer.get();
}

double CalibrateNsPerTick() {
  int64_t m0 = MonoNowNs(), t0 = NowTicks();
  while (MonoNowNs() - m0 < 2'000'000) {
  }
  int64_t m1 = MonoNowNs(), t1 = NowTicks();
  return t1 > t0 ? double(m1 - m0) / double(t1 - t0) : 1.0;
}

}  // namespace

namespace tracer_internal {
void Record(uint64_t session, std::string&& name, int64_t start_ticks, int64_t end_ticks) {
  if (g_active_session.load(std::memory_order_acquire) != session) return;
  ThreadBuffer* b = LocalBuffer();
  if (b->session.load(std::memory_order_relaxed) != session) [[unlikely]] b->Reset(session);
  b->Append(std::move(name), start_ticks, end_ticks);
}
}  // namespace tracer_internal

bool StartTracing() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> control(r.control_mu);
  if (g_active_session.load(std::memory_order_relaxed) != 0) return false;
  if (r.ns_per_tick == 0) r.ns_per_tick = CalibrateNsPerTick();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    std::erase_if(r.buffers, [](const std::shared_ptr<ThreadBuffer>& b) {
      return b->exited.load(std::memory_order_acquire);
    });
  }
  r.start_wall_ns = WallNowNs();
  r.start_mono_ns = MonoNowNs();
  r.start_ticks = NowTicks();
  g_active_session.store(++r.last_session, std::memory_order_release);
  return true;
}

TraceSession StopTracing() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> control(r.control_mu);
  TraceSession out;
  uint64_t session = g_active_session.exchange(0, std::memory_order_acq_rel);
  if (session == 0) return out;
  int64_t stop_mono = MonoNowNs(), stop_ticks = NowTicks();
  out.start_walltime_ns = r.start_wall_ns;
  out.stop_walltime_ns = r.start_wall_ns + (stop_mono - r.start_mono_ns);
  // Sessions longer than 20 ms calibrate themselves; shorter ones use the
  // calibration measured at the first start.
  double ns_per_tick = r.ns_per_tick;
  if (stop_mono - r.start_mono_ns > 20'000'000 && stop_ticks > r.start_ticks)
    ns_per_tick = double(stop_mono - r.start_mono_ns) / double(stop_ticks - r.start_ticks);
  auto to_wall = [&](int64_t ticks) {
    return r.start_wall_ns + static_cast<int64_t>(double(ticks - r.start_ticks) * ns_per_tick);
  };
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& b : r.buffers) {
    if (b->session.load(std::memory_order_acquire) != session) continue;
    size_t n = b->published.load(std::memory_order_acquire);
    if (n == 0) continue;
    TracedThread t;
    t.tid = b->tid;
    t.name = b->name;
    t.events.reserve(n);
    const Chunk* c = b->head;
    for (size_t i = 0; i < n; ++i) {
      if (i > 0 && i % Chunk::kSlots == 0) c = c->next.load(std::memory_order_acquire);
      const Slot& s = c->slots[i % Chunk::kSlots];
      t.events.push_back({s.name, to_wall(s.start_ticks), to_wall(s.end_ticks)});
    }
    out.threads.push_back(std::move(t));
  }
  std::sort(out.threads.begin(), out.threads.end(),
            [](const TracedThread& a, const TracedThread& b) { return a.tid < b.tid; });
  return out;
}

void SetCurrentThreadName(std::string_view name) {
  std::string os_name(name.substr(0, 15));
  pthread_setname_np(pthread_self(), os_name.c_str());
  ThreadBuffer* b = LocalBuffer();
  std::lock_guard<std::mutex> lock(GetRegistry().mu);
  b->name = std::string(name);
}

std::string TraceMeAppend(std::string_view encoded, std::initializer_list<TraceArg> args) {
  std::string out;
  bool has_meta = !encoded.empty() && encoded.back() == '#';
  out.reserve(encoded.size() + 16 * args.size() + 2);
  if (has_meta) {
    out.append(encoded.substr(0, encoded.size() - 1));
  } else {
    out.append(encoded);
  }
  bool first = !has_meta;
  for (const TraceArg& a : args) {
    out.push_back(first ? '#' : ',');
    first = false;
    out.append(a.key);
    out.push_back('=');
    out.append(a.value);
  }
  if (!first) out.push_back('#');
  return out;
}

std::string TraceMeEncode(std::string_view name, std::initializer_list<TraceArg> args) {
  return TraceMeAppend(name, args);
}

namespace {

std::string_view StripWhitespace(std::string_view s) {
  auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!s.empty() && ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && ws(s.back())) s.remove_suffix(1);
  return s;
}

// Splits on commas that are not inside quotes or brackets.
std::vector<std::string_view> SplitPairs(std::string_view meta) {
  std::vector<std::string_view> out;
  std::vector<char> closers;
  bool in_quote = false;
  char quote = 0;
  size_t begin = 0;
  for (size_t i = 0; i < meta.size(); ++i) {
    char c = meta[i];
    if (in_quote) {
      if (c == quote) in_quote = false;
      continue;
    }
    if (c == '"' || c == '\'') {
      in_quote = true;
      quote = c;
    } else if (c == '[' || c == '{' || c == '(') {
      closers.push_back(c == '[' ? ']' : c == '{' ? '}' : ')');
    } else if (!closers.empty() && c == closers.back()) {
      closers.pop_back();
    } else if (c == ',' && closers.empty()) {
      out.push_back(meta.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  out.push_back(meta.substr(begin));
  return out;
}

}  // namespace

ParsedTraceName ParseTraceName(std::string_view encoded) {
  ParsedTraceName out;
  if (encoded.empty() || encoded.back() != '#') {
    out.name = StripWhitespace(encoded);
    return out;
  }
  encoded.remove_suffix(1);
  size_t hash = encoded.find('#');
  out.name = StripWhitespace(encoded.substr(0, hash));
  if (hash == std::string_view::npos) return out;
  std::string_view meta = encoded.substr(hash + 1);
  if (size_t second = meta.find('#'); second != std::string_view::npos) meta = meta.substr(0, second);
  for (std::string_view pair : SplitPairs(meta)) {
    size_t eq = pair.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = StripWhitespace(pair.substr(0, eq));
    std::string_view value = StripWhitespace(pair.substr(eq + 1));
    if (!key.empty() && !value.empty()) out.stats.emplace_back(key, value);
  }
  return out;
}

}  // namespace tbprof::harness
