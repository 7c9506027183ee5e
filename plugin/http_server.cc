// The only translation unit that includes Boost.Beast (it is slow to compile).
#include "plugin/http_server.h"

#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>
#include <vector>

#include "plugin/gzip.h"

namespace tbprof {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

bool ParseLogLevel(const std::string& name, LogLevel* level) {
  static const std::pair<const char*, LogLevel> kLevels[] = {
      {"debug", LogLevel::kDebug}, {"info", LogLevel::kInfo}, {"warn", LogLevel::kWarn},
      {"warning", LogLevel::kWarn}, {"error", LogLevel::kError}, {"off", LogLevel::kOff}};
  for (const auto& [n, l] : kLevels) {
    if (name == n) {
      *level = l;
      return true;
    }
  }
  return false;
}

namespace {

// Text formats shrink well; images, fonts and wasm do not (or are compressed already).
bool Compressible(std::string_view content_type) {
  return content_type.starts_with("text/") || content_type.starts_with("application/json") ||
         content_type.starts_with("application/javascript") || content_type.starts_with("image/svg+xml") ||
         content_type.starts_with("application/octet-stream");
}

// Body type that sends a shared, immutable string without copying it.
using SharedBodyResponse = http::response<http::span_body<const char>>;

}  // namespace

struct HttpServer::Impl {
  Impl(HttpServerOptions o, ProfileService* s)
      : options(std::move(o)), service(s), workers(static_cast<size_t>(std::max(1, options.worker_threads))) {
    // One single-threaded io_context per network thread: a connection stays
    // on its thread, so no locks or cross-thread wake-ups on the hot path.
    for (int i = 0; i < std::max(1, options.io_threads); ++i) {
      contexts.push_back(std::make_unique<net::io_context>(1));
      guards.emplace_back(contexts.back()->get_executor());
    }
  }

  void Log(LogLevel level, const std::string& line) const {
    if (level < options.log_level || options.log_level == LogLevel::kOff) return;
    static const char kTag[] = {'D', 'I', 'W', 'E'};
    std::fprintf(stderr, "[%c] %s\n", kTag[static_cast<int>(level)], line.c_str());
  }
  void Accept();

  HttpServerOptions options;
  ProfileService* service;
  // Declared before `workers`: workers are joined first on destruction.
  std::vector<std::unique_ptr<net::io_context>> contexts;
  std::vector<net::executor_work_guard<net::io_context::executor_type>> guards;
  size_t next_context = 0;  // round-robin, touched only by the accept handler
  std::optional<tcp::acceptor> acceptor;
  net::thread_pool workers;
  uint16_t port = 0;
  std::atomic<bool> stopped{false};
};

namespace {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, HttpServer::Impl* server) : stream_(std::move(socket)), server_(server) {}

  void Start() {
    beast::error_code ec;
    stream_.socket().set_option(tcp::no_delay(true), ec);
    net::dispatch(stream_.get_executor(), beast::bind_front_handler(&Session::Read, shared_from_this()));
  }

 private:
  const HttpServerOptions& options() const { return server_->options; }

