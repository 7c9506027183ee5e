// Shared by the Plugin* suites: a temporary logdir built by the tests
// themselves (synthetic xplane files from synthetic/profile_generator.h,
// legacy tool protos serialized with the generated classes, legacy JSON and
// trace.json.gz written by hand), and a raw-socket HTTP/1.1 client
// (independent of the server's Beast code, so the wire format is checked by a
// second parser). Nothing here needs the real profiles.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "proto/input_pipeline.pb.h"
#include "proto/kernel_stats.pb.h"
#include "proto/overview_page.pb.h"
#include "proto/tf_stats.pb.h"
#include "bench/serve_child.h"
#include "plugin/http_server.h"
#include "plugin/routes.h"
#include "synthetic/profile_generator.h"
#include "tests/testing/test_files.h"

namespace tbprof::testing_plugin {

namespace fs = std::filesystem;
namespace json = boost::json;

inline std::string ReadFile(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void WriteFile(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary);
  f << bytes;
}

// A gzip member made with zlib directly (not with the server's compressor).
inline std::string Gzip(const std::string& in) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, in.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// A small synthetic host profile (one GPU, a few steps) written to `path`.
inline void WriteSyntheticXPlane(const fs::path& path, uint64_t seed, int64_t events = 3000) {
  test_files::WriteSyntheticFile(path, test_files::SynthShape(/*gpus=*/1, /*steps=*/4, events, seed));
}

template <typename Proto>
void WriteProto(const fs::path& path, const Proto& proto) {
  WriteFile(path, proto.SerializeAsString());
}

// <tmp>/logdir, laid out as (names chosen to exercise discovery):
//   plugins/profile/2020_08_05_13_37_44/   TF 2.3 CPU legacy run (host with dots, trace.json.gz, tool .pb files)
//   plugins/profile/empty_run/             no files
//   plugins/profile/noise                  a stray file, not a run
//   plugins/profile/evil_link -> <tmp>/outside   symlink leaving the logdir
//   tf22/plugins/profile/{Cloud-TPU,GPU-compute-bound,GPU-input-bound}/   TF 2.2 legacy runs
//   nested/deeper/train/plugins/profile/run_multi/{host1,host2.example.com}.xplane.pb
//   demo/plugins/profile/jsononly/profile_demo.*.json
// and <tmp>/outside/ with files that must never be served.
class TempLogdir {
 public:
  TempLogdir() {
    char tmpl[] = "/tmp/tbprof_plugin_XXXXXX";
    base_ = mkdtemp(tmpl);
    logdir_ = base_ / "logdir";
    using namespace tensorflow::profiler;
    OverviewPage overview;
    overview.mutable_run_environment()->set_host_count(1);
    overview.mutable_run_environment()->set_device_type("CPU");
    InputPipelineAnalysisResult input;
    TfStatsDatabase tf_stats;
    KernelStatsDb kernels;

    const fs::path tf23 = logdir_ / "plugins/profile/2020_08_05_13_37_44";
    const std::string tf23_host = "8c859046be41.ant.amazon.com";
    WriteProto(tf23 / (tf23_host + ".overview_page.pb"), overview);
    WriteProto(tf23 / (tf23_host + ".input_pipeline.pb"), input);
    WriteProto(tf23 / (tf23_host + ".tensorflow_stats.pb"), tf_stats);
    WriteFile(tf23 / (tf23_host + ".kernel_stats.pb"), "");
    WriteFile(tf23 / (tf23_host + ".trace.json.gz"), Gzip(TraceJson()));

    const fs::path tf22 = logdir_ / "tf22/plugins/profile";
    WriteFile(tf22 / "Cloud-TPU/10.240.1.50.overview_page.json", OverviewJson("Cloud-TPU"));
    WriteFile(tf22 / "Cloud-TPU/10.240.1.50.input_pipeline.json", InputPipelineJson());
    WriteFile(tf22 / "Cloud-TPU/10.240.1.50.pod_viewer.json", PodViewerJson());
    WriteProto(tf22 / "Cloud-TPU/10.240.1.50.tensorflow_stats.pb", tf_stats);
    for (const char* run : {"GPU-compute-bound", "GPU-input-bound"}) {
      WriteProto(tf22 / run / "localhost.overview_page.pb", overview);
      WriteProto(tf22 / run / "localhost.input_pipeline.pb", input);
    }
    WriteProto(tf22 / "GPU-input-bound/localhost.tensorflow_stats.pb", tf_stats);

    const fs::path multi = logdir_ / "nested/deeper/train/plugins/profile/run_multi";
    WriteSyntheticXPlane(multi / "host1.xplane.pb", 1);
    WriteSyntheticXPlane(multi / "host2.example.com.xplane.pb", 2);

    const fs::path demo = logdir_ / "demo/plugins/profile/jsononly";
    WriteFile(demo / "profile_demo.overview_page.json", OverviewJson("demo"));
    WriteFile(demo / "profile_demo.input_pipeline.json", InputPipelineJson());
    WriteFile(demo / "profile_demo.pod_viewer.json", PodViewerJson());
    WriteFile(demo / "profile_demo.op_profile.json", R"({"byCategory":{"name":"root","children":[]},"deviceType":"TPU"})");
    WriteFile(demo / "profile_demo.memory_viewer.json", MemoryViewerJson());

    fs::create_directories(logdir_ / "plugins/profile/empty_run");
    WriteFile(logdir_ / "plugins/profile/noise", "not a run");
    WriteFile(base_ / "outside/secret.overview_page.json", "[\"SECRET\"]");
    WriteSyntheticXPlane(base_ / "outside/leak.xplane.pb", 3);
    fs::create_directory_symlink(base_ / "outside", logdir_ / "plugins/profile/evil_link");
    // A file link inside a real run that points outside.
    fs::create_symlink(base_ / "outside/secret.overview_page.json",
                       logdir_ / "tf22/plugins/profile/GPU-compute-bound/leak.overview_page.json");
  }
  ~TempLogdir() {
    std::error_code ec;
    fs::remove_all(base_, ec);
  }
  const fs::path& logdir() const { return logdir_; }
  const fs::path& base() const { return base_; }

