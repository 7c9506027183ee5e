// The server on the wire: a real TCP server on an ephemeral port, spoken to
// by a hand-written HTTP/1.1 client (tests/plugin/plugin_test_util.h).
#include "plugin/http_server.h"

#include <signal.h>
#include <sys/wait.h>

#include <cstdio>
#include <thread>

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "tests/plugin/plugin_test_util.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

using namespace testing_plugin;

class PluginHttp : public ::testing::Test {
 protected:
  void SetUp() override {
    logdir_ = std::make_unique<TempLogdir>();
    StartServer();
  }
  // A service and server over logdir_ (the UI bundle in base()/web is read now).
  void StartServer() {
    ProfileServiceOptions so;
    so.logdir = logdir_->logdir();
    so.web_dir = logdir_->base() / "web";
    auto s = ProfileService::Create(so);
    ASSERT_TRUE(s.ok()) << s.status().message();
    service_ = std::move(*s);
    HttpServerOptions ho;
    ho.port = 0;
    ho.io_threads = 2;
    ho.log_level = LogLevel::kOff;
    ho.read_timeout_s = 2;
    server_ = std::make_unique<HttpServer>(ho, service_.get());
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_NE(server_->port(), 0);
    thread_ = std::thread([this] { server_->Run(false); });
  }
  void TearDown() override {
    if (server_) server_->Stop();
    if (thread_.joinable()) thread_.join();
  }
  void RestartServer() {
    TearDown();
    server_.reset();
    service_.reset();
    StartServer();
  }
  RawResponse Get(const std::string& target, const std::string& headers = "", const std::string& method = "GET") {
    RawClient c(server_->port());
    EXPECT_TRUE(c.connected());
    auto r = c.Get(target, headers, method);
    EXPECT_TRUE(r.has_value()) << target;
    return r.value_or(RawResponse{});
  }
  // The server still answers after whatever the test did.
  void ExpectAlive() {
    RawResponse r = Get("/data/plugin/profile/runs");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body.front(), '[');
  }

  // Every path under `dir` with its size and mtime.
  static std::map<std::string, std::string> Snapshot(const std::filesystem::path& dir) {
    std::map<std::string, std::string> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      std::error_code ec;
      auto size = e.is_regular_file(ec) ? e.file_size(ec) : 0;
      files[e.path().string()] =
          std::to_string(size) + "@" + std::to_string(e.last_write_time(ec).time_since_epoch().count());
    }
    return files;
  }

  std::unique_ptr<TempLogdir> logdir_;
  std::unique_ptr<ProfileService> service_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  std::map<std::string, std::string> before_;
};

