// Capture from live jobs, as TensorBoard's Capture Profile button does: every
// worker's ProfilerService (the gRPC server TensorFlow's
// tf.profiler.experimental.server.start, JAX's jax.profiler.start_server and
// `tbprof harness … --serve_profiler` run) is asked in parallel to trace for
// the same duration, and each returned XSpace is written to a new run
// <logdir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>_<port>.xplane.pb.
// When no worker returns any event the whole capture is tried again, up to
// the number of attempts (TensorBoard's "number of retries" + 1).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/base/status.h"

namespace tbprof::capture {

struct CaptureOptions {
  std::vector<std::string> service_addresses;  // "host:port" each
  std::string logdir;  // traces go to <logdir>/plugins/profile/<new run>/
  int64_t duration_ms = 2000;
  int num_tracing_attempts = 1;  // tries again while no worker returned a trace
  uint32_t host_tracer_level = 2;  // 0 off, 1 user annotations, 2 also the runtime's costly ops, 3 all
  uint32_t device_tracer_level = 1;  // 0 off, 1 on
  uint32_t python_tracer_level = 0;  // 1 traces Python calls
  int64_t delay_ms = 0;  // tracing starts this long after the request, at the same time on every worker
  bool include_dataset_ops = true;  // what TensorBoard's capture sends
  // A worker that has not answered by max(min_grace_ms, 2 * duration) plus
  // the delay has timed out (TSL's session deadline, 60 s at least).
  int64_t min_grace_ms = 60000;
  // Progress lines ("attempt 1 of 3: tracing 2000 ms on 2 workers"); may be empty.
  std::function<void(const std::string&)> log;
};

struct CapturedHost {
  std::string service_address;
  std::string path;   // the written .xplane.pb; empty when this worker gave none
  uint64_t bytes = 0;
  std::string error;  // why this worker gave no trace (the capture may still succeed)
};

struct CaptureResult {
  std::string run;      // the run directory's name
  std::string run_dir;  // <logdir>/plugins/profile/<run>
  int attempts = 0;     // attempts made
  std::vector<CapturedHost> hosts;  // one per service address, in order
};

// "host:port[,host:port…]" (a leading grpc:// is dropped, as xprof does) into
// addresses; errors name the part that is not a host-port pair.
StatusOr<std::vector<std::string>> ParseServiceAddresses(std::string_view list);

// Captures into a new run. Fails when the options are invalid, or when no
// worker returned a trace after every attempt; the error then names each
// worker's reason (unreachable, timed out, empty trace). The run directory is
// created fresh (a suffix is added if the name is taken), nothing existing is
// ever overwritten, and it is removed again when nothing was written to it.
StatusOr<CaptureResult> CaptureProfile(const CaptureOptions& options);

// The file name a worker's trace is saved under: its address with ':' as
// '_' (as TSL names it), plus ".xplane.pb".
std::string XPlaneFileName(std::string_view service_address);

}  // namespace tbprof::capture
