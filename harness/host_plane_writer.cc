#include "harness/host_plane_writer.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "proto/xspace_builder.h"

namespace tbprof::harness {
namespace {

namespace fs = std::filesystem;

// TSL's ParseAndAddStatValue: int64, then uint64, then double, else a string
// stored by reference.
void AddParsedStat(XEventBuilder& event, std::string_view key, std::string_view value) {
  // absl's SimpleAtoi/SimpleAtod accept a leading '+'; from_chars does not.
  std::string_view num = value;
  if (num.size() > 1 && num[0] == '+' && num[1] != '-' && num[1] != '+') num.remove_prefix(1);
  const char* begin = num.data();
  const char* end = num.data() + num.size();
  int64_t i = 0;
  if (auto [p, ec] = std::from_chars(begin, end, i); ec == std::errc() && p == end && !num.empty()) {
    event.Int(key, i);
    return;
  }
  uint64_t u = 0;
  if (auto [p, ec] = std::from_chars(begin, end, u); ec == std::errc() && p == end && !num.empty()) {
    event.Uint(key, u);
    return;
  }
  double d = 0;
  if (auto [p, ec] = std::from_chars(begin, end, d); ec == std::errc() && p == end && !num.empty()) {
    event.Double(key, d);
    return;
  }
  event.Ref(key, value);
}

struct EventRef {
  const TracedEvent* event;
  int64_t begin_ps, duration_ps;
};

}  // namespace

tensorflow::profiler::XSpace SessionToXSpace(const TraceSession& session, const std::string& hostname) {
  tensorflow::profiler::XSpace space;
  space.add_hostnames(hostname);
  {
    XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
    std::vector<const TracedThread*> threads;
    for (const TracedThread& t : session.threads) threads.push_back(&t);
    // Post-processing sorts host lines by name.
    std::stable_sort(threads.begin(), threads.end(),
                     [](const TracedThread* a, const TracedThread* b) { return a->name < b->name; });
    const int64_t duration_ps = (session.stop_walltime_ns - session.start_walltime_ns) * 1000;
    for (const TracedThread* t : threads) {
      std::vector<EventRef> events;
      events.reserve(t->events.size());
      for (const TracedEvent& e : t->events) {
        // As the TSL host tracer: drop events that began before the session.
        if (e.start_ns < session.start_walltime_ns || e.end_ns < e.start_ns) continue;
        events.push_back({&e, (e.start_ns - session.start_walltime_ns) * 1000, (e.end_ns - e.start_ns) * 1000});
      }
      if (events.empty()) continue;
      std::sort(events.begin(), events.end(), [](const EventRef& a, const EventRef& b) {
        return a.begin_ps != b.begin_ps ? a.begin_ps < b.begin_ps : a.duration_ps > b.duration_ps;
      });
      // timestamp_ns 0: the line starts at the profile start after normalization.
      XLineBuilder line = host.AddLine(t->tid, t->name, 0);
      line.proto()->set_duration_ps(duration_ps);
      for (const EventRef& r : events) {
        ParsedTraceName parsed = ParseTraceName(r.event->name);
        XEventBuilder ev = line.AddEvent(parsed.name, r.begin_ps, r.duration_ps);
        for (const auto& [k, v] : parsed.stats) AddParsedStat(ev, k, v);
      }
    }
  }
  {
    XPlaneBuilder env = AddPlane(space, "Task Environment", 1);
    env.Uint("profile_start_time", static_cast<uint64_t>(session.start_walltime_ns));
    env.Uint("profile_stop_time", static_cast<uint64_t>(session.stop_walltime_ns));
  }
  return space;
}

std::string RunDirectoryFor(const std::string& logdir, int64_t start_walltime_ns, const std::string& run_name) {
  std::time_t secs = static_cast<std::time_t>(start_walltime_ns / 1'000'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y_%m_%d_%H_%M_%S", &tm);
  fs::path base = fs::path(logdir) / "plugins" / "profile" / (run_name.empty() ? std::string(stamp) : run_name);
  fs::path dir = base;
  for (int n = 1; fs::exists(dir); ++n) dir = base.string() + "_" + std::to_string(n);
  return dir.string();
}

StatusOr<std::string> WriteXSpace(const tensorflow::profiler::XSpace& space, const std::string& run_dir,
                                  const std::string& hostname) {
  std::error_code ec;
  fs::create_directories(run_dir, ec);
  if (ec) return Internal("cannot create " + run_dir + ": " + ec.message());
  std::string path = (fs::path(run_dir) / (hostname + ".xplane.pb")).string();
  std::string bytes;
  if (!space.SerializeToString(&bytes)) return Internal("cannot serialize the XSpace for " + path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return Internal("cannot write " + path);
  return path;
}

std::string LocalHostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == 0) return "localhost";
  return buf;
}

}  // namespace tbprof::harness
