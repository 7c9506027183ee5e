// Capture over loopback: the capture client against the harness's
// ProfilerService (in process, and two `tbprof harness … --serve_profiler`
// processes captured by `tbprof capture`), against scripted servers for the
// failures (unreachable, timeout, empty trace) and older servers' answers, and
// the capture_profile route end to end. Every written file is read back with
// libprotobuf.
#include <arpa/inet.h>
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "harness/host_plane_writer.h"
#include "harness/pipeline_runner.h"
#include "harness/profiler_server.h"
#include "tracer/host_tracer.h"
#include "plugin/capture/capture.h"
#include "plugin/routes.h"
#include "proto/profiler_service.grpc.pb.h"

extern char** environ;

namespace tbprof {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;
using capture::CaptureOptions;
using capture::CaptureProfile;

class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(fs::temp_directory_path() / ("tbprof-capture-test-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

// A service over `logdir` with the default options, changed by `adjust`.
StatusOr<std::unique_ptr<ProfileService>> ServiceOver(const TempDir& logdir,
                                                      const std::function<void(ProfileServiceOptions&)>& adjust = {}) {
  ProfileServiceOptions options;
  options.logdir = logdir.str();
  if (adjust) adjust(options);
  return ProfileService::Create(options);
}

// What a running job does: opens TraceMe scopes on its own thread.
class TracedJob {
 public:
  TracedJob()
      : thread_([this] {
          harness::SetCurrentThreadName("job_loop");
          while (!stop_) {
            harness::TraceMe step("job_step");
            std::this_thread::sleep_for(1ms);
          }
        }) {}
  ~TracedJob() {
    stop_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

tensorflow::profiler::XSpace ReadXSpace(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  tensorflow::profiler::XSpace space;
  EXPECT_TRUE(space.ParseFromString(bytes.str())) << path;
  return space;
}

int64_t CountEventsNamed(const tensorflow::profiler::XSpace& space, const std::string& name) {
  int64_t n = 0;
  for (const auto& plane : space.planes()) {
    for (const auto& line : plane.lines()) {
      for (const auto& event : line.events()) {
        auto it = plane.event_metadata().find(event.metadata_id());
        if (it != plane.event_metadata().end() && it->second.name() == name) ++n;
      }
    }
  }
  return n;
}

// A loopback port nobody listens on (bound, then released).
int UnusedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::vector<std::string> RunsUnder(const fs::path& logdir) {
  std::vector<std::string> runs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(logdir / "plugins" / "profile", ec)) {
    runs.push_back(e.path().filename().string());
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

tensorflow::profiler::XSpace OneEventSpace() {
  tensorflow::profiler::XSpace space;
  auto* plane = space.add_planes();
  plane->set_id(0);
  plane->set_name("/host:CPU");
  (*plane->mutable_event_metadata())[1].set_id(1);
  (*plane->mutable_event_metadata())[1].set_name("scripted");
  auto* line = plane->add_lines();
  line->set_id(1);
  line->set_name("main");
  auto* event = line->add_events();
  event->set_metadata_id(1);
  event->set_offset_ps(0);
  event->set_duration_ps(1000000);
  space.add_hostnames("scripted-host");
  return space;
}

// A ProfilerService whose answers the test chooses.
class ScriptedService final : public tensorflow::ProfilerService::Service {
 public:
  enum class Mode { kEmptyTrace, kNeverAnswers, kEmitsXSpace, kToolData, kSavesItself };
  explicit ScriptedService(Mode mode) : mode_(mode) {}
  std::atomic<int> calls{0};
  tensorflow::ProfileRequest last_request;

  grpc::Status Profile(grpc::ServerContext* ctx, const tensorflow::ProfileRequest* req,
                       tensorflow::ProfileResponse* response) override {
    ++calls;
    last_request = *req;
    switch (mode_) {
      case Mode::kEmptyTrace:
        response->set_empty_trace(true);
        return grpc::Status::OK;
      case Mode::kNeverAnswers:
        while (!ctx->IsCancelled()) std::this_thread::sleep_for(5ms);
        return grpc::Status::CANCELLED;
      case Mode::kEmitsXSpace:
        *response->mutable_xspace() = OneEventSpace();
        return grpc::Status::OK;
      case Mode::kToolData: {
        auto* tool = response->add_tool_data();
        tool->set_name("xplane.pb");
        tool->set_data(OneEventSpace().SerializeAsString());
        return grpc::Status::OK;
      }
      case Mode::kSavesItself: {  // as servers that predate emit_xspace do
        std::string host = req->host_name();
        std::replace(host.begin(), host.end(), ':', '_');
        fs::path dir = fs::path(req->repository_root()) / req->session_id();
        fs::create_directories(dir);
        std::ofstream(dir / (host + ".xplane.pb"), std::ios::binary) << OneEventSpace().SerializeAsString();
        return grpc::Status::OK;
      }
    }
    return grpc::Status::OK;
  }

 private:
  Mode mode_;
};

class ScriptedServer {
 public:
  explicit ScriptedServer(ScriptedService::Mode mode) : service(mode) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service);
    server_ = builder.BuildAndStart();
  }
  ~ScriptedServer() { server_->Shutdown(std::chrono::system_clock::now() + 1s); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  ScriptedService service;

 private:
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

CaptureOptions Options(const std::string& logdir, std::vector<std::string> addresses, int64_t duration_ms) {
  CaptureOptions o;
  o.logdir = logdir;
  o.service_addresses = std::move(addresses);
  o.duration_ms = duration_ms;
  return o;
}

TEST(Capture, SingleHarnessWorkerWritesAReadableRun) {
  TempDir logdir("single");
  auto server = harness::ProfilerServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok()) << server.status().message();
  TracedJob job;
  const std::string address = "127.0.0.1:" + std::to_string((*server)->port());
  auto result = CaptureProfile(Options(logdir.str(), {address}, 300));
  ASSERT_TRUE(result.ok()) << result.status().message();

  EXPECT_TRUE(std::regex_match(result->run, std::regex(R"(\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d(_\d+)?)"))) << result->run;
  EXPECT_EQ(RunsUnder(logdir.path()), std::vector<std::string>{result->run});
  ASSERT_EQ(result->hosts.size(), 1u);
  const fs::path expected =
      logdir.path() / "plugins" / "profile" / result->run / ("127.0.0.1_" + std::to_string((*server)->port()) + ".xplane.pb");
  EXPECT_EQ(result->hosts[0].path, expected.string());
  EXPECT_EQ(result->hosts[0].bytes, fs::file_size(expected));
  EXPECT_EQ(result->attempts, 1);
  tensorflow::profiler::XSpace space = ReadXSpace(expected);
  ASSERT_EQ(space.hostnames_size(), 1);
  EXPECT_EQ(space.hostnames(0), harness::LocalHostname());
  // ~300 steps of 1 ms were traced; a loaded machine may run far fewer.
  EXPECT_GE(CountEventsNamed(space, "job_step"), 10);
  EXPECT_EQ((*server)->profiles_served(), 1);
}

TEST(Capture, PipelineRunIsCapturableWhileItRuns) {
  TempDir logdir("pipeline");
  TempDir data("pipeline-data");
  harness::PipelineCosts costs;
  auto files = harness::WritePipelineData(data.str(), costs);
  ASSERT_TRUE(files.ok());
  auto server = harness::ProfilerServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok()) << server.status().message();
  harness::RunOptions run_options;
  run_options.steps = 150;  // >= 0.3 s at 2 ms of model compute per step
  run_options.warmup_steps = 0;
  run_options.self_trace = false;
  StatusOr<harness::VariantRun> run = Internal("not run");
  std::thread pipeline([&] {
    run = harness::RunPipelineVariant(*harness::FindPipelineVariant("prefetch"), costs, *files, run_options);
  });
  std::this_thread::sleep_for(50ms);
  auto result = CaptureProfile(Options(logdir.str(), {"127.0.0.1:" + std::to_string((*server)->port())}, 300));
  pipeline.join();
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_FALSE(run->traced);
  EXPECT_TRUE(run->xplane_path.empty());
  ASSERT_TRUE(result.ok()) << result.status().message();
  tensorflow::profiler::XSpace space = ReadXSpace(result->hosts[0].path);
  EXPECT_GE(CountEventsNamed(space, "train"), 1);
  EXPECT_GE(CountEventsNamed(space, "Iterator::Root"), 1);
}

TEST(Capture, UnreachableAddressIsAClearErrorAndLeavesNothing) {
  TempDir logdir("unreachable");
  const std::string address = "127.0.0.1:" + std::to_string(UnusedPort());
  CaptureOptions o = Options(logdir.str(), {address}, 200);
  o.num_tracing_attempts = 2;
  auto result = CaptureProfile(o);
  ASSERT_FALSE(result.ok());
  const std::string& m = result.status().message();
  EXPECT_NE(m.find("after 2 attempt(s)"), std::string::npos) << m;
  EXPECT_NE(m.find(address + ": unreachable"), std::string::npos) << m;
  EXPECT_TRUE(RunsUnder(logdir.path()).empty());
}

TEST(Capture, ZeroDurationIsRefusedBeforeAnythingIsWritten) {
  TempDir logdir("zero");
  auto result = CaptureProfile(Options(logdir.str(), {"127.0.0.1:1"}, 0));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(), "duration_ms must be greater than zero.");
  EXPECT_FALSE(fs::exists(logdir.path() / "plugins"));
}

TEST(Capture, EmptyTraceIsRetriedThenReported) {
  TempDir logdir("empty");
  ScriptedServer server(ScriptedService::Mode::kEmptyTrace);
  CaptureOptions o = Options(logdir.str(), {server.address()}, 50);
  o.num_tracing_attempts = 3;  // num_retry 2
  o.host_tracer_level = 3;
  o.device_tracer_level = 0;
  o.python_tracer_level = 1;
  o.delay_ms = 20;
  auto result = CaptureProfile(o);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(server.service.calls.load(), 3);
  EXPECT_NE(result.status().message().find(server.address() + ": empty trace"), std::string::npos)
      << result.status().message();
  EXPECT_TRUE(RunsUnder(logdir.path()).empty());
  // The request carries what TSL's client sends.
  const tensorflow::ProfileRequest& r = server.service.last_request;
  EXPECT_EQ(r.opts().duration_ms(), 50u);
  EXPECT_EQ(r.duration_ms(), 50u);
  EXPECT_EQ(r.opts().host_tracer_level(), 3u);
  EXPECT_EQ(r.opts().device_tracer_level(), 0u);
  EXPECT_EQ(r.opts().python_tracer_level(), 1u);
  EXPECT_EQ(r.opts().version(), 1u);
  EXPECT_TRUE(r.opts().include_dataset_ops());
  EXPECT_TRUE(r.emit_xspace());
  EXPECT_EQ(r.host_name(), server.address());
  EXPECT_EQ(r.repository_root(), (logdir.path() / "plugins" / "profile").string());
  EXPECT_FALSE(r.session_id().empty());
  const auto now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_GT(r.opts().start_timestamp_ns(), static_cast<uint64_t>(now_ns - 10'000'000'000));
}

TEST(Capture, HarnessWithHostTracingOffAnswersAnEmptyTrace) {
  TempDir logdir("level0");
  auto server = harness::ProfilerServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok());
  TracedJob job;
  CaptureOptions o = Options(logdir.str(), {"127.0.0.1:" + std::to_string((*server)->port())}, 50);
  o.host_tracer_level = 0;
  auto result = CaptureProfile(o);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("empty trace"), std::string::npos) << result.status().message();
}

TEST(Capture, SilentServerTimesOut) {
  TempDir logdir("timeout");
  ScriptedServer server(ScriptedService::Mode::kNeverAnswers);
  CaptureOptions o = Options(logdir.str(), {server.address()}, 50);
  o.min_grace_ms = 300;
  auto start = std::chrono::steady_clock::now();
  auto result = CaptureProfile(o);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find(server.address() + ": timed out: no answer within 300 ms"),
            std::string::npos)
      << result.status().message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);
}

TEST(Capture, EveryCaptureIsANewRunAndNothingIsOverwritten) {
  TempDir logdir("fresh");
  ScriptedServer server(ScriptedService::Mode::kEmitsXSpace);
  auto first = CaptureProfile(Options(logdir.str(), {server.address()}, 10));
  auto second = CaptureProfile(Options(logdir.str(), {server.address()}, 10));
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(first->run, second->run);
  EXPECT_EQ(RunsUnder(logdir.path()).size(), 2u);
  EXPECT_EQ(CountEventsNamed(ReadXSpace(first->hosts[0].path), "scripted"), 1);
  EXPECT_EQ(CountEventsNamed(ReadXSpace(second->hosts[0].path), "scripted"), 1);
}

TEST(Capture, OlderServersAnswersAreSavedToo) {
  for (auto mode : {ScriptedService::Mode::kToolData, ScriptedService::Mode::kSavesItself}) {
    TempDir logdir("older");
    ScriptedServer server(mode);
    auto result = CaptureProfile(Options(logdir.str(), {server.address()}, 10));
    ASSERT_TRUE(result.ok()) << result.status().message();
    const fs::path expected = logdir.path() / "plugins" / "profile" / result->run / capture::XPlaneFileName(server.address());
    EXPECT_EQ(result->hosts[0].path, expected.string());
    EXPECT_EQ(CountEventsNamed(ReadXSpace(expected), "scripted"), 1);
  }
}

TEST(Capture, OneUnreachableWorkerOfTwoLeavesTheOtherCaptured) {
  TempDir logdir("partial");
  ScriptedServer server(ScriptedService::Mode::kEmitsXSpace);
  const std::string dead = "127.0.0.1:" + std::to_string(UnusedPort());
  auto result = CaptureProfile(Options(logdir.str(), {server.address(), dead}, 10));
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->hosts.size(), 2u);
  EXPECT_FALSE(result->hosts[0].path.empty());
  EXPECT_TRUE(result->hosts[1].path.empty());
  EXPECT_EQ(result->hosts[1].error.rfind("unreachable", 0), 0u) << result->hosts[1].error;
}

