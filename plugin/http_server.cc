// The only translation unit that includes Boost.Beast (it is slow to compile).
#include "plugin/http_server.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>
#include <variant>
#include <vector>

#include <sys/socket.h>

#include "convert/base/cancellation.h"
#include "convert/base/json.h"
#include "convert/base/memory_grant.h"
#include "convert/base/strings.h"
#include "plugin/admission_scheduler.h"
#include "plugin/gzip.h"
#include "plugin/catalogue/logdir.h"

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

// The body as it goes on the wire, and its Content-Encoding.
struct EncodedBody {
  std::shared_ptr<const std::string> body;
  std::string encoding;
  bool vary = false;  // the encoding depended on Accept-Encoding
};

// Picks (or makes) the gzip'ed body when the client takes it. Compressing an
// uncached body is CPU work: workers do it for the answers they computed.
EncodedBody Encode(HttpResponse& res, bool accepts_gzip, size_t gzip_min_bytes) {
  // Error messages quote the request (its Host, run or parameters), which may
  // be any bytes: the answer is UTF-8 all the same (and still JSON, since
  // invalid bytes can only sit inside a JSON string).
  if (res.status >= 400 && res.content_encoding.empty() && !IsValidUtf8(res.Body())) {
    res.body = ValidUtf8(res.Body());
    res.shared_body.reset();
    res.gzip_body.reset();
  }
  EncodedBody e;
  e.encoding = res.content_encoding;
  if (e.encoding.empty() && Compressible(res.content_type)) {
    e.vary = true;
    if (accepts_gzip && res.Body().size() >= gzip_min_bytes) {
      if (res.gzip_body) {
        e.body = res.gzip_body;
        e.encoding = "gzip";
      } else if (auto gz = GzipCompress(res.Body(), 6); gz.ok()) {
        e.body = std::make_shared<const std::string>(std::move(*gz));
        e.encoding = "gzip";
      }
    }
  }
  if (!e.body) e.body = res.shared_body ? res.shared_body : std::make_shared<const std::string>(std::move(res.body));
  return e;
}

}  // namespace

