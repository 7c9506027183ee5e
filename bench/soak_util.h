// What the two soaks (soak_bench, hostile_soak_bench) share: the synthetic
// runs they serve, a `tbprof serve` child process on their logdir, and its
// memory as /proc tells it.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/serve_child.h"
#include "synthetic/profile_generator.h"

namespace tbprof::bench {

using SoakClock = std::chrono::steady_clock;

inline std::string Env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

// The server flags a soak runs with (`env`, else `fallback`) and the --memory_mb
// among them (0 when absent): the bound the soak checks the peak RSS against.
struct SoakFlags {
  std::string flags;
  uint64_t memory_mb = 0;
};
inline SoakFlags SoakFlagsFrom(const char* env, const std::string& fallback) {
  SoakFlags out{Env(env, fallback)};
  if (size_t at = out.flags.find("--memory_mb "); at != std::string::npos) {
    out.memory_mb = std::stoull(out.flags.substr(at + 12));
  }
  return out;
}

// The server binary: TBPROF_SOAK_SERVER, else the tbprof beside this program.
inline std::string SoakServerBinary() {
  std::error_code ec;
  const std::filesystem::path exe_dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  return Env("TBPROF_SOAK_SERVER", (exe_dir / "tbprof").string());
}

// A figure of /proc/<pid>/status in KiB ("VmRSS:", "VmHWM:"); 0 when unreadable.
inline uint64_t StatusKb(pid_t pid, const char* field) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string s = ss.str();
  const size_t at = s.find(field);
  return at == std::string::npos ? 0 : std::strtoull(s.c_str() + at + std::strlen(field), nullptr, 10);
}

// A synthetic training profile (20 steps) at `path`; the soak `who` stops when it cannot be written.
inline void WriteSynthetic(const std::filesystem::path& path, uint64_t seed, int64_t events, int gpus,
                           const char* who) {
  SynthOptions o;
  o.gpus = gpus;
  o.steps = 20;
  o.events = events;
  o.seed = seed;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  if (Status s = WriteSyntheticXSpace(o, 0, out); !s.ok()) {
    std::fprintf(stderr, "%s: cannot write %s: %s\n", who, path.c_str(), s.message().c_str());
    std::exit(1);
  }
}

// A legacy pod_viewer JSON file of 2000 steps: a run served without an xplane.
inline void WritePodViewerJson(const std::filesystem::path& path) {
  std::string pod = "{\"podStats\":[";
  for (int i = 0; i < 2000; ++i) pod += (i ? ",{\"step\":" : "{\"step\":") + std::to_string(i) + "}";
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << pod + "]}";
}

// `BINARY serve --port 0 --logdir LOGDIR --log_level warn FLAGS...` in a
// child process; the port is read from the line it prints at start-up.
class SoakServer {
 public:
  SoakServer(const std::string& binary, const std::filesystem::path& logdir, const std::string& flags) {
    std::vector<std::string> args = {binary, "serve", "--port", "0", "--logdir", logdir.string(), "--log_level", "warn"};
    std::istringstream extra(flags);
    for (std::string a; extra >> a;) args.push_back(a);
    ServeChild child = StartServeChild(std::move(args));
    pid_ = child.pid;
    out_ = child.out;
    started_ = child.started;
    port_ = child.port;
  }
  ~SoakServer() {
    Stop();
    if (out_ != nullptr) fclose(out_);
  }
  SoakServer(const SoakServer&) = delete;
  SoakServer& operator=(const SoakServer&) = delete;

  // Whether it printed its start-up line.
  bool started() const { return started_; }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }

  // The most memory it held (VmHWM, KiB), sampled every 250 ms until
  // `deadline`; `died` (when given) is set if it went away meanwhile.
  uint64_t WatchPeakKb(SoakClock::time_point deadline, bool* died) const {
    uint64_t peak_kb = 0;
    while (SoakClock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      peak_kb = std::max(peak_kb, StatusKb(pid_, "VmHWM:"));
      if (died != nullptr && kill(pid_, 0) != 0) *died = true;
    }
    return peak_kb;
  }

  // Stops it (SIGTERM) and waits: its status as waitpid gives it.
  int Stop() {
    if (pid_ > 0 && !stopped_) {
      stopped_ = true;
      kill(pid_, SIGTERM);
      waitpid(pid_, &status_, 0);
    }
    return status_;
  }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  bool started_ = false, stopped_ = false;
  int port_ = 0;
  int status_ = 0;
};

}  // namespace tbprof::bench
