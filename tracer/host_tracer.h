// A TraceMe-like host tracer. Instrumented code opens scoped `TraceMe`s whose
// names follow TSL's `name#key=value,...#` convention; while a session is
// active each completed scope is appended to a buffer owned by the calling
// thread (no locks on the hot path), and `StopTracing` collects every
// thread's events. With no session active a TraceMe costs one relaxed atomic
// load.
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace tbprof::harness {

// One completed scope; `name` still carries its encoded `#k=v#` metadata.
struct TracedEvent {
  std::string name;
  int64_t start_ns = 0;  // wall time (ns since the UNIX epoch)
  int64_t end_ns = 0;
};

struct TracedThread {
  int64_t tid = 0;
  std::string name;
  std::vector<TracedEvent> events;  // in completion order
};

struct TraceSession {
  int64_t start_walltime_ns = 0;
  int64_t stop_walltime_ns = 0;
  std::vector<TracedThread> threads;  // threads that recorded at least one event
};

namespace tracer_internal {
// 0 when tracing is off, else the id of the active session.
extern std::atomic<uint64_t> g_active_session;
int64_t NowTicks();
void Record(uint64_t session, std::string&& name, int64_t start_ticks, int64_t end_ticks);
}  // namespace tracer_internal

// Starts a session. Returns false if one is already active.
bool StartTracing();
// Ends the active session and returns what every thread recorded in it.
TraceSession StopTracing();
inline bool TracingActive() {
  return tracer_internal::g_active_session.load(std::memory_order_relaxed) != 0;
}

// Names the calling thread in traces (and for the OS, truncated to 15 chars).
void SetCurrentThreadName(std::string_view name);

// Scoped event. The name may be a string or a callable producing one; the
// callable only runs while tracing, so encoding costs nothing when off.
class TraceMe {
 public:
  explicit TraceMe(std::string_view name) {
    uint64_t s = tracer_internal::g_active_session.load(std::memory_order_relaxed);
    if (s != 0) [[unlikely]] Begin(s, std::string(name));
  }
  template <typename NameFn, typename = std::enable_if_t<std::is_invocable_v<NameFn>>>
  explicit TraceMe(NameFn&& name_fn) {
    uint64_t s = tracer_internal::g_active_session.load(std::memory_order_relaxed);
    if (s != 0) [[unlikely]] Begin(s, std::string(name_fn()));
  }
  ~TraceMe() {
    if (session_ != 0) [[unlikely]] End();
  }
  TraceMe(const TraceMe&) = delete;
  TraceMe& operator=(const TraceMe&) = delete;

 private:
  void Begin(uint64_t session, std::string&& name) {
    session_ = session;
    name_ = std::move(name);
    start_ticks_ = tracer_internal::NowTicks();
  }
  void End() {
    tracer_internal::Record(session_, std::move(name_), start_ticks_, tracer_internal::NowTicks());
  }
  uint64_t session_ = 0;
  int64_t start_ticks_ = 0;
  std::string name_;
};

// A TraceMe argument: integers and strings, formatted as TSL's StrCat would.
struct TraceArg {
  TraceArg(std::string_view k, int64_t v) : key(k), value(std::to_string(v)) {}
  TraceArg(std::string_view k, int v) : key(k), value(std::to_string(v)) {}
  TraceArg(std::string_view k, uint64_t v) : key(k), value(std::to_string(v)) {}
  TraceArg(std::string_view k, std::string_view v) : key(k), value(v) {}
  TraceArg(std::string_view k, const char* v) : key(k), value(v) {}
  std::string_view key;
  std::string value;
};

// "name#k1=v1,k2=v2#" (just "name" without arguments).
std::string TraceMeEncode(std::string_view name, std::initializer_list<TraceArg> args);
// Appends more arguments to an encoded name.
std::string TraceMeAppend(std::string_view encoded, std::initializer_list<TraceArg> args);

// The parsed form of an encoded name (TSL's ParseAnnotation rules).
struct ParsedTraceName {
  std::string_view name;
  std::vector<std::pair<std::string_view, std::string_view>> stats;
};
ParsedTraceName ParseTraceName(std::string_view encoded);

}  // namespace tbprof::harness
