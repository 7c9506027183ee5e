// The server against one hostile connection and against work that holds a
// thread long: chunked framing that never ends (raw sockets, so the bytes are
// exactly what a hostile client sends), and a capture that must not take the
// conversion worker.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>

#include "harness/profiler_server.h"
#include "plugin/http_server.h"
#include "plugin/routes.h"
#include "tests/plugin/plugin_test_util.h"

namespace tbprof {
namespace {

using namespace testing_plugin;

constexpr char kChunkedHead[] = "POST /runs HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n";

// Sends `framing` (which never ends) after a chunked request's header and
// returns the answer; without a cap the server would read it until the
// client gives up, holding all of it.
RawResponse SendEndlessFraming(int port, const std::string& framing) {
  RawClient c(port);
  EXPECT_TRUE(c.connected());
  c.SendRaw(kChunkedHead + framing);
  auto r = c.Read();
  return r.has_value() ? *r : RawResponse{};
}

TEST(PluginServerSecurity, ChunkedFramingIsCapped) {
  ScratchDir t;
  WriteFile(t.path() / "plugins/profile/r/h.pod_viewer.json", "{}");
  InProcessServer server(t.path(), HttpServerOptions{});
  const size_t kHostile = 256 * 1024;  // eight times the default read buffer's cap

  RawResponse extension = SendEndlessFraming(server.port(), "1;ext=" + std::string(kHostile, 'a'));
  EXPECT_EQ(extension.status, 400);
  EXPECT_NE(extension.body.find("chunked framing"), std::string::npos) << extension.body;
  EXPECT_EQ(SendEndlessFraming(server.port(), std::string(kHostile, '0')).status, 400);  // leading zeros
  std::string trailers = "0\r\n";
  for (int i = 0; trailers.size() < kHostile; ++i) trailers += "X-Trailer-" + std::to_string(i) + ": value\r\n";
  EXPECT_EQ(SendEndlessFraming(server.port(), trailers).status, 400);

  // Well-formed chunked requests, extensions and trailers included, are still read.
  RawClient ok(server.port());
  ok.SendRaw(std::string(kChunkedHead) + "5;name=value\r\nhello\r\n0\r\nX-Done: yes\r\n\r\n");
  auto answer = ok.Read();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(answer->body, "[\"r\"]");
}

// A capture holds its thread for the whole trace: it runs on a capture thread,
// so the only conversion worker stays free for /data meanwhile.
TEST(PluginServerSecurity, ACaptureDoesNotTakeTheConversionWorker) {
  ScratchDir t;
  WriteSyntheticXPlane(t.path() / "plugins/profile/r/h.xplane.pb", 7);
  InProcessServer server(t.path(), OneWorker());
  auto job = harness::ProfilerServer::Start("127.0.0.1:0");
  ASSERT_TRUE(job.ok());
  const std::string token = server.service().request_token();
  std::thread capture([&] {
    RawClient c(server.port());
    c.SendRaw("POST /capture_profile?service_addr=127.0.0.1:" + std::to_string((*job)->port()) +
              "&duration=3000&num_retry=0 HTTP/1.1\r\nHost: localhost\r\nx-tbprof-token: " + token +
              "\r\nContent-Length: 0\r\n\r\n");
    auto r = c.Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(r->status == 200 || r->status == 500) << r->status << " " << r->body;  // empty trace: 500
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the capture is tracing
  const auto start = std::chrono::steady_clock::now();
  RawClient c(server.port());
  auto data = c.Get("/data?run=r&tag=overview_page&host=h");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  capture.join();
  ASSERT_TRUE(data.has_value());
  EXPECT_EQ(data->status, 200) << data->body.substr(0, 200);
  EXPECT_LT(seconds, 2.0) << "/data waited for the capture";
}

// Out of file descriptors, a listing is incomplete: the routes that list say
// 503 with Retry-After instead of an empty list (which the UI takes for "no
// profiles") or 404.
TEST(PluginServerSecurity, OutOfDescriptorsListingsAnswer503) {
  ScratchDir t;
  WriteSyntheticXPlane(t.path() / "plugins/profile/r/h.xplane.pb", 7);
  ProfileServiceOptions so;
  so.logdir = t.path().string();
  so.runs_ttl = std::chrono::milliseconds(0);  // every request lists again
  auto service = ProfileService::Create(so);
  ASSERT_TRUE(service.ok());
  auto get = [&](const std::string& target) {
    HttpRequest r;
    r.target = target;
    return (*service)->Handle(r);
  };
  const char* targets[] = {"/runs", "/hosts?run=r&tag=overview_page", "/run_tools?run=r",
                           "/data?run=r&tag=overview_page&host=h"};
  for (const char* target : targets) ASSERT_EQ(get(target).status, 200) << target;

  rlimit old_limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old_limit), 0);
  rlimit low = old_limit;
  low.rlim_cur = 128;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<int> held;
  for (int fd; (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) held.push_back(fd);
  ASSERT_EQ(errno, EMFILE);
  std::vector<HttpResponse> answers;
  for (const char* target : targets) answers.push_back(get(target));
  for (int fd : held) close(fd);
  setrlimit(RLIMIT_NOFILE, &old_limit);
  for (size_t i = 0; i < answers.size(); ++i) {
    EXPECT_EQ(answers[i].status, 503) << targets[i] << ": " << answers[i].Body();
    bool retry_after = false;
    for (const auto& [name, value] : answers[i].headers) retry_after |= name == "Retry-After";
    EXPECT_TRUE(retry_after) << targets[i];
  }
  for (const char* target : targets) EXPECT_EQ(get(target).status, 200) << target << " after descriptors came back";
}

// A damaged profile fails every request for it; the log names the failure
// once per file version, not once per request (or per tool).
TEST(PluginServerSecurity, AFailedFileIsLoggedOncePerVersion) {
  ScratchDir t;
  const fs::path corrupt = fs::path(TBPROF_SOURCE_DIR) / "tests/realdata/xplane/corrupt";
  ASSERT_TRUE(fs::is_directory(corrupt));
  fs::create_directories(t.path() / "plugins/profile/r");
  fs::copy_file(fs::directory_iterator(corrupt)->path(), t.path() / "plugins/profile/r/h.xplane.pb");
  const fs::path log = t.path() / "serve.log";
  testing_plugin::ServeProcess server({"--logdir", t.path().string(), "--warm", "0"}, log.string());
  ASSERT_GT(server.port(), 0);
  int server_errors = 0;
  for (int i = 0; i < 10; ++i) {
    for (const char* tool : {"overview_page", "framework_op_stats", "trace_viewer"}) {
      RawClient c(server.port());
      auto r = c.Get(std::string("/data?run=r&host=h&tag=") + tool);
      ASSERT_TRUE(r.has_value());
      // A damaged file is the user's to re-capture (422); a server error would be 5xx.
      if (r->status == 422 || (r->status >= 500 && r->status != 503)) ++server_errors;
    }
  }
  const std::string text = testing_plugin::ReadFile(log);
  int logged = 0;
  for (size_t at = text.find("/data?run=r"); at != std::string::npos; at = text.find("/data?run=r", at + 1)) ++logged;
  EXPECT_GT(server_errors, 1) << "the damaged file should fail its requests";
  EXPECT_EQ(logged, server_errors > 0 ? 1 : 0) << text.substr(0, 2000);
}

}  // namespace
}  // namespace tbprof
