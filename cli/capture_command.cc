// `tbprof capture`: samples running jobs through their ProfilerService (the
// gRPC server of tf.profiler.experimental.server.start,
// jax.profiler.start_server or `tbprof harness … --serve_profiler`) into a
// new run of a logdir, as TensorBoard's Capture Profile button does.
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
  flags.Add("duration_ms", "2000", "how long each worker traces");
  flags.Add("num_retry", "3", "attempts after the first when no worker returned any event");
  flags.Add("host_tracer_level", "2", "0 off, 1 user annotations, 2 + expensive runtime ops, 3 everything");
  flags.Add("device_tracer_level", "1", "0 off, 1 on");
  flags.Add("python_tracer_level", "0", "0 off, 1 trace Python calls");
  flags.Add("delay_ms", "0", "start tracing this long after the request is sent");
  flags.Add("timeout_ms", "60000", "least time to wait for a worker's answer (it is at least 2x the duration)");
  if (!flags.Parse(argc, argv)) return 2;
  if (flags.wants_help()) {
    flags.PrintHelp();
    return 0;
  }
  if (flags.Get("service_addr").empty() || flags.Get("logdir").empty()) {
    std::fprintf(stderr, "tbprof capture: --service_addr and --logdir are required (see tbprof capture --help)\n");
    return 2;
  }
  int64_t duration = 0, retry = 0, host = 0, device = 0, python = 0, delay = 0, timeout = 0;
  if (!flags.Int("duration_ms", duration) || !flags.Int("num_retry", retry) ||
      !flags.Int("host_tracer_level", host) || !flags.Int("device_tracer_level", device) ||
      !flags.Int("python_tracer_level", python) || !flags.Int("delay_ms", delay) || !flags.Int("timeout_ms", timeout)) {
    return 2;
  }
  if (retry < 0 || retry > 100 || host < 0 || host > 3 || device < 0 || device > 10 || python < 0 || python > 1 ||
      timeout < 1) {
    std::fprintf(stderr,
                 "tbprof capture: --num_retry must be 0..100, --host_tracer_level 0..3, --device_tracer_level "
                 "0..10, --python_tracer_level 0..1, --timeout_ms >= 1\n");
    return 2;
  }
  auto addresses = capture::ParseServiceAddresses(flags.Get("service_addr"));
  if (!addresses.ok()) {
    std::fprintf(stderr, "tbprof capture: %s\n", addresses.status().message().c_str());
    return 2;
  }
  capture::CaptureOptions options;
  options.service_addresses = std::move(*addresses);
  options.logdir = flags.Get("logdir");
  options.duration_ms = duration;
  options.num_tracing_attempts = static_cast<int>(retry) + 1;
  options.host_tracer_level = static_cast<uint32_t>(host);
  options.device_tracer_level = static_cast<uint32_t>(device);
  options.python_tracer_level = static_cast<uint32_t>(python);
  options.delay_ms = delay;
  options.min_grace_ms = timeout;
  options.log = [](const std::string& line) {
    std::fprintf(stderr, "tbprof capture: %s\n", line.c_str());
    std::fflush(stderr);
  };
  auto result = capture::CaptureProfile(options);
  if (!result.ok()) {
    std::fprintf(stderr, "tbprof capture: %s\n", result.status().message().c_str());
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
