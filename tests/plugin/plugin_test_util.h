// Shared by the Plugin* suites: a temporary logdir assembled from copies of
// ../shared/testdata, and a raw-socket HTTP/1.1 client (independent of the
// server's Beast code, so the wire format is checked by a second parser).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
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

#include <gtest/gtest.h>

namespace tbprof::testing_plugin {

namespace fs = std::filesystem;

inline std::string TestdataDir() { return TBPROF_TESTDATA; }

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

inline void CopyInto(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

// <tmp>/logdir, laid out as (names chosen to exercise discovery):
//   plugins/profile/2020_08_05_13_37_44/   TF 2.3 CPU legacy run (host with dots, trace.json.gz)
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
    const fs::path td = TestdataDir();
    const fs::path tf23 = td / "legacy_logdir_tf23_cpu/plugins/profile/2020_08_05_13_37_44";
    for (const auto& e : fs::directory_iterator(tf23)) {
      CopyInto(e.path(), logdir_ / "plugins/profile/2020_08_05_13_37_44" / e.path().filename());
    }
    for (const char* run : {"Cloud-TPU", "GPU-compute-bound", "GPU-input-bound"}) {
      for (const auto& e : fs::directory_iterator(td / "legacy_logdir_tf22/plugins/profile" / run)) {
        CopyInto(e.path(), logdir_ / "tf22/plugins/profile" / run / e.path().filename());
      }
    }
    const fs::path multi = logdir_ / "nested/deeper/train/plugins/profile/run_multi";
    CopyInto(td / "xplane/jax_rocm_mi300_gemm/tw003.xplane.pb", multi / "host1.xplane.pb");
    CopyInto(td / "xplane/jax_rocm_mi355_fused_attn/934987a2fc2f.xplane.pb", multi / "host2.example.com.xplane.pb");
    for (const auto& e : fs::directory_iterator(td / "xprof_demo_json")) {
      CopyInto(e.path(), logdir_ / "demo/plugins/profile/jsononly" / e.path().filename());
    }
    fs::create_directories(logdir_ / "plugins/profile/empty_run");
    WriteFile(logdir_ / "plugins/profile/noise", "not a run");
    WriteFile(base_ / "outside/secret.overview_page.json", "[\"SECRET\"]");
    CopyInto(td / "xplane/jax_rocm_mi300_gemm/tw003.xplane.pb", base_ / "outside/leak.xplane.pb");
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

 private:
  fs::path base_, logdir_;
};

inline bool HaveTestdata() { return fs::is_directory(fs::path(TestdataDir()) / "legacy_logdir_tf22"); }

#define TBPROF_REQUIRE_TESTDATA()                                                               \
  do {                                                                                          \
    if (!::tbprof::testing_plugin::HaveTestdata()) GTEST_SKIP() << "testdata not found at " TBPROF_TESTDATA; \
  } while (0)

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

}  // namespace tbprof::testing_plugin
