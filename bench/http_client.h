// The client side of the HTTP benchmarks: one keep-alive HTTP/1.1 connection
// to a loopback port.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace tbprof::bench {

// Exchange sends a request and reads one answer (Content-Length framed),
// returning its status or -1. A read waiting longer than `recv_timeout_s`
// fails (0: reads wait as long as it takes).
class Connection {
 public:
  explicit Connection(int port, int recv_timeout_s = 60) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    timeval tv{recv_timeout_s, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  bool Send(const std::string& bytes) {
    return fd_ >= 0 && send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }
  // The answer's status; its body into `body` when given.
  int Exchange(const std::string& target, const std::string& headers = "Host: localhost\r\n",
               std::string* body = nullptr) {
    if (!Send("GET " + target + " HTTP/1.1\r\n" + headers + "\r\n")) return -1;
    return ReadAnswer(body);
  }
  int ReadAnswer(std::string* body = nullptr) {
    size_t header_end = std::string::npos, total = 0;
    char tmp[1 << 16];
    for (;;) {
      if (header_end == std::string::npos) {
        header_end = buf_.find("\r\n\r\n");
        if (header_end != std::string::npos) {
          size_t cl = buf_.find("Content-Length: ");
          if (cl == std::string::npos || cl > header_end) return -1;
          total = header_end + 4 + std::strtoul(buf_.c_str() + cl + 16, nullptr, 10);
        }
      }
      if (header_end != std::string::npos && buf_.size() >= total) break;
      ssize_t n = recv(fd_, tmp, sizeof tmp, 0);
      if (n <= 0) return -1;
      buf_.append(tmp, static_cast<size_t>(n));
    }
    int status = buf_.size() > 12 ? std::atoi(buf_.c_str() + 9) : -1;
    if (body != nullptr) body->assign(buf_, header_end + 4, total - header_end - 4);
    buf_.erase(0, total);
    return status;
  }

 private:
  int fd_ = -1;
  std::string buf_;
};

}  // namespace tbprof::bench