TEST_F(PluginHttp, EveryRouteAnswersWithItsContentType) {
  struct Case {
    std::string target;
    int status;
    std::string content_type;
  };
  before_ = Snapshot(logdir_->base());
  const std::vector<Case> cases = {
      {"/data/plugin/profile/runs", 200, "application/json"},
      {"/runs", 200, "application/json"},
      {"/data/plugin/profile/run_tools?run=tf22/Cloud-TPU", 200, "application/json"},
      {"/run_tools?run=tf22/Cloud-TPU", 200, "application/json"},
      {"/data/plugin/profile/hosts?run=tf22/Cloud-TPU&tag=overview_page", 200, "application/json"},
      {"/hosts?run=nested/deeper/train/run_multi&tag=overview_page", 200, "application/json"},
      {"/data/plugin/profile/data?run=tf22/Cloud-TPU&tag=overview_page&host=10.240.1.50", 200, "application/json"},
      {"/data?run=demo/jsononly&tag=op_profile", 200, "application/json"},
      {"/data/plugin/profile/data_csv?run=tf22/Cloud-TPU&tag=bogus", 404, "text/plain"},
      {"/data/plugin/profile/module_list?run=tf22/Cloud-TPU", 200, "text/plain"},
      {"/data/plugin/profile/config", 200, "application/json"},
      {"/config", 200, "application/json"},
      {"/data/plugin/profile/version", 200, "text/plain"},
      {"/version", 200, "text/plain"},
      // A GET cannot capture (a page of another site could send it): POST only.
      {"/data/plugin/profile/capture_profile?service_addr=x", 405, "application/json"},
      {"/capture_profile", 405, "application/json"},
      {"/data/plugins_listing", 200, "application/json"},
      {"/data/runs", 200, "application/json"},
      {"/data/environment", 200, "application/json"},
      {"/data/logdir", 200, "application/json"},
      {"/data/notifications", 302, "text/plain"},
      {"/data/plugin_entry.html?name=profile", 200, "text/html; charset=utf-8"},
      {"/", 200, "text/html; charset=utf-8"},
      {"/data?run=nested/deeper/train/run_multi&tag=not_a_tool", 404, "text/plain"},
  };
  for (const Case& c : cases) {
    RawResponse r = Get(c.target);
    EXPECT_EQ(r.status, c.status) << c.target << ": " << r.body.substr(0, 200);
    EXPECT_EQ(r.Header("content-type"), c.content_type) << c.target;
    EXPECT_EQ(r.Header("x-content-type-options"), "nosniff") << c.target;
    EXPECT_NE(r.Header("content-security-policy").find("default-src 'self'"), std::string::npos) << c.target;
    EXPECT_EQ(r.Header("content-security-policy").find("*"), std::string::npos) << c.target;
    EXPECT_EQ(r.Header("content-length"), std::to_string(r.body.size())) << c.target;
  }
  RawResponse runs = Get("/runs");
  EXPECT_EQ(json::parse(runs.body).as_array().size(), 7u);
  EXPECT_EQ(Snapshot(logdir_->base()), before_) << "the server changed files under the logdir";
  EXPECT_EQ(Get("/data?run=nested/deeper/train/run_multi&tag=not_a_tool").body.rfind("No Data: tbprof has no tool \"not_a_tool\". Run \"nested/deeper/train/run_multi\" offers: ", 0), 0u);
}

TEST_F(PluginHttp, GzipOnlyWhenAccepted) {
  const std::string target = "/data?run=tf22/Cloud-TPU&tag=overview_page";
  const std::string file = ReadFile(logdir_->logdir() / "tf22/plugins/profile/Cloud-TPU/10.240.1.50.overview_page.json");
  RawResponse plain = Get(target);
  EXPECT_EQ(plain.Header("content-encoding"), "");
  EXPECT_EQ(plain.body, file);
  RawResponse gz = Get(target, "Accept-Encoding: gzip, deflate\r\n");
  EXPECT_EQ(gz.Header("content-encoding"), "gzip");
  EXPECT_EQ(gz.Header("vary"), "Accept-Encoding");
  EXPECT_LT(gz.body.size(), file.size());
  EXPECT_EQ(testing_plugin::Gunzip(gz.body), file);
  RawResponse refused = Get(target, "Accept-Encoding: gzip;q=0, identity\r\n");
  EXPECT_EQ(refused.Header("content-encoding"), "");
  EXPECT_EQ(refused.body, file);
  // A big listing that was not cached is compressed on the fly.
  RawResponse page = Get("/data/plugin/profile/data?run=demo/jsononly&tag=memory_viewer", "Accept-Encoding: gzip\r\n");
  EXPECT_EQ(page.Header("content-encoding"), "gzip");
  EXPECT_EQ(testing_plugin::Gunzip(page.body),
            ReadFile(logdir_->logdir() / "demo/plugins/profile/jsononly/profile_demo.memory_viewer.json"));
}