TEST(Capture, ServiceAddressLists) {
  auto two = capture::ParseServiceAddresses("grpc://10.0.0.1:8466, worker-2:6009,10.0.0.1:8466");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two, (std::vector<std::string>{"10.0.0.1:8466", "worker-2:6009"}));
  EXPECT_EQ(capture::ParseServiceAddresses("bad").status().message(), "Could not interpret \"bad\" as a host-port pair.");
  EXPECT_FALSE(capture::ParseServiceAddresses("h:99999").ok());
  EXPECT_FALSE(capture::ParseServiceAddresses("h:").ok());
  EXPECT_EQ(capture::ParseServiceAddresses(" , ").status().message(), "No service address provided.");
  EXPECT_EQ(capture::XPlaneFileName("10.0.0.1:8466"), "10.0.0.1_8466.xplane.pb");
}

// --- the capture_profile route -------------------------------------------------

HttpResponse Get(ProfileService& service, const std::string& target) {
  HttpRequest r;
  r.target = target;
  return service.Handle(r);
}

// A capture as the UI sends it: POST, from the server's own origin, with the token /config gives.
HttpResponse Capture(ProfileService& service, const std::string& target) {
  HttpRequest r;
  r.method = "POST";
  r.target = target;
  r.headers["host"] = "127.0.0.1:6006";
  r.headers["origin"] = "http://127.0.0.1:6006";
  r.headers["sec-fetch-site"] = "same-origin";
  r.headers["x-tbprof-token"] = std::string(json::parse(Get(service, "/config").Body()).at("captureToken").as_string());
  return service.Handle(r);
}