  // Hand-written legacy tool JSON, as the old profiler left it beside the
  // profile (shapes kept small; the server sends these bytes as they are).
  static std::string OverviewJson(const std::string& tag) {
    std::string rows;
    for (int i = 0; i < 60; ++i) rows += std::string(i ? "," : "") + R"({"c":[{"v":")" + std::to_string(i) + R"("}]})";
    return R"([{"cols":[{"id":"stepnum","label":"stepnum","type":"string"}],"rows":[)" + rows + R"(],"p":{"tag":")" +
           tag + R"("}}])";
  }
  static std::string InputPipelineJson() {
    return R"([{"cols":[{"id":"op","label":"Input Op","type":"string"}],"rows":[],"p":{"summary_conclusion":"x"}}])";
  }
  static std::string PodViewerJson() {
    std::string rows;
    for (int i = 0; i < 200; ++i) rows += std::string(i ? "," : "") + R"({"stepNum":)" + std::to_string(i) + "}";
    return R"({"podStats":{"stepBreakdownEvents":[)" + rows + R"(]},"diagnostics":{"errors":[]}})";
  }
  static std::string MemoryViewerJson() {
    std::string chunks;
    for (int i = 0; i < 100; ++i) chunks += std::string(i ? "," : "") + R"({"size":)" + std::to_string(i * 64) + "}";
    return R"({"moduleName":"jit_step","chunks":[)" + chunks + "]}";
  }
  static std::string TraceJson() {
    std::string events;
    for (int i = 0; i < 300; ++i) {
      events += std::string(i ? "," : "") + R"({"ph":"X","pid":1,"tid":1,"name":"op)" + std::to_string(i) +
                R"(","ts":)" + std::to_string(i * 10) + R"(,"dur":5})";
    }
    return R"({"displayTimeUnit":"ns","traceEvents":[)" + events + "]}";
  }

 private:
  fs::path base_, logdir_;
};

// Inflates a gzip member with zlib (independent of the server's compressor).
inline std::optional<std::string> Gunzip(const std::string& in) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return std::nullopt;
  std::string out;
  char buf[1 << 15];
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&zs);
      return std::nullopt;
    }
    out.append(buf, sizeof buf - zs.avail_out);
  }
  inflateEnd(&zs);
  return out;
}