bool IsAllowedLocalHost(std::string_view host, const std::vector<std::string>& allowed) {
  std::string name;
  if (host.starts_with('[')) {
    size_t close = host.find(']');
    if (close == std::string_view::npos) return false;
    name = std::string(host.substr(0, close + 1));
    host.remove_prefix(close + 1);
    if (!host.empty() && host.front() != ':') return false;
  } else {
    size_t colon = host.find(':');
    name = std::string(host.substr(0, colon));
    host.remove_prefix(colon == std::string_view::npos ? host.size() : colon);
  }
  // RFC 3986 3.2.3: the port is digits only; "localhost:7210@evil.com" or
  // "localhost:abc" is no name of this server however a proxy reads it.
  if (!host.empty()) {
    host.remove_prefix(1);
    if (host.size() > 5 || !std::all_of(host.begin(), host.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return false;
    }
  }
  name = AsciiLowered(name);
  if (name.size() > 1 && name.back() == '.') name.pop_back();  // "localhost." is the same name
  if (name == "localhost" || name == "127.0.0.1" || name == "[::1]") return true;
  for (const std::string& a : allowed) {
    if (!a.empty() && AsciiLowered(a) == name) return true;
  }
  return false;
}

struct HttpServer::Impl {
  Impl(HttpServerOptions o, ProfileService* s)
      : options(std::move(o)),
        service(s),
        admission({.conversion_threads = options.worker_threads,
                   .max_queued = options.max_queued,
                   .memory_budget_bytes = options.memory_budget_bytes},
                  service->cache()) {
    // One single-threaded io_context per network thread: a connection stays
    // on its thread, so no locks or cross-thread wake-ups on the hot path.
    for (int i = 0; i < std::max(1, options.io_threads); ++i) {
      contexts.push_back(std::make_unique<net::io_context>(1));
      guards.emplace_back(contexts.back()->get_executor());
    }
  }

  void Log(LogLevel level, const std::string& line) const {
    if (options.log_level == LogLevel::kOff) return;
    if (level < options.log_level && level < LogLevel::kError) return;
    static const char kTag[] = {'D', 'I', 'W', 'E'};
    std::fprintf(stderr, "[%c] %s\n", kTag[static_cast<int>(level)], line.c_str());
  }
  void Accept();
  void OnAcceptError(const beast::error_code& ec);
  // Whether a failure caused by these file versions is seen for the first
  // time (and so logged); remembers at most kMaxLoggedFailures of them.
  bool FirstFailureOf(const std::string& failed_files) {
    static constexpr size_t kMaxLoggedFailures = 4096;
    std::lock_guard<std::mutex> lock(logged_mu);
    if (logged_failures.size() >= kMaxLoggedFailures) logged_failures.clear();
    return logged_failures.insert(failed_files).second;
  }

  HttpServerOptions options;
  ProfileService* service;
  // Declared before the network threads' contexts: sessions count their
  // answers out of it when they go with their context.
  AdmissionScheduler admission;
  std::vector<std::unique_ptr<net::io_context>> contexts;
  std::vector<net::executor_work_guard<net::io_context::executor_type>> guards;
  size_t next_context = 0;  // round-robin, touched only by the accept handler
  std::optional<tcp::acceptor> acceptor;
  uint16_t port = 0;
  std::atomic<bool> stopped{false};
  // Every request's deferred work, so that Stop() cancels what runs and what
  // waits: shutdown does not wait for conversions to finish or queues to drain.
  std::shared_ptr<CancellationToken> NewWorkToken() {
    auto token = std::make_shared<CancellationToken>();
    std::lock_guard<std::mutex> lock(work_tokens_mu);
    if (stopped) token->Cancel();
    if (work_tokens.size() >= 2 * work_tokens_live + 64) {  // forget those that ended, now and then
      std::erase_if(work_tokens, [](const std::weak_ptr<CancellationToken>& t) { return t.expired(); });
      work_tokens_live = work_tokens.size();
    }
    work_tokens.push_back(token);
    return token;
  }
  void CancelAllWork() {
    std::lock_guard<std::mutex> lock(work_tokens_mu);
    for (const std::weak_ptr<CancellationToken>& t : work_tokens) {
      if (std::shared_ptr<CancellationToken> live = t.lock()) live->Cancel();
    }
  }
  std::mutex work_tokens_mu;
  std::vector<std::weak_ptr<CancellationToken>> work_tokens;  // guarded by work_tokens_mu
  size_t work_tokens_live = 0;
  bool check_host = false;    // listening on loopback only
  std::mutex logged_mu;
  std::unordered_set<std::string> logged_failures;  // guarded by logged_mu
  // accept() failures (out of descriptors): retried after a pause, logged at most once a second.
  std::optional<net::steady_timer> accept_retry;
  std::chrono::milliseconds accept_pause{0};
  std::chrono::steady_clock::time_point accept_logged{};
  uint64_t accept_failures_unlogged = 0;
};

namespace {

class Session : public std::enable_shared_from_this<Session> {
 public:
  // The read buffer is capped: Beast keeps a chunk-size line (with its
  // extensions and leading zeros) or the trailers whole in it until they
  // end, outside the header and body limits, so an endless one would grow it
  // without bound.
  Session(tcp::socket socket, HttpServer::Impl* server)
      : stream_(std::move(socket)), buffer_(server->options.max_read_buffer_bytes), server_(server) {}

  ~Session() { HoldSending(0); }

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
      if (ec == http::error::header_limit || (ec == http::error::buffer_overflow && !parser_->is_header_done())) {
        status = 431;
        why = "request header larger than " + std::to_string(options().max_header_bytes) + " bytes";
      } else if (ec == http::error::buffer_overflow) {
        why = "chunked framing (a chunk-size line with its extensions, or the trailers) longer than " +
              std::to_string(options().max_read_buffer_bytes) + " bytes";
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
      request.headers.emplace(AsciiLowered(field.name_string()), std::string(field.value()));
    }
    method_ = request.method;
    target_ = request.target;
    keep_alive_ = req.keep_alive();
    version_ = req.version();
    head_ = req.method() == http::verb::head;
    accepts_gzip_ = AcceptsGzip(req[http::field::accept_encoding]);

    // RFC 9112 3.2: an HTTP/1.1 request names its server in exactly one Host
    // header (HTTP/1.0 clients may send none); two could be read differently
    // by the Host check and by whatever sits in front of the server.
    const size_t host_headers = req.count(http::field::host);
    if (host_headers > 1 || (host_headers == 0 && req.version() >= 11)) {
      keep_alive_ = false;
      HttpResponse bad;
      bad.status = 400;
      bad.body = host_headers > 1 ? "more than one Host header" : "an HTTP/1.1 request needs a Host header";
      return Send(std::move(bad));
    }
    if (server_->check_host) {
      std::string_view host(req[http::field::host].data(), req[http::field::host].size());
      // An empty Host (present, naming nothing) names no server either; only an
      // HTTP/1.0 request may leave the header out.
      if (host_headers == 1 && !IsAllowedLocalHost(host, options().allowed_hosts)) {
        HttpResponse denied;
        denied.status = 403;
        denied.body = (host.empty() ? std::string("an empty Host header names no server")
                                    : "Host '" + std::string(host.substr(0, 200)) + "' is not this server") +
                      ": tbprof listens on localhost only and answers requests for localhost, "
                      "127.0.0.1 or [::1] (add names with --allowed_hosts)";
        return Send(std::move(denied));
      }
    }

    // Answers that are ready (listings, cached results) are sent from this
    // I/O thread; the rest, already parsed, goes to the worker pool so it
    // never stalls I/O.
    std::variant<HttpResponse, ProfileService::Deferred> outcome;
    try {
      outcome = server_->service->Begin(request);
    } catch (const std::exception& e) {
      outcome = InternalError(e);
    }
    if (auto* ready = std::get_if<HttpResponse>(&outcome)) return Send(std::move(*ready));
    token_ = server_->NewWorkToken();
    if (auto refusal = Admit(std::move(std::get<ProfileService::Deferred>(outcome)), token_)) {
      token_.reset();
      return Send(std::move(*refusal));
    }
    // Until the answer is ready, watch the connection: the client closing it
    // cancels the work.
    stream_.expires_never();
    Watch();
  }

  // Queues deferred work for a worker (from this session's I/O thread, or
  // from a worker handing back the rest of its work); the answer refusing it
  // when it cannot be queued.
  std::optional<HttpResponse> Admit(ProfileService::Deferred work, std::shared_ptr<CancellationToken> token) {
    work.working_bytes = server_->admission.AdmittedBytes(work);
    AdmissionScheduler::Job job;
    job.working_bytes = work.working_bytes;
    job.lane = work.lane;
    job.run = [self = shared_from_this(), run = std::move(work.run), token, bytes = work.working_bytes,
               lane = work.lane] { self->RunDeferred(run, token, bytes, lane); };
    return server_->admission.Submit(std::move(job));
  }

  // On a worker: the deferred work under the request's cancellation token.
  void RunDeferred(const std::function<std::variant<HttpResponse, ProfileService::Deferred>()>& run,
                   const std::shared_ptr<CancellationToken>& token, uint64_t bytes, WorkLane lane) {
    if (token->cancelled()) {  // the client left while it waited: not started
      server_->admission.Finished(lane, bytes);
      server_->admission.Count(AdmissionScheduler::Ending::kNotStarted);
      return net::post(stream_.get_executor(), [self = shared_from_this()] { self->OnWorkDone(std::nullopt, {}); });
    }
    std::variant<HttpResponse, ProfileService::Deferred> outcome;
    std::shared_ptr<MemoryGrant> grant = server_->admission.GrantFor(lane, bytes);
    std::shared_ptr<EncodedBody> encoded;
    {
      CancellationScope scope(token);
      MemoryGrantScope memory(grant);
      try {
        outcome = run();
        // The gzip'ed copy is made while the work still holds its memory.
        if (auto* answer = std::get_if<HttpResponse>(&outcome); answer != nullptr && !token->cancelled()) {
          encoded = std::make_shared<EncodedBody>(Encode(*answer, accepts_gzip_, options().gzip_min_bytes));
        }
      } catch (const std::exception& e) {
        outcome = InternalError(e);
        encoded.reset();
      }
    }
    server_->admission.Finished(lane, grant->reserved());
    const bool cancelled = token->cancelled();
    if (!cancelled) {
      if (auto* rest = std::get_if<ProfileService::Deferred>(&outcome)) {
        // The rest of the work, now that its size is known, waits for admission again.
        std::optional<HttpResponse> refusal = Admit(std::move(*rest), token);
        if (!refusal) return;
        outcome = std::move(*refusal);
      }
    }
    server_->admission.Count(cancelled ? AdmissionScheduler::Ending::kCancelledRunning
                                       : AdmissionScheduler::Ending::kFinished);
    if (cancelled) {
      return net::post(stream_.get_executor(), [self = shared_from_this()] { self->OnWorkDone(std::nullopt, {}); });
    }
    HttpResponse computed = std::get<HttpResponse>(std::move(outcome));
    if (!encoded) encoded = std::make_shared<EncodedBody>(Encode(computed, accepts_gzip_, options().gzip_min_bytes));
    net::post(stream_.get_executor(), [self = shared_from_this(), computed = std::move(computed), encoded]() mutable {
      self->OnWorkDone(std::move(computed), std::move(*encoded));
    });
  }

  // Reads while work runs: what a pipelining client sends is kept for the next
  // request; the end of the stream (or an error) means the client has gone.
  // HTTP clients do not half-close a connection they expect an answer on.
  void Watch() {
    constexpr size_t kReadAhead = 4096;  // read ahead of the next requests at most what the buffer's cap leaves
    if (buffer_.max_size() - buffer_.size() < kReadAhead) return;
    watching_ = true;
    stream_.async_read_some(buffer_.prepare(kReadAhead), beast::bind_front_handler(&Session::OnWatch, shared_from_this()));
  }

  void OnWatch(beast::error_code ec, size_t n) {
    watching_ = false;
    if (!ec) {
      buffer_.commit(n);
      if (ready_) return SendReady();
      return Watch();
    }
    if (ec == net::error::operation_aborted && ready_) return SendReady();  // stopped to send the answer
    if (token_) token_->Cancel();
    client_gone_ = true;
    server_->admission.Count(AdmissionScheduler::Ending::kClientLeft);
    if (ready_) return Close();  // the answer came as the client left
  }

  // Back on the I/O thread: the answer, or nothing when the work was dropped.
  void OnWorkDone(std::optional<HttpResponse> computed, EncodedBody encoded) {
    token_.reset();
    if (!computed || client_gone_) {
      client_gone_ = true;
      ready_ = true;
      if (!watching_) return Close();
      beast::error_code ec;
      stream_.socket().cancel(ec);  // OnWatch closes
      return;
    }
    ready_response_ = std::move(*computed);
    ready_encoded_ = std::move(encoded);
    ready_ = true;
    if (watching_) {
      beast::error_code ec;
      stream_.socket().cancel(ec);  // OnWatch sends it
      return;
    }
    SendReady();
  }

  void SendReady() {
    ready_ = false;
    if (client_gone_) return Close();
    Send(std::move(ready_response_), std::move(ready_encoded_));
  }

  static HttpResponse InternalError(const std::exception& e) {
    HttpResponse r;
    r.status = 500;
    r.body = std::string("internal error: ") + e.what();
    return r;
  }

  void Send(HttpResponse res) {
    EncodedBody encoded = Encode(res, accepts_gzip_, options().gzip_min_bytes);
    Send(std::move(res), std::move(encoded));
  }

  void Send(HttpResponse res, EncodedBody encoded) {
    const std::string& encoding = encoded.encoding;
    const bool vary = encoded.vary;
    std::shared_ptr<const std::string> body = std::move(encoded.body);
    payload_ = body;
    // An answer being written is memory this connection keeps alive until the
    // client has read it (a slow reader: for minutes). A cached one counts
    // too: the cache may let it go (evicted, or too big to keep) while the
    // client still reads, and then only this count holds it against
    // --memory_mb. While both hold it, it counts twice: conservative, and
    // only for as long as the write takes. Small cached answers are not worth
    // the admission lock their release takes.
    HoldSending(!res.from_cache || body->size() >= kCountedSendBytes ? body->size() : 0);
    status_ = res.status;
    failed_files_ = std::move(res.failed_files);
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
    // A client reading slower than 1 MiB/s (after 30 s of grace) is dropped:
    // the answer it holds counts against --memory_mb and holds back conversions.
    stream_.expires_after(std::chrono::seconds(
        std::min<uint64_t>(std::max<uint64_t>(options().read_timeout_s, 30 + (body->size() >> 20)), 300)));
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

  static constexpr size_t kCountedSendBytes = size_t{64} << 10;

  // Counts `bytes` (replacing what this session counted before) as held for writing.
  void HoldSending(uint64_t bytes) {
    server_->admission.HoldForWriting(sending_bytes_, bytes);
    sending_bytes_ = bytes;
  }

  void Write(http::message_generator msg) {
    beast::async_write(stream_, std::move(msg), beast::bind_front_handler(&Session::OnWrite, shared_from_this()));
  }

  void OnWrite(beast::error_code ec, size_t /*bytes*/) {
    LogRequest(ec);
    payload_.reset();
    HoldSending(0);
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
    // Server errors always; a client that leaves before the answer is written
    // is its own business, logged with the rest at --verbose.
    // A damaged profile fails every request for it: logged once per file version.
    // A damaged file is answered 422 (the user must re-capture it) and is logged the same way.
    const bool failed = (status_ >= 500 || (status_ == 422 && !failed_files_.empty())) &&
                        (failed_files_.empty() || server_->FirstFailureOf(failed_files_));
    if (!failed && !server_->options.verbose) return;
    LogLevel level = failed ? LogLevel::kError : LogLevel::kInfo;
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
  // While deferred work runs: its token, and the state of the watch read.
  std::shared_ptr<CancellationToken> token_;
  bool watching_ = false, ready_ = false, client_gone_ = false;
  HttpResponse ready_response_;
  EncodedBody ready_encoded_;
  std::optional<http::request_parser<http::string_body>> parser_;
  HttpServer::Impl* server_;
  std::shared_ptr<const std::string> payload_;  // the body being written
  uint64_t sending_bytes_ = 0;  // of payload_, counted by the server's admission
  std::array<char, 8192> drain_buffer_;
  size_t drained_ = 0;
  std::string method_, target_;
  std::chrono::steady_clock::time_point start_;
  unsigned version_ = 11;
  int status_ = 0;
  std::string failed_files_;  // of the answer being written (see HttpResponse::failed_files)
  size_t bytes_ = 0;
  bool keep_alive_ = false, head_ = false, accepts_gzip_ = false;
};

}  // namespace

std::optional<HttpResponse> HttpServer::RunAdmitted(ProfileService::Deferred work) {
  return impl_->admission.RunAdmitted(std::move(work), impl_->stopped, impl_->NewWorkToken());
}

HttpServer::WorkCounts HttpServer::work_counts() const {
  return impl_->admission.counts();
}

void HttpServer::Impl::Accept() {
  net::io_context& target = *contexts[next_context++ % contexts.size()];
  acceptor->async_accept(target, [this](beast::error_code ec, tcp::socket socket) {
    if (!ec) {
      accept_pause = std::chrono::milliseconds(0);
      std::make_shared<Session>(std::move(socket), this)->Start();
    } else if (ec != net::error::operation_aborted) {
      return OnAcceptError(ec);
    }
    if (acceptor->is_open()) Accept();
  });
}

// Out of descriptors (EMFILE), accept fails at once for as long as the
// connection waits in the backlog: retrying at once would spin. Pause (10 ms,
// doubling to 1 s) until connections close, and log once a second at most.
void HttpServer::Impl::OnAcceptError(const beast::error_code& ec) {
  ++accept_failures_unlogged;
  const auto now = std::chrono::steady_clock::now();
  if (now - accept_logged >= std::chrono::seconds(1)) {
    Log(LogLevel::kError, "accept failed: " + ec.message() + " (" + std::to_string(accept_failures_unlogged) +
                              " time(s) in the last second; retrying after a pause)");
    accept_logged = now;
    accept_failures_unlogged = 0;
  }
  accept_pause = std::min<std::chrono::milliseconds>(std::max(accept_pause * 2, std::chrono::milliseconds(10)),
                                                     std::chrono::milliseconds(1000));
  if (!accept_retry) accept_retry.emplace(*contexts.front());
  accept_retry->expires_after(accept_pause);
  accept_retry->async_wait([this](beast::error_code wait_ec) {
    if (!wait_ec && acceptor->is_open()) Accept();
  });
}

HttpServer::HttpServer(HttpServerOptions options, ProfileService* service)
    : impl_(std::make_unique<Impl>(std::move(options), service)) {}

HttpServer::~HttpServer() {
  Stop();
  impl_->admission.Join();
  // Sessions still held by handlers go with their io_context and count their
  // answers out of the server: destroyed here, while the rest of it lives.
  impl_->accept_retry.reset();
  impl_->acceptor.reset();
  impl_->guards.clear();
  impl_->contexts.clear();
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
  impl_->check_host = address.is_loopback();
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
    threads.emplace_back([ctx = impl_->contexts[i].get()] {
      MarkAsNetworkThread();
      ctx->run();
    });
  }
  MarkAsNetworkThread();  // the caller's thread serves too (and stays a network thread after)
  impl_->contexts.front()->run();
  for (std::thread& t : threads) t.join();
}

void HttpServer::Stop() {
  {
    // Under the tokens' lock: a token made from here on is born cancelled.
    std::lock_guard<std::mutex> lock(impl_->work_tokens_mu);
    if (impl_->stopped.exchange(true)) return;
  }
  impl_->CancelAllWork();
  net::post(*impl_->contexts.front(), [impl = impl_.get()] {
    beast::error_code ec;
    if (impl->acceptor) impl->acceptor->close(ec);
    if (impl->accept_retry) impl->accept_retry->cancel();
    for (auto& guard : impl->guards) guard.reset();
    for (auto& ctx : impl->contexts) ctx->stop();
  });
}

}  // namespace tbprof