TEST(CaptureRoute, CapturesALiveJobIntoARunEveryToolOpens) {
  TempDir logdir("route");
  // The route itself must refresh the run list.
  auto service = ServiceOver(logdir, [](ProfileServiceOptions& o) { o.runs_ttl = std::chrono::hours(1); });
  ASSERT_TRUE(service.ok());
  EXPECT_EQ(Get(**service, "/runs").Body(), "[]");
  EXPECT_EQ(json::parse(Get(**service, "/config").Body()).at("hideCaptureProfileButton"), false);

  auto server = harness::ProfilerServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok());
  TracedJob job;
  const std::string port = std::to_string((*server)->port());
  const std::string target = "/data/plugin/profile/capture_profile?service_addr=grpc://127.0.0.1:" + port +
                             "&is_tpu_name=false&duration=300&num_retry=1&worker_list=&host_tracer_level=2"
                             "&device_tracer_level=1&python_tracer_level=0&delay=0";
  HttpRequest request;
  request.method = "POST";
  request.target = target;
  request.headers["x-tbprof-token"] = (*service)->request_token();
  // Not answered on the network thread: handed to a capture thread.
  auto begun = (*service)->Begin(request);
  ASSERT_TRUE(std::holds_alternative<ProfileService::Deferred>(begun));
  EXPECT_EQ(std::get<ProfileService::Deferred>(begun).lane, WorkLane::kCapture);
  HttpResponse r = Capture(**service, target);
  EXPECT_EQ(r.status, 200) << r.Body();
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(json::parse(r.Body()), json::value(json::object{{"result", "Capture profile successfully. Please refresh."}}));

  auto runs = RunsUnder(logdir.path());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(json::parse(Get(**service, "/runs").Body()), json::value(json::array{json::string(runs[0])}));
  const std::string host = "127.0.0.1_" + port;
  EXPECT_EQ(json::parse(Get(**service, "/hosts?run=" + runs[0] + "&tag=trace_viewer").Body()).as_array().size(), 1u);
  EXPECT_GE(CountEventsNamed(ReadXSpace(logdir.path() / "plugins/profile" / runs[0] / (host + ".xplane.pb")),
                             "job_step"),
            1);
  for (const char* tool : {"trace_viewer", "overview_page", "framework_op_stats", "input_pipeline_analyzer"}) {
    HttpResponse data = Get(**service, "/data?run=" + runs[0] + "&tag=" + tool + "&host=" + host);
    EXPECT_EQ(data.status, 200) << tool << ": " << data.Body().substr(0, 200);
  }

  // Failures answer 500 {"error": ...}; nothing is added to the logdir.
  HttpResponse failed = Capture(**service, "/capture_profile?service_addr=127.0.0.1:" + std::to_string(UnusedPort()) +
                                           "&duration=100&num_retry=0");
  EXPECT_EQ(failed.status, 500);
  json::value err = json::parse(failed.Body());
  EXPECT_NE(std::string(err.at("error").as_string()).find("unreachable"), std::string::npos) << failed.Body();
  HttpResponse zero = Capture(**service, "/capture_profile?service_addr=127.0.0.1:1&duration=0");
  EXPECT_EQ(zero.status, 500);
  EXPECT_EQ(json::parse(zero.Body()), json::value(json::object{{"error", "duration_ms must be greater than zero."}}));
  HttpResponse tpu = Capture(**service, "/capture_profile?service_addr=my-tpu&is_tpu_name=true");
  EXPECT_EQ(json::parse(tpu.Body()),
            json::value(json::object{{"error", "TensorFlow is not installed, but is required to use TPU names."}}));
  EXPECT_EQ(RunsUnder(logdir.path()).size(), 1u);
}