TEST_F(PluginHttp, TraceJsonGzIsSentPrecompressed) {
  RawResponse r = Get("/data/plugin/profile/data?run=2020_08_05_13_37_44&tag=trace_viewer", "Accept-Encoding: gzip\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("content-encoding"), "gzip");
  EXPECT_EQ(r.Header("content-type"), "application/json");
  const std::string file = ReadFile(logdir_->logdir() / "plugins/profile/2020_08_05_13_37_44/8c859046be41.ant.amazon.com.trace.json.gz");
  EXPECT_EQ(r.body, file);
  // A client that does not accept gzip gets it inflated.
  RawResponse plain = Get("/data/plugin/profile/data?run=2020_08_05_13_37_44&tag=trace_viewer");
  EXPECT_EQ(plain.status, 200);
  EXPECT_EQ(plain.Header("content-encoding"), "");
  EXPECT_EQ(plain.body, testing_plugin::Gunzip(file));
  EXPECT_EQ(plain.body.rfind("{\"displayTimeUnit\"", 0), 0u);
}

TEST_F(PluginHttp, StaticUiFilesWithGzip) {
  std::string js;
  for (int i = 0; i < 2000; ++i) js += "console.log('tbprof " + std::to_string(i) + "');\n";
  testing_plugin::WriteFile(logdir_->base() / "web/index.html", "<!DOCTYPE html><title>ui</title>");
  testing_plugin::WriteFile(logdir_->base() / "web/bundle.js", js);
  RestartServer();  // the UI bundle is read once, at start-up
  RawResponse r = Get("/data/plugin/profile/bundle.js", "Accept-Encoding: gzip\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("content-type"), "application/javascript");
  EXPECT_EQ(r.Header("content-encoding"), "gzip");
  EXPECT_EQ(testing_plugin::Gunzip(r.body), js);
  EXPECT_EQ(Get("/bundle.js").body, js);
  EXPECT_EQ(Get("/").body, "<!DOCTYPE html><title>ui</title>");
  EXPECT_EQ(Get("/data/plugin/profile/trace_viewer@").body, "<!DOCTYPE html><title>ui</title>");
}

TEST_F(PluginHttp, HeadHasHeadersOnly) {
  const std::string target = "/data?run=tf22/Cloud-TPU&tag=pod_viewer";
  RawResponse get = Get(target);
  ASSERT_EQ(get.status, 200);
  RawClient c(server_->port());
  auto head = c.Get(target, "", "HEAD");
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->Header("content-length"), std::to_string(get.body.size()));
  EXPECT_EQ(head->Header("content-type"), "application/json");
  // No body follows: the next response on the connection parses cleanly.
  auto next = c.Get("/version");
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->status, 200);
  EXPECT_EQ(next->body, kTbprofVersion);
}