  void Read() {
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(options().max_header_bytes));
    parser_->body_limit(options().max_body_bytes);
    stream_.expires_after(std::chrono::seconds(options().read_timeout_s));
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&Session::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, size_t /*bytes*/) {
    if (ec == http::error::end_of_stream || ec == net::error::connection_reset || ec == net::error::eof) {
      return Close();
    }
    if (ec == beast::error::timeout) {
      server_->Log(LogLevel::kDebug, "connection timed out waiting for a request");
      return Close();
    }
    if (ec) {
      // The request could not be read whole: answer once, then drop the connection.
      keep_alive_ = false;
      head_ = false;
      accepts_gzip_ = false;
      method_ = "-";
      target_ = "-";
      start_ = std::chrono::steady_clock::now();
      int status = 400;
      std::string why = "malformed HTTP request: " + ec.message();
      if (ec == http::error::header_limit) {
        status = 431;
        why = "request header larger than " + std::to_string(options().max_header_bytes) + " bytes";
      } else if (ec == http::error::body_limit) {
        status = 413;
        why = "request body larger than " + std::to_string(options().max_body_bytes) + " bytes";
      } else if (ec.category() != http::make_error_code(http::error::bad_target).category()) {
        return Close();  // a socket error: nobody to answer
      }
      HttpResponse res;
      res.status = status;
      res.body = why;
      return Send(std::move(res));
    }

    start_ = std::chrono::steady_clock::now();
    const auto& req = parser_->get();
    HttpRequest request;
    request.method = std::string(req.method_string());
    request.target = std::string(req.target());
    for (const auto& field : req) {
      std::string name(field.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      request.headers.emplace(std::move(name), std::string(field.value()));
    }
    method_ = request.method;
    target_ = request.target;
    keep_alive_ = req.keep_alive();
    version_ = req.version();
    head_ = req.method() == http::verb::head;
    accepts_gzip_ = AcceptsGzip(req[http::field::accept_encoding]);

    // Answers that are ready (listings, cached results) are sent from this
    // I/O thread; conversions go to the worker pool so they never stall I/O.
    std::optional<HttpResponse> res = SafeHandle(request, false);
    if (res.has_value()) return Send(std::move(*res));
    stream_.expires_never();
    net::post(server_->workers, [self = shared_from_this(), request = std::move(request)]() mutable {
      HttpResponse computed = *self->SafeHandle(request, true);
      net::post(self->stream_.get_executor(), [self, computed = std::move(computed)]() mutable {
        self->Send(std::move(computed));
      });
    });
  }

  std::optional<HttpResponse> SafeHandle(const HttpRequest& request, bool may_block) {
    try {
      return server_->service->Handle(request, may_block);
    } catch (const std::exception& e) {
      HttpResponse r;
      r.status = 500;
      r.body = std::string("internal error: ") + e.what();
      return r;
    }
  }

  void Send(HttpResponse res) {
    std::string encoding = res.content_encoding;
    std::shared_ptr<const std::string> body;
    bool vary = false;
    if (encoding.empty() && Compressible(res.content_type)) {
      vary = true;
      if (accepts_gzip_ && res.Body().size() >= options().gzip_min_bytes) {
        if (res.gzip_body) {
          body = res.gzip_body;
          encoding = "gzip";
        } else if (auto gz = GzipCompress(res.Body(), 6); gz.ok()) {
          body = std::make_shared<const std::string>(std::move(*gz));
          encoding = "gzip";
        }
      }
    }
    if (encoding == "gzip" && !accepts_gzip_) {
      // A pre-compressed file (trace.json.gz) for a client that cannot take gzip.
      if (auto plain = GzipDecompress(res.Body()); plain.ok()) {
        body = std::make_shared<const std::string>(std::move(*plain));
        encoding.clear();
      }
    }
    if (!body) body = res.shared_body ? res.shared_body : std::make_shared<const std::string>(std::move(res.body));
    payload_ = body;
    status_ = res.status;
    bytes_ = body->size();

    auto fill = [&](auto& msg) {
      msg.version(version_ == 0 ? 11 : version_);
      msg.result(static_cast<http::status>(res.status));
      msg.set(http::field::server, "tbprof");
      msg.set(http::field::content_type, res.content_type);
      if (!encoding.empty()) msg.set(http::field::content_encoding, encoding);
      if (vary) msg.set(http::field::vary, "Accept-Encoding");
      msg.set("X-Content-Type-Options", "nosniff");
      bool has_csp = false;
      for (const auto& [name, value] : res.headers) {
        msg.insert(name, value);
        has_csp |= beast::iequals(name, "Content-Security-Policy");
      }
      if (!has_csp) msg.set("Content-Security-Policy", kContentSecurityPolicy);
      msg.keep_alive(keep_alive_);
    };
    stream_.expires_after(std::chrono::seconds(std::max(options().read_timeout_s, 300)));
    if (head_) {
      http::response<http::empty_body> msg;
      fill(msg);
      msg.content_length(body->size());
      Write(http::message_generator(std::move(msg)));
    } else {
      SharedBodyResponse msg;
      fill(msg);
      msg.body() = http::span_body<const char>::value_type(payload_->data(), payload_->size());
      msg.prepare_payload();
      Write(http::message_generator(std::move(msg)));
    }
  }

  void Write(http::message_generator msg) {
    beast::async_write(stream_, std::move(msg), beast::bind_front_handler(&Session::OnWrite, shared_from_this()));
  }

  void OnWrite(beast::error_code ec, size_t /*bytes*/) {
    LogRequest(ec);
    payload_.reset();
    if (ec) return Close();
    if (!keep_alive_) return LingeringClose();
    Read();
  }

  // Closing with unread request bytes pending makes the kernel send a RST,
  // which can destroy the response we just wrote before the client reads it
  // (oversized requests). So: stop sending, read and drop what the client
  // still sends for a moment, then close.
  void LingeringClose() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.expires_after(std::chrono::seconds(2));
    Drain();
  }
  void Drain() {
    stream_.async_read_some(net::buffer(drain_buffer_), [self = shared_from_this()](beast::error_code ec, size_t n) {
      self->drained_ += n;
      if (ec || self->drained_ > (4u << 20)) return self->stream_.close();
      self->Drain();
    });
  }

  void LogRequest(beast::error_code ec) {
    LogLevel level = status_ >= 500 ? LogLevel::kError : status_ >= 400 ? LogLevel::kWarn : LogLevel::kInfo;
    if (ec) level = LogLevel::kWarn;
    if (level < server_->options.log_level) return;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
    beast::error_code pec;
    auto peer = stream_.socket().remote_endpoint(pec);
    char line[160];
    std::snprintf(line, sizeof line, " %d %zuB %.2fms", status_, bytes_, ms);
    std::string target = target_.size() > 512 ? target_.substr(0, 512) + "…" : target_;
    server_->Log(level, (pec ? std::string("?") : peer.address().to_string()) + " " + method_ + " " + target + line +
                            (ec ? " (write failed: " + ec.message() + ")" : ""));
  }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.close();
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  HttpServer::Impl* server_;
  std::shared_ptr<const std::string> payload_;  // the body being written
  std::array<char, 8192> drain_buffer_;
  size_t drained_ = 0;
  std::string method_, target_;
  std::chrono::steady_clock::time_point start_;
  unsigned version_ = 11;
  int status_ = 0;
  size_t bytes_ = 0;
  bool keep_alive_ = false, head_ = false, accepts_gzip_ = false;
};

}  // namespace