TEST(CaptureRoute, NoCaptureTurnsItOff) {
  TempDir logdir("nocapture");
  auto service = ServiceOver(logdir, [](ProfileServiceOptions& o) { o.allow_capture = false; });
  ASSERT_TRUE(service.ok());
  EXPECT_EQ(json::parse(Get(**service, "/config").Body()).at("hideCaptureProfileButton"), true);
  EXPECT_FALSE(json::parse(Get(**service, "/config").Body()).as_object().contains("captureToken"));
  HttpRequest post;
  post.method = "POST";
  post.target = "/capture_profile?service_addr=127.0.0.1:1&duration=100";
  post.headers["x-tbprof-token"] = (*service)->request_token();
  HttpResponse r = (*service)->Handle(post);
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.Body().find("turned off"), std::string::npos);
  EXPECT_FALSE(fs::exists(logdir.path() / "plugins"));
}

// A page of another site can make a browser send GET (an image), HEAD, or a
// simple POST (a form, a no-cors fetch) with no custom header; none of them,
// nor a request a browser marks as another site's or origin's, may capture.
TEST(CaptureRoute, OnlyThisOriginsPostWithTheTokenCaptures) {
  TempDir logdir("csrf");
  auto service = ServiceOver(logdir);
  ASSERT_TRUE(service.ok());
  auto server = harness::ProfilerServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok());
  TracedJob job;
  const std::string target =
      "/data/plugin/profile/capture_profile?service_addr=127.0.0.1:" + std::to_string((*server)->port()) +
      "&duration=200&num_retry=0";
  const std::string token = (*service)->request_token();
  ASSERT_EQ(token.size(), 32u);
  EXPECT_EQ(json::parse(Get(**service, "/config").Body()).at("captureToken"), json::value(token));
  struct Case {
    const char* why;
    std::string method;
    std::map<std::string, std::string> headers;
    int status;
  };
  const std::map<std::string, std::string> own = {{"host", "127.0.0.1:6006"}, {"x-tbprof-token", token}};
  auto with = [&](std::map<std::string, std::string> extra) {
    std::map<std::string, std::string> h = own;
    for (auto& [k, v] : extra) h[k] = v;
    return h;
  };
  const Case cases[] = {
      {"GET, as an <img> sends it", "GET", {{"host", "127.0.0.1:6006"}}, 405},
      {"HEAD", "HEAD", {{"host", "127.0.0.1:6006"}}, 405},
      {"GET even with the token", "GET", own, 405},
      {"POST without the token (a form)", "POST", {{"host", "127.0.0.1:6006"}}, 403},
      {"POST with a wrong token", "POST", with({{"x-tbprof-token", token.substr(1) + "0"}}), 403},
      {"another site", "POST", with({{"sec-fetch-site", "cross-site"}}), 403},
      {"another port of localhost is the same site, not the same origin", "POST",
       with({{"sec-fetch-site", "same-site"}}), 403},
      {"another origin", "POST", with({{"origin", "http://127.0.0.1:8000"}}), 403},
      {"an opaque origin", "POST", with({{"origin", "null"}}), 403},
  };
  for (const Case& c : cases) {
    HttpRequest r;
    r.method = c.method;
    r.target = target;
    r.headers = c.headers;
    HttpResponse answer = (*service)->Handle(r);
    EXPECT_EQ(answer.status, c.status) << c.why << ": " << answer.Body();
    if (c.method != "HEAD") {
      EXPECT_TRUE(json::parse(answer.Body()).as_object().contains("error")) << c.why;
    }
  }
  EXPECT_TRUE(RunsUnder(logdir.path()).empty());
  // The UI's own request: POST, its origin, the token.
  HttpResponse ok = Capture(**service, target);
  EXPECT_EQ(ok.status, 200) << ok.Body();
  EXPECT_EQ(RunsUnder(logdir.path()).size(), 1u);
}

