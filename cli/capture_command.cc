// `tbprof capture`: samples running jobs through their ProfilerService (the
// gRPC server of tf.profiler.experimental.server.start,
// jax.profiler.start_server or `tbprof harness … --serve_profiler`) into a
// new run of a logdir, as TensorBoard's Capture Profile button does.
#include <cstdint>
#include <cstdio>

#include "cli/commands.h"
#include "cli/flags.h"
#include "plugin/capture/capture.h"

namespace tbprof::cli {

int CaptureCommand(int argc, char** argv) {
  Flags flags("capture", "--service_addr HOST:PORT[,HOST:PORT...] --logdir DIR [flags]",
              "Asks every worker's profiler server to trace for the same duration, in parallel, and writes\n"
              "the traces to a new run DIR/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>_<port>.xplane.pb.\n"
              "When no worker recorded any event the capture is tried again (--num_retry times).");
  flags.Add("service_addr", "", "profiler server address(es), comma separated (required)");
  flags.Add("logdir", "", "logdir to add the run to (required)");
  flags.AddInt("duration_ms", 2000, 0, INT64_MAX, "how long each worker traces");
  flags.AddInt("num_retry", 3, 0, 100, "attempts after the first when no worker returned any event");
  flags.AddInt("host_tracer_level", 2, 0, 3, "0 off, 1 user annotations, 2 + expensive runtime ops, 3 everything");
  flags.AddInt("device_tracer_level", 1, 0, 10, "0 off, 1 on");
  flags.AddInt("python_tracer_level", 0, 0, 1, "0 off, 1 trace Python calls");
  flags.AddInt("delay_ms", 0, 0, INT64_MAX, "start tracing this long after the request is sent");
  flags.AddInt("timeout_ms", 60000, 1, INT64_MAX,
               "least time to wait for a worker's answer (it is at least 2x the duration)");
  flags.Require("service_addr");
  flags.Require("logdir");
  if (auto exit_code = flags.Parse(argc, argv)) return *exit_code;
  auto addresses = capture::ParseServiceAddresses(flags.Get("service_addr"));
  if (!addresses.ok()) {
    flags.Error(addresses.status().message());
    return 2;
  }
  capture::CaptureOptions options;
  options.service_addresses = std::move(*addresses);
  options.logdir = flags.Get("logdir");
  options.duration_ms = flags.Int("duration_ms");
  options.num_tracing_attempts = static_cast<int>(flags.Int("num_retry")) + 1;
  options.host_tracer_level = static_cast<uint32_t>(flags.Int("host_tracer_level"));
  options.device_tracer_level = static_cast<uint32_t>(flags.Int("device_tracer_level"));
  options.python_tracer_level = static_cast<uint32_t>(flags.Int("python_tracer_level"));
  options.delay_ms = flags.Int("delay_ms");
  options.min_grace_ms = flags.Int("timeout_ms");
  options.log = [](const std::string& line) {
    std::fprintf(stderr, "tbprof capture: %s\n", line.c_str());
    std::fflush(stderr);
  };
  auto result = capture::CaptureProfile(options);
  if (!result.ok()) {
    flags.Error(result.status().message());
    return 1;
  }
  std::printf("run %s (%s)\n", result->run.c_str(), result->run_dir.c_str());
  for (const capture::CapturedHost& h : result->hosts) {
    if (h.path.empty()) {
      std::printf("  %-24s no trace: %s\n", h.service_address.c_str(), h.error.c_str());
    } else {
      std::printf("  %-24s %s (%llu bytes)\n", h.service_address.c_str(), h.path.c_str(),
                  static_cast<unsigned long long>(h.bytes));
    }
  }
  return 0;
}

}  // namespace tbprof::cli
