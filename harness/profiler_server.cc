#include "harness/profiler_server.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "harness/host_plane_writer.h"
#include "tracer/host_tracer.h"
#include "proto/profiler_service.grpc.pb.h"

namespace tbprof::harness {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::system_clock;

constexpr auto kPollInterval = std::chrono::milliseconds(5);

bool IsPlainName(const std::string& s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos &&
         s.find('\0') == std::string::npos;
}

int64_t CountEvents(const tensorflow::profiler::XSpace& space) {
  int64_t n = 0;
  for (const auto& plane : space.planes()) {
    for (const auto& line : plane.lines()) n += line.events_size();
  }
  return n;
}

class ProfilerServiceImpl final : public tensorflow::ProfilerService::Service {
 public:
  std::atomic<int64_t> served{0};

  grpc::Status Profile(grpc::ServerContext* ctx, const tensorflow::ProfileRequest* req,
                       tensorflow::ProfileResponse* response) override {
    const tensorflow::ProfileOptions& opts = req->opts();
    // Current clients put the duration in the options, older ones only in the request.
    const uint64_t duration_ms = opts.duration_ms() != 0 ? opts.duration_ms() : req->duration_ms();
    // The client's delay arrives as a start time; wait for it (at most an hour).
    if (opts.start_timestamp_ns() != 0) {
      const auto start = Clock::time_point(std::chrono::duration_cast<Clock::duration>(
          std::chrono::nanoseconds(opts.start_timestamp_ns())));
      const auto latest = Clock::now() + std::chrono::hours(1);
      while (Clock::now() < std::min(start, latest)) {
        if (ctx->IsCancelled()) return grpc::Status::CANCELLED;
        std::this_thread::sleep_for(kPollInterval);
      }
    }
    // Host tracer level 0 turns host tracing off (our tracer is the only
    // source, so the answer is an empty trace). Options of version 0 predate
    // the levels: their zero means "default", which traces.
    const bool trace = opts.host_tracer_level() != 0 || opts.version() == 0;
    if (trace && !StartTracing()) {
      return grpc::Status(grpc::StatusCode::ALREADY_EXISTS, "Another profiling session is active.");
    }
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(duration_ms);
    bool cancelled = false;
    while (std::chrono::steady_clock::now() < end) {
      if (ctx->IsCancelled()) {
        cancelled = true;
        break;
      }
      if (TakeStopSignal(req->session_id())) break;
      std::this_thread::sleep_for(kPollInterval);
    }
    TraceSession session = trace ? StopTracing() : TraceSession{};
    if (cancelled) return grpc::Status::CANCELLED;

    const std::string hostname = !opts.override_hostname().empty() ? opts.override_hostname() : LocalHostname();
    tensorflow::profiler::XSpace space;
    if (trace) space = SessionToXSpace(session, hostname);
    response->set_empty_trace(CountEvents(space) == 0);
    ++served;
    if (req->emit_xspace()) {
      *response->mutable_xspace() = std::move(space);
      return grpc::Status::OK;
    }
    return SaveToRepository(*req, space);
  }

  grpc::Status Terminate(grpc::ServerContext*, const tensorflow::TerminateRequest* req,
                         tensorflow::TerminateResponse*) override {
    std::lock_guard<std::mutex> lock(mu_);
    stop_signals_.insert(req->session_id());
    return grpc::Status::OK;
  }

  grpc::Status Monitor(grpc::ServerContext*, const tensorflow::MonitorRequest*,
                       tensorflow::MonitorResponse*) override {
    return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "unimplemented.");
  }

 private:
  bool TakeStopSignal(const std::string& session_id) {
    std::lock_guard<std::mutex> lock(mu_);
    return stop_signals_.erase(session_id) > 0;
  }

  // What TSL's server does for clients that do not set emit_xspace (such as
  // TensorBoard's older capture): write <repository_root>/<session_id>/<host_name
  // with ':' as '_'>.xplane.pb, which the client finds when it shares this
  // machine's file system. Names are checked to stay one component each, and
  // an existing file is never replaced.
  static grpc::Status SaveToRepository(const tensorflow::ProfileRequest& req,
                                       const tensorflow::profiler::XSpace& space) {
    if (req.repository_root().empty()) return grpc::Status::OK;
    std::string host = req.host_name();
    std::replace(host.begin(), host.end(), ':', '_');
    if (!IsPlainName(req.session_id()) || !IsPlainName(host)) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "session_id and host_name must be plain names");
    }
    const std::string run_dir = (fs::path(req.repository_root()) / req.session_id()).string();
    std::error_code ec;
    if (fs::exists(fs::path(run_dir) / (host + ".xplane.pb"), ec)) {
      return grpc::Status(grpc::StatusCode::ALREADY_EXISTS, "the profile of this session was already saved");
    }
    auto written = WriteXSpace(space, run_dir, host);
    if (!written.ok()) return grpc::Status(grpc::StatusCode::INTERNAL, written.status().message());
    return grpc::Status::OK;
  }

  std::mutex mu_;
  std::set<std::string> stop_signals_;
};

}  // namespace

struct ProfilerServer::Impl {
  ProfilerServiceImpl service;
  std::unique_ptr<grpc::Server> server;
};

StatusOr<std::unique_ptr<ProfilerServer>> ProfilerServer::Start(const std::string& address) {
  auto impl = std::make_unique<Impl>();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&impl->service);
  impl->server = builder.BuildAndStart();
  if (!impl->server || port == 0) return Internal("cannot serve ProfilerService on " + address);
  return std::unique_ptr<ProfilerServer>(new ProfilerServer(std::move(impl), port));
}

ProfilerServer::ProfilerServer(std::unique_ptr<Impl> impl, int port) : impl_(std::move(impl)), port_(port) {}

ProfilerServer::~ProfilerServer() {
  // Calls in flight see their context cancelled and end within a poll interval.
  impl_->server->Shutdown(Clock::now() + std::chrono::seconds(2));
  impl_->server->Wait();
}

int64_t ProfilerServer::profiles_served() const { return impl_->service.served.load(); }

}  // namespace tbprof::harness