struct RawResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// One TCP connection to 127.0.0.1:port speaking HTTP/1.1 by hand.
class RawClient {
 public:
  explicit RawClient(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{10, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~RawClient() {
    if (fd_ >= 0) close(fd_);
  }
  bool connected() const { return fd_ >= 0; }

  bool SendRaw(const std::string& bytes) {
    size_t off = 0;
    while (off < bytes.size()) {
      ssize_t n = send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }

  // Reads one response; `head` = the request was HEAD (no body follows).
  std::optional<RawResponse> Read(bool head = false) {
    size_t header_end;
    while ((header_end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return std::nullopt;
    }
    RawResponse r;
    std::istringstream hs(buf_.substr(0, header_end));
    std::string line;
    std::getline(hs, line);
    if (line.rfind("HTTP/1.", 0) != 0 || line.size() < 12) return std::nullopt;
    r.status = std::atoi(line.c_str() + 9);
    while (std::getline(hs, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      size_t v = line.find_first_not_of(' ', colon + 1);
      r.headers[name] = v == std::string::npos ? "" : line.substr(v);
    }
    buf_.erase(0, header_end + 4);
    if (head) return r;
    if (r.headers.count("content-length")) {
      size_t len = std::stoull(r.headers["content-length"]);
      while (buf_.size() < len) {
        if (!Fill()) return std::nullopt;
      }
      r.body = buf_.substr(0, len);
      buf_.erase(0, len);
    } else {
      while (Fill()) {
      }
      r.body = std::move(buf_);
      buf_.clear();
    }
    return r;
  }

  std::optional<RawResponse> Get(const std::string& target, const std::string& extra_headers = "",
                                 const std::string& method = "GET") {
    if (!SendRaw(method + " " + target + " HTTP/1.1\r\nHost: localhost\r\n" + extra_headers + "\r\n")) {
      return std::nullopt;
    }
    return Read(method == "HEAD");
  }

  // True when the server has closed the connection (read returns 0).
  bool PeerClosed() {
    char c;
    ssize_t n = recv(fd_, &c, 1, 0);
    return n == 0;
  }

 private:
  bool Fill() {
    char tmp[1 << 16];
    ssize_t n = recv(fd_, tmp, sizeof tmp, 0);
    if (n <= 0) return false;
    buf_.append(tmp, static_cast<size_t>(n));
    return true;
  }
  int fd_ = -1;
  std::string buf_;
};

// `tbprof serve --port 0 ARGS...` in a child process (optionally with a lower
// open-file limit), its stderr kept in a file; the port is read from the line
// it prints.
class ServeProcess {
 public:
  ServeProcess(const std::vector<std::string>& args, const std::string& stderr_path, rlim_t max_open_files = 0) {
    std::vector<std::string> argv = {TBPROF_BINARY, "serve", "--port", "0"};
    argv.insert(argv.end(), args.begin(), args.end());
    ServeChild child = StartServeChild(std::move(argv), [&] {
      int err = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (err >= 0) dup2(err, 2);
      if (max_open_files > 0) {
        rlimit lim{max_open_files, max_open_files};
        setrlimit(RLIMIT_NOFILE, &lim);
      }
    });
    pid_ = child.pid;
    out_ = child.out;
    port_ = child.port;
  }
  ~ServeProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_ != nullptr) fclose(out_);
  }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  // Peak resident memory (VmHWM) of the server so far, in bytes.
  uint64_t PeakRssBytes() const { return StatusField("VmHWM:") * 1024; }
  uint64_t RssBytes() const { return StatusField("VmRSS:") * 1024; }
  // User + system CPU time used so far, in seconds.
  double CpuSeconds() const {
    std::string stat = ReadFile("/proc/" + std::to_string(pid_) + "/stat");
    size_t close_paren = stat.rfind(')');
    if (close_paren == std::string::npos) return -1;
    std::istringstream ss(stat.substr(close_paren + 2));
    std::string field;
    double utime = 0, stime = 0;
    for (int i = 3; ss >> field; ++i) {  // fields counted from 1; state is field 3
      if (i == 14) utime = std::atof(field.c_str());
      if (i == 15) {
        stime = std::atof(field.c_str());
        break;
      }
    }
    return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  // Sends SIGTERM and returns the exit status (or -1).
  int Stop() {
    if (pid_ <= 0) return -1;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  uint64_t StatusField(const std::string& name) const {
    std::string status = ReadFile("/proc/" + std::to_string(pid_) + "/status");
    size_t at = status.find(name);
    return at == std::string::npos ? 0 : std::strtoull(status.c_str() + at + name.size(), nullptr, 10);
  }
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  int port_ = 0;
};

// A fresh folder under /tmp, removed with everything in it at scope exit.
class ScratchDir {
 public:
  ScratchDir() {
    char tmpl[] = "/tmp/tbprof_test_XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Requests that try to leave the logdir of TempLogdir (or to read its
// outside/ files through a link): each must be refused with 400.
inline const std::vector<std::string>& PathEscapeTargets() {
  static const std::vector<std::string> kTargets = {
      "/data?tag=overview_page&run=../logdir",
      "/data?tag=overview_page&run=..%2F..%2Fetc",
      "/data?tag=overview_page&run=%2Fetc%2Fpasswd",
      "/data?tag=overview_page&run=tf22/Cloud-TPU%00",
      "/data?tag=overview_page&run=evil_link",
      "/data?tag=..%2Foverview_page&run=tf22/Cloud-TPU",
      "/data?tag=overview_page&run=tf22/Cloud-TPU&host=..%2F..%2Fsecret",
      "/data?tag=overview_page&run=tf22/Cloud-TPU&host=a%00b",
      "/data?tag=trace_viewer&run=tf22/Cloud-TPU&hosts=a,..%2Fb",
      "/run_tools?run=../outside",
      "/run_tools?run=evil_link",
      "/hosts?run=/etc&tag=overview_page",
      "/hosts?run=tf22/Cloud-TPU&tag=..",
      "/module_list?run=..%2Foutside",
      "/runs?session_path=/etc",
      "/runs?session_path=..%2Foutside",
      "/runs?run_path=%2F",
      "/runs?session_path=plugins/profile/evil_link",
      "/data/plugin/profile%2Fruns",
      "/data/plugin/profile/..%2F..%2Fetc/passwd",
      "/%2e%2e/%2e%2e/etc/passwd",
      "/../../etc/passwd",
      "/a%5c..%5cb",
      "/index.html%00.js",
      "/data/plugin/profile/data?tag=overview_page&run=..%2F..%2Fetc",
      "/runs?session_path=%2Fetc",
      "/hosts?run=tf22/Cloud-TPU&tag=..%2F..",
      "/data?tag=overview_page&run=tf22/Cloud-TPU&host=..%2Fx",
  };
  return kTargets;
}

// Options of a server with a single conversion worker, behind which work queues.
inline HttpServerOptions OneWorker() {
  HttpServerOptions o;
  o.worker_threads = 1;
  return o;
}

// An in-process server over `logdir` on a free loopback port, stopped at
// scope exit.
class InProcessServer {
 public:
  InProcessServer(const fs::path& logdir, HttpServerOptions ho, ProfileServiceOptions so = {}) {
    so.logdir = logdir;
    auto s = ProfileService::Create(so);
    EXPECT_TRUE(s.ok()) << s.status().message();
    service_ = std::move(*s);
    ho.port = 0;
    ho.log_level = LogLevel::kOff;
    server_ = std::make_unique<HttpServer>(ho, service_.get());
    EXPECT_TRUE(server_->Start().ok());
    thread_ = std::thread([this] { server_->Run(false); });
  }
  ~InProcessServer() {
    server_->Stop();
    thread_.join();
  }
  int port() const { return server_->port(); }
  ProfileService& service() { return *service_; }
  HttpServer::WorkCounts counts() const { return server_->work_counts(); }
  HttpServer& server() { return *server_; }

 private:
  std::unique_ptr<ProfileService> service_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
};

// One /data answer of a fresh in-process server over `logdir` that caches 1 MiB
// and admits `room` bytes of work beside it, with what the server counted,
// and whether it still lists runs afterwards.
struct AnswerWithRoom {
  std::optional<RawResponse> response;
  HttpServer::WorkCounts counts;
  uint64_t budget_bytes = 0;
  bool alive_after = false;
};
inline AnswerWithRoom AskWithRoom(const fs::path& logdir, const std::string& target, uint64_t room) {
  ProfileServiceOptions so;
  so.cache_bytes = 1u << 20;
  HttpServerOptions ho;
  ho.memory_budget_bytes = so.cache_bytes + room;
  InProcessServer server(logdir, ho, so);
  RawClient c(server.port());
  AnswerWithRoom out;
  out.response = c.Get(target);
  out.counts = server.counts();
  out.budget_bytes = ho.memory_budget_bytes;
  auto runs = c.Get("/runs");
  out.alive_after = runs.has_value() && runs->status == 200;
  return out;
}

// A ProfileService over a temporary logdir the test writes: SetUp writes its
// files under `base_`, then calls StartService; Get and GetJson call the
// service's one handler, without a socket.
class ServiceTest : public ::testing::Test {
 protected:
  void StartService(const fs::path& logdir, uint64_t cache_bytes = uint64_t{64} << 20) {
    ProfileServiceOptions options;
    options.logdir = logdir;
    options.web_dir = base_ / "web";
    options.cache_bytes = cache_bytes;
    auto s = ProfileService::Create(options);
    ASSERT_TRUE(s.ok()) << s.status().message();
    service_ = std::move(*s);
  }
  HttpResponse Get(const std::string& target) {
    HttpRequest r;
    r.target = target;
    return service_->Handle(r);
  }
  // The answer's JSON; a failure (not 200, not JSON) fails the test.
  boost::json::value GetJson(const std::string& target) {
    HttpResponse r = Get(target);
    EXPECT_EQ(r.status, 200) << target << ": " << r.Body();
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(r.Body(), ec);
    EXPECT_FALSE(ec) << target << ": " << r.Body();
    return v;
  }

  ScratchDir scratch_;
  const fs::path base_ = scratch_.path();
  std::unique_ptr<ProfileService> service_;
};

}  // namespace tbprof::testing_plugin