TEST_F(PluginHttp, KeepAliveServesManyRequestsOnOneConnection) {
  RawClient c(server_->port());
  ASSERT_TRUE(c.connected());
  for (int i = 0; i < 20; ++i) {
    auto r = c.Get(i % 2 ? "/runs" : "/data?run=tf22/Cloud-TPU&tag=input_pipeline_analyzer");
    ASSERT_TRUE(r.has_value()) << i;
    EXPECT_EQ(r->status, 200);
    EXPECT_NE(r->Header("connection"), "close");
  }
  // Two pipelined requests in one write are answered in order.
  ASSERT_TRUE(c.SendRaw("GET /version HTTP/1.1\r\nHost: localhost\r\n\r\nGET /config HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  auto first = c.Read();
  auto second = c.Read();
  ASSERT_TRUE(first.has_value() && second.has_value());
  EXPECT_EQ(first->body, kTbprofVersion);
  EXPECT_EQ(second->Header("content-type"), "application/json");
  // "Connection: close" is honoured.
  auto last = c.Get("/version", "Connection: close\r\n");
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->Header("connection"), "close");
  EXPECT_TRUE(c.PeerClosed());
}

TEST_F(PluginHttp, BadRequestsGetErrorsAndTheServerStaysUp) {
  for (const std::string& t : PathEscapeTargets()) {
    RawResponse r = Get(t);
    EXPECT_EQ(r.status, 400) << t << ": " << r.body;
    EXPECT_EQ(r.Header("content-type"), "text/plain") << t;
    EXPECT_EQ(r.body.find("SECRET"), std::string::npos);
  }
  EXPECT_EQ(Get("/data?run=no_such_run&tag=overview_page").status, 404);
  EXPECT_EQ(Get("/run_tools?run=no_such_run").body, "[]");
  EXPECT_EQ(Get("/data?run=tf22/Cloud-TPU&tag=pod_viewer&resolution=-1e999&start_time_ms=nan&end_time_ms=%FF").status,
            200);
  EXPECT_EQ(Get("/runs", "", "DELETE").status, 405);
  ExpectAlive();
}

TEST_F(PluginHttp, MalformedAndOversizedRequests) {
  {
    RawClient c(server_->port());
    ASSERT_TRUE(c.SendRaw("THIS IS NOT HTTP\r\n\r\n"));
    auto r = c.Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 400);
    EXPECT_TRUE(c.PeerClosed());
  }
  {
    RawClient c(server_->port());
    std::string big(64 * 1024, 'a');
    ASSERT_TRUE(c.SendRaw("GET /runs HTTP/1.1\r\nHost: localhost\r\nX-Big: " + big + "\r\n\r\n"));
    auto r = c.Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 431);
  }
  {
    RawClient c(server_->port());
    ASSERT_TRUE(c.SendRaw("POST /runs HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10000000\r\n\r\n"));
    auto r = c.Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 413);
  }
  {
    // A client that stops mid-request is dropped after the read timeout, without an answer.
    RawClient c(server_->port());
    ASSERT_TRUE(c.SendRaw("GET /runs HTTP/1.1\r\nHost: localhost\r\n"));
    c.PeerClosed();
  }
  ExpectAlive();
}

TEST_F(PluginHttp, ConcurrentClientsGetTheSameAnswer) {
  const std::string expected = Get("/data?run=demo/jsononly&tag=overview_page").body;
  ASSERT_FALSE(expected.empty());
  std::vector<std::thread> threads;
  std::atomic<int> good{0};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      RawClient c(server_->port());
      for (int i = 0; i < 25; ++i) {
        auto r = c.Get("/data?run=demo/jsononly&tag=overview_page");
        if (r && r->status == 200 && r->body == expected) ++good;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), 150);
}

// The real executable: `tbprof serve --port 0` prints its URL, answers, and
// exits cleanly on SIGTERM.
TEST_F(PluginHttp, ServeCommandSubprocess) {
  ServeProcess server({"--log_level", "warn", "--logdir", logdir_->logdir().string()}, "/dev/null");
  ASSERT_GT(server.port(), 0);
  {
    RawClient c(server.port());
    auto r = c.Get("/data/plugin/profile/runs");
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(json::parse(r->body).as_array().size(), 7u);
  }
  EXPECT_EQ(server.Stop(), 0);  // exited, with status 0
}

TEST_F(PluginHttp, ServeCommandReportsAPortInUse) {
  std::string cmd = std::string(TBPROF_BINARY) + " serve --port " + std::to_string(server_->port()) +
                    " --logdir " + logdir_->logdir().string() + " 2>&1";
  auto [rc, out] = test_files::RunCommand(cmd);
  EXPECT_EQ(WEXITSTATUS(rc), 1) << out;
  EXPECT_NE(out.find(std::to_string(server_->port())), std::string::npos) << out;
  EXPECT_NE(out.find("in use"), std::string::npos) << out;
  ExpectAlive();
}

TEST(PluginServeCommand, MissingLogdirIsAnError) {
  std::string cmd = std::string(TBPROF_BINARY) + " serve --port 0 2>&1";
  auto [rc, out] = test_files::RunCommand(cmd);
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("--logdir"), std::string::npos) << out;
}

}  // namespace
}  // namespace tbprof
