// The HTTP/1.1 front of `tbprof serve` (Boost.Beast, asynchronous). Kept
// free of Beast types so only http_server.cc pays Beast's compile time.
//
// Stages per request: read (size/time limited) → Host header check →
// ProfileService::Begin on the I/O thread, which answers what is ready (cached
// results, listings) and hands the rest, already parsed, to a worker thread →
// gzip when the client accepts it → write, keep-alive.
//
// Deferred work is admitted by memory (plugin/admission_scheduler.h: lanes,
// the bounded queues, 413/503, the running work's grants). While it waits or
// runs, the connection is watched: a client that closes it cancels the work
// (convert/base/cancellation.h), which then stops at its next checkpoint.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/base/status.h"
#include "plugin/admission_scheduler.h"
#include "plugin/routes.h"

namespace tbprof {

enum class LogLevel { kDebug = 0, kInfo, kWarn, kError, kOff };
// "debug", "info", "warn", "error", "off"; nullopt-like false on garbage.
bool ParseLogLevel(const std::string& name, LogLevel* level);

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 6006;        // 0 picks a free port
  int io_threads = 2;          // network threads
  int worker_threads = 2;      // conversion threads
  LogLevel log_level = LogLevel::kInfo;
  // One line per request; without it only failed requests (5xx, failed
  // writes) and server errors are logged.
  bool verbose = false;
  // Requests waiting for a worker beyond those being worked on; more get 503.
  int max_queued = 64;
  // Memory for the cache and the working memory of conversions together (see
  // AdmissionScheduler); 0: conversions are admitted by worker count only.
  uint64_t memory_budget_bytes = 0;
  // When listening on a loopback address, requests must name the server as
  // localhost, 127.0.0.1 or [::1] (any port) or one of these names in their
  // Host header: a web page elsewhere cannot then reach it through DNS
  // rebinding. Not checked when listening on other addresses (--bind_all).
  std::vector<std::string> allowed_hosts;
  size_t max_header_bytes = 16 * 1024;
  size_t max_body_bytes = 64 * 1024;  // no route takes a body; this only bounds what is read
  // The most unparsed bytes a connection holds: the header, a chunk-size line
  // with its extensions, the trailers, and pipelined requests read ahead. A
  // longer header is refused with 431, longer chunked framing with 400.
  size_t max_read_buffer_bytes = 32 * 1024;
  // A request must arrive completely within this many seconds of the previous
  // answer (or of connecting), so idle keep-alive connections close after it too.
  int read_timeout_s = 30;
  size_t gzip_min_bytes = 860;        // smaller bodies are not worth compressing
};

// Whether `host_header` (a Host header value: name or address, optional port)
// names a loopback server: localhost, 127.0.0.1, [::1], or one of `allowed`.
bool IsAllowedLocalHost(std::string_view host_header, const std::vector<std::string>& allowed);

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, ProfileService* service);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens; the bound port is then port().
  Status Start();
  uint16_t port() const;
  // Serves until Stop() or, when `handle_signals`, SIGINT/SIGTERM. Blocks.
  void Run(bool handle_signals);
  // Thread-safe; makes Run() return after open connections are closed.
  void Stop();

  // Runs work that no request asked for (the start-up warm-up) through the
  // same admission as requests: it waits for a conversion worker and for
  // memory. Blocks until it ran; nullopt when it was refused (too big, queue
  // full) or the server stopped first.
  std::optional<HttpResponse> RunAdmitted(ProfileService::Deferred work);

  // What became of deferred work (for tests and benchmarks).
  using WorkCounts = AdmissionCounts;
  WorkCounts work_counts() const;

  struct Impl;  // public only so http_server.cc's session class can name it

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace tbprof
