// The HTTP/1.1 front of `tbprof serve` (Boost.Beast, asynchronous). Kept
// free of Beast types so only http_server.cc pays Beast's compile time.
//
// Stages per request: read (size/time limited) → ProfileService::Handle on
// the I/O thread when the answer is ready (cached results, listings) or on a
// worker thread when it needs a conversion → gzip when the client accepts it
// → write, keep-alive.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "convert/base/status.h"
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
  size_t max_header_bytes = 16 * 1024;
  size_t max_body_bytes = 64 * 1024;  // no route takes a body; this only bounds what is read
  // A request must arrive completely within this many seconds of the previous
  // answer (or of connecting), so idle keep-alive connections close after it too.
  int read_timeout_s = 30;
  size_t gzip_min_bytes = 860;        // smaller bodies are not worth compressing
};

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

  struct Impl;  // public only so http_server.cc's session class can name it

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace tbprof
