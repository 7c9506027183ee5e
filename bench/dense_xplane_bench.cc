// Issue 46 item 7 at full size: `tbprof serve --memory_mb 1024` (a child
// process) given a crafted dense xplane of 25M events in one line (100 MB on
// disk, each event 4 bytes), asked for its whole trace at resolution 0 and
// then its overview, one after the other. Reports each answer's status and
// time and the server's peak RSS (VmHWM) against the bound; fails when the
// bound is passed, a request goes unanswered or the server dies.
//
//   TBPROF_DENSE_EVENTS   events in the line (default 25000000)
//   TBPROF_SOAK_SERVER    server binary (default: tbprof beside this program)
//   TBPROF_SOAK_FLAGS     serve flags (default "--memory_mb 1024 --cache_mb 256 --warm 0")
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "bench/hostile_inputs.h"
#include "bench/http_client.h"
#include "bench/soak_util.h"

int main() {
  namespace fs = std::filesystem;
  using tbprof::bench::Env;
  const uint64_t events = std::strtoull(Env("TBPROF_DENSE_EVENTS", "25000000").c_str(), nullptr, 10);
  const auto [flags, memory_mb] =
      tbprof::bench::SoakFlagsFrom("TBPROF_SOAK_FLAGS", "--memory_mb 1024 --cache_mb 256 --warm 0");
  char tmpl[] = "/tmp/tbprof_dense_xplane_XXXXXX";
  const fs::path logdir = mkdtemp(tmpl);
  const fs::path file = logdir / "plugins/profile/dense/host0.xplane.pb";
  tbprof::bench::WriteDenseXPlane(file, events);
  std::printf("dense xplane: %llu events in one line, %.0f MB, %s\n", static_cast<unsigned long long>(events),
              static_cast<double>(fs::file_size(file)) / 1e6, flags.c_str());
  bool ok = true;
  {
    tbprof::bench::SoakServer server(tbprof::bench::SoakServerBinary(), logdir, flags);
    if (!server.started()) {
      std::fprintf(stderr, "dense xplane: the server did not start\n");
      return 1;
    }
    for (const char* tag : {"trace_viewer@&resolution=0", "overview_page", "trace_viewer@&resolution=0"}) {
      tbprof::bench::Connection c(server.port(), 600);
      const auto t0 = std::chrono::steady_clock::now();
      const int status = c.Exchange(std::string("/data/plugin/profile/data?run=dense&tag=") + tag);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const uint64_t peak_kb = tbprof::bench::StatusKb(server.pid(), "VmHWM:");
      std::printf("  %-28s %d in %.1f s, peak RSS so far %.0f MiB\n", tag, status, s, peak_kb / 1024.0);
      ok = ok && (status == 200 || status == 413);
    }
    const uint64_t peak_kb = tbprof::bench::StatusKb(server.pid(), "VmHWM:");
    const int alive = tbprof::bench::Connection(server.port(), 30).Exchange("/data/plugin/profile/runs");
    const bool within = memory_mb == 0 || peak_kb / 1024 <= memory_mb;
    std::printf("  peak RSS %.0f MiB, bound --memory_mb %llu: %s; /runs after: %d\n", peak_kb / 1024.0,
                static_cast<unsigned long long>(memory_mb), within ? "within" : "EXCEEDED", alive);
    ok = ok && within && alive == 200;
  }
  std::error_code ec;
  fs::remove_all(logdir, ec);
  std::printf("  %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