TEST(CaptureRoute, DurationDelayRetriesAndWorkersAreBounded) {
  TempDir logdir("bounds");
  auto service = ServiceOver(logdir);
  ASSERT_TRUE(service.ok());
  auto error_of = [&](const std::string& query) {
    HttpResponse r = Capture(**service, "/capture_profile?" + query);
    EXPECT_EQ(r.status, 500) << query;
    return std::string(json::parse(r.Body()).at("error").as_string());
  };
  EXPECT_EQ(error_of("service_addr=127.0.0.1:1&duration=300001"), "duration must be at most 300000 ms");
  EXPECT_EQ(error_of("service_addr=127.0.0.1:1&delay=60001"), "delay must be 0..60000 ms");
  EXPECT_EQ(error_of("service_addr=127.0.0.1:1&num_retry=11"),
            "num_retry must be 0..10 and the tracer levels must not be negative");
  std::string workers;
  for (int port = 1; port <= 65; ++port) workers += (port > 1 ? "," : "") + std::string("127.0.0.1:") + std::to_string(port);
  EXPECT_EQ(error_of("service_addr=127.0.0.1:1&worker_list=" + workers),
            "at most 64 workers can be captured at once (65 given)");
  EXPECT_FALSE(fs::exists(logdir.path() / "plugins"));
}

