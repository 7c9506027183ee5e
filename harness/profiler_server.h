// Makes a process a capturable job: serves gRPC `tensorflow.ProfilerService`
// (TSL's protocol, as TensorFlow's tf.profiler.experimental.server.start and
// JAX's jax.profiler.start_server do), so `tbprof capture`, the server's
// capture_profile route or TensorBoard's Capture Profile button can trace it.
// A Profile call runs our host tracer for the requested duration and answers
// with the XSpace (or, for clients that do not ask for it, saves it under the
// request's repository_root as TSL's server does).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "convert/base/status.h"

namespace tbprof::harness {

class ProfilerServer {
 public:
  // Listens on "host:port" (port 0 picks a free one).
  static StatusOr<std::unique_ptr<ProfilerServer>> Start(const std::string& address);
  ~ProfilerServer();  // shuts down, cancelling calls in flight

  int port() const { return port_; }
  // Profile calls answered so far (with or without events).
  int64_t profiles_served() const;

  ProfilerServer(const ProfilerServer&) = delete;
  ProfilerServer& operator=(const ProfilerServer&) = delete;

 private:
  struct Impl;
  explicit ProfilerServer(std::unique_ptr<Impl> impl, int port);
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace tbprof::harness