void HttpServer::Impl::Accept() {
  net::io_context& target = *contexts[next_context++ % contexts.size()];
  acceptor->async_accept(target, [this](beast::error_code ec, tcp::socket socket) {
    if (!ec) {
      std::make_shared<Session>(std::move(socket), this)->Start();
    } else if (ec != net::error::operation_aborted) {
      Log(LogLevel::kWarn, "accept failed: " + ec.message());
    }
    if (acceptor->is_open()) Accept();
  });
}

HttpServer::HttpServer(HttpServerOptions options, ProfileService* service)
    : impl_(std::make_unique<Impl>(std::move(options), service)) {}

HttpServer::~HttpServer() {
  Stop();
  impl_->workers.join();
}

Status HttpServer::Start() {
  beast::error_code ec;
  auto address = net::ip::make_address(impl_->options.host, ec);
  if (ec) return InvalidArgument("--host '" + impl_->options.host + "' is not an IP address: " + ec.message());
  tcp::endpoint endpoint(address, impl_->options.port);
  tcp::acceptor& acceptor = impl_->acceptor.emplace(*impl_->contexts.front());
  auto fail = [&](const char* what) {
    return Internal(std::string(what) + " " + endpoint.address().to_string() + ":" +
                    std::to_string(endpoint.port()) + " failed: " + ec.message());
  };
  if (acceptor.open(endpoint.protocol(), ec); ec) return fail("open");
  if (acceptor.set_option(net::socket_base::reuse_address(true), ec); ec) return fail("setsockopt on");
  if (address.is_v6()) acceptor.set_option(net::ip::v6_only(false), ec);  // "::" serves IPv4 too
  if (acceptor.bind(endpoint, ec); ec) return fail("bind to");
  if (acceptor.listen(net::socket_base::max_listen_connections, ec); ec) return fail("listen on");
  impl_->port = acceptor.local_endpoint(ec).port();
  impl_->Accept();
  return Status::Ok();
}

uint16_t HttpServer::port() const { return impl_->port; }

void HttpServer::Run(bool handle_signals) {
  std::optional<net::signal_set> signals;
  if (handle_signals) {
    signals.emplace(*impl_->contexts.front(), SIGINT, SIGTERM);
    signals->async_wait([this](beast::error_code ec, int signal) {
      if (ec) return;
      impl_->Log(LogLevel::kInfo, std::string("received ") + (signal == SIGINT ? "SIGINT" : "SIGTERM") +
                                      ", shutting down");
      Stop();
    });
  }
  std::vector<std::thread> threads;
  for (size_t i = 1; i < impl_->contexts.size(); ++i) {
    threads.emplace_back([ctx = impl_->contexts[i].get()] { ctx->run(); });
  }
  impl_->contexts.front()->run();
  for (std::thread& t : threads) t.join();
}

void HttpServer::Stop() {
  if (impl_->stopped.exchange(true)) return;
  net::post(*impl_->contexts.front(), [impl = impl_.get()] {
    beast::error_code ec;
    if (impl->acceptor) impl->acceptor->close(ec);
    for (auto& guard : impl->guards) guard.reset();
    for (auto& ctx : impl->contexts) ctx->stop();
  });
}

}  // namespace tbprof