TEST(CaptureRoute, ErrorsQuotingInvalidUtf8AreValidJson) {
  TempDir logdir("utf8");
  auto service = ServiceOver(logdir);
  ASSERT_TRUE(service.ok());
  for (const char* query : {"service_addr=%FF%FEhost", "service_addr=127.0.0.1:1&duration=%C3%28"}) {
    HttpResponse r = Capture(**service, std::string("/capture_profile?") + query);
    EXPECT_EQ(r.status, 500);
    boost::system::error_code ec;
    json::value v = json::parse(r.Body(), ec);  // Boost.JSON refuses invalid UTF-8
    ASSERT_FALSE(ec) << query << ": " << ec.message();
    EXPECT_NE(std::string(v.at("error").as_string()).find("\xEF\xBF\xBD"), std::string::npos) << r.Body();
  }
}

// The run directory is made under descriptors opened without following
// links: a plugins/ or plugins/profile that is a symlink out of the logdir
// is refused, and nothing is written where it points.
TEST(CaptureRoute, ASymlinkedRunParentIsNotWrittenThrough) {
  auto server = harness::ProfilerServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok());
  TracedJob job;
  for (const char* link : {"plugins", "plugins/profile"}) {
    TempDir logdir(std::string("symlink-") + (std::string(link) == "plugins" ? "a" : "b"));
    TempDir outside(std::string("outside-") + (std::string(link) == "plugins" ? "a" : "b"));
    fs::create_directories((logdir.path() / link).parent_path());
    fs::create_directory_symlink(outside.path(), logdir.path() / link);
    CaptureOptions options;
    options.service_addresses = {"127.0.0.1:" + std::to_string((*server)->port())};
    options.logdir = logdir.str();
    options.duration_ms = 200;
    auto captured = CaptureProfile(options);
    ASSERT_FALSE(captured.ok()) << link;
    EXPECT_NE(captured.status().message().find("is a symlink"), std::string::npos) << captured.status().message();
    EXPECT_TRUE(fs::is_empty(outside.path())) << link << " was written through";
  }
}

// --- the executables: two harness jobs captured by `tbprof capture` ------------

struct Child {
  pid_t pid = -1;
  FILE* out = nullptr;
};

Child Spawn(const std::vector<std::string>& args) {
  int fds[2];
  Child c;
  if (::pipe(fds) != 0) return c;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  std::string binary = TBPROF_BINARY;
  argv.push_back(binary.data());
  std::vector<std::string> copy = args;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (posix_spawn(&c.pid, binary.c_str(), &actions, nullptr, argv.data(), environ) != 0) c.pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  c.out = ::fdopen(fds[0], "r");
  return c;
}

// The port a `--serve_profiler 0` harness printed on its first line.
int ServedPort(Child& c) {
  char line[512] = {};
  if (!c.out || !std::fgets(line, sizeof line, c.out)) return 0;
  std::cmatch m;
  if (!std::regex_search(line, m, std::regex(R"(ProfilerService at 127\.0\.0\.1:(\d+))"))) return 0;
  return std::stoi(m[1].str());
}

int Finish(Child& c) {
  if (c.out) {
    char buf[4096];
    while (std::fread(buf, 1, sizeof buf, c.out) > 0) {
    }
    std::fclose(c.out);
  }
  int status = 0;
  if (c.pid > 0 && ::waitpid(c.pid, &status, 0) == c.pid && WIFEXITED(status)) return WEXITSTATUS(status);
  return -1;
}

TEST(CaptureCli, TwoHarnessWorkersInOneRun) {
  TempDir logdir("cli");
  const std::vector<std::string> job = {"harness", "pipeline", "--variant", "prefetch", "--steps", "1000000",
                                        "--warmup", "0", "--serve_profiler", "0"};
  Child a = Spawn(job), b = Spawn(job);
  int port_a = ServedPort(a), port_b = ServedPort(b);
  if (port_a == 0 || port_b == 0) {
    if (a.pid > 0) ::kill(a.pid, SIGTERM);
    if (b.pid > 0) ::kill(b.pid, SIGTERM);
  }
  ASSERT_NE(port_a, 0);
  ASSERT_NE(port_b, 0);
  const std::string a_addr = "127.0.0.1:" + std::to_string(port_a), b_addr = "127.0.0.1:" + std::to_string(port_b);
  Child capture = Spawn({"capture", "--service_addr", a_addr + "," + b_addr, "--logdir", logdir.str(),
                         "--duration_ms", "500", "--num_retry", "2"});
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, capture.out)) > 0) out.append(buf, n);
  std::fclose(capture.out);
  capture.out = nullptr;
  EXPECT_EQ(Finish(capture), 0) << out;
  // A served job ends cleanly on SIGTERM (after its current step).
  ::kill(a.pid, SIGTERM);
  ::kill(b.pid, SIGTERM);
  EXPECT_EQ(Finish(a), 0);
  EXPECT_EQ(Finish(b), 0);

  auto runs = RunsUnder(logdir.path());
  ASSERT_EQ(runs.size(), 1u) << out;
  EXPECT_NE(out.find("run " + runs[0]), std::string::npos) << out;
  for (const std::string& addr : {a_addr, b_addr}) {
    const fs::path file = logdir.path() / "plugins" / "profile" / runs[0] / capture::XPlaneFileName(addr);
    ASSERT_TRUE(fs::exists(file)) << file;
    EXPECT_GE(CountEventsNamed(ReadXSpace(file), "train"), 1) << file;
  }
}

}  // namespace
}  // namespace tbprof
