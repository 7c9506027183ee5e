#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "cli/commands.h"
#include "cli/flags.h"
#include "convert/base/strings.h"
#include "convert/tools/op_stats_summary.h"
#include "plugin/http_server.h"
#include "plugin/routes.h"

namespace tbprof::cli {
namespace {

// OpStats loads read summaries beside the profiles or under --summary_dir (paths
// relative to the logdir), and write them only when told.
void UseSummaries(const Flags& flags, const std::string& logdir_root) {
  SummaryPolicy policy;
  policy.write = flags.Bool("write_summaries");
  policy.root = logdir_root;
  if (const std::string& dir = flags.Get("summary_dir"); !dir.empty()) {
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(dir, ec);
    policy.summary_dir = ec ? dir : canonical.string();
  }
  SetSummaryPolicy(std::move(policy));
}

}  // namespace

int ServeCommand(int argc, char** argv) {
  Flags flags("serve", "--logdir DIR [--port 6006] [--host 127.0.0.1 | --bind_all] [flags]",
              "Serves the profiles under DIR to a browser or to TensorBoard's frontend, answering the\n"
              "routes of TensorBoard's profile plugin (xprof) at /data/plugin/profile/<route> and /<route>.");
  flags.Add("logdir", "", "directory holding plugins/profile/<run>/ folders (searched recursively)");
  flags.AddInt("port", 6006, 0, 65535, "TCP port; 0 picks a free one (the URL is printed)");
  flags.Add("host", "127.0.0.1", "address to listen on");
  flags.Add("bind_all", "",
            "listen on every interface (IPv6 and IPv4) instead of --host. EXPOSES every profile under the logdir,\n"
            "      without authentication, to anyone who can reach this machine's port, and turns off the Host\n"
            "      header check that keeps web pages elsewhere from reading a localhost server (DNS rebinding)",
            true);
  flags.Add("allowed_hosts", "",
            "comma-separated names the Host header may carry besides localhost, 127.0.0.1 and [::1] (e.g. a\n"
            "      name of this machine used through an SSH tunnel); requests naming another host get 403");
  flags.AddInt("threads", 2, 1, 256, "network threads");
  flags.AddInt("workers", 2, 1, 256, "threads converting profiles (requests whose result is not cached)");
  flags.AddInt("cache_mb", 1024, 0, INT32_MAX, "memory for loaded profiles and converted results (LRU)");
  flags.AddInt("max_response_mb", 1024, 1, INT32_MAX,
            "largest answer (and legacy file read whole); bigger ones get 413 instead of being built");
  flags.AddInt("max_inflate_mb", 2048, 1, INT32_MAX, "most a gzip'ed profile may inflate to");
  flags.AddInt("max_queued", 64, 0, INT32_MAX,
               "requests that may wait for a worker or for memory; more get 503 (retry later)");
  flags.AddInt("memory_mb", 0, 0, INT32_MAX,
               "memory for the cache and conversions together (0: --cache_mb plus the larger of --cache_mb and\n"
               "      2048). A conversion starts when the cache's bytes and the estimated working memory of those\n"
               "      running leave room for its own estimate, else it waits; one needing more than --memory_mb minus\n"
               "      --cache_mb and the process's own share (an eighth, at most 128 MiB) gets 413");
  flags.AddInt("warm", 1, 0, INT32_MAX, "convert the default tools of this many newest runs in the background at start");
  flags.Add("verbose", "", "log one line per request (otherwise only failed requests and errors)", true);
  flags.Add("log_level", "info", "debug | info | warn | error (errors are always logged) | off");
  flags.Add("no_capture", "", "refuse capture_profile (the UI hides Capture Profile); nothing is ever written", true);
  flags.Add("summary_dir", "",
            "where profile summaries (tbprof summarize) are read from, mirroring the logdir; empty: beside each file");
  flags.Add("write_summaries", "",
            "write the summary of each profile whose op statistics are computed (beside it, or under --summary_dir)",
            true);
  flags.Add("web_dir", "", "directory of the built web UI (default: the build's plugin/web/dist, then <exe dir>/web)");
  flags.Require("logdir");
  if (auto exit_code = flags.Parse(argc, argv)) return *exit_code;
  const int64_t cache_mb = flags.Int("cache_mb"), memory_mb = flags.Int("memory_mb");
  if (memory_mb > 0 && memory_mb <= cache_mb) {
    flags.Error("--memory_mb must be 0 or more than --cache_mb");
    return 2;
  }
  HttpServerOptions options;
  if (!ParseLogLevel(flags.Get("log_level"), &options.log_level)) {
    flags.Error("--log_level must be debug, info, warn, error or off");
    return 2;
  }
  options.port = static_cast<uint16_t>(flags.Int("port"));
  options.io_threads = static_cast<int>(flags.Int("threads"));
  options.worker_threads = static_cast<int>(flags.Int("workers"));
  options.max_queued = static_cast<int>(flags.Int("max_queued"));
  // By default conversions get at least 2 GiB beside the cache: a profile of a few hundred MB must open
  // with the default --cache_mb (its model, decoded, is about twice its size).
  const int64_t default_memory_mb = cache_mb == 0 ? 0 : cache_mb + std::max<int64_t>(cache_mb, 2048);
  // --memory_mb bounds the process, but the server counts only what it holds for requests (cache,
  // conversions, answers being sent). The rest (code, thread stacks, connection buffers, what malloc
  // keeps between allocations) is set aside: an eighth of the bound, at most 128 MiB. Without it the
  // hostile soak (bench/hostile_soak_bench.cc) peaked 43 MiB over --memory_mb 1024.
  const uint64_t memory_bytes = static_cast<uint64_t>(memory_mb > 0 ? memory_mb : default_memory_mb) << 20;
  const uint64_t process_reserve = std::min<uint64_t>(memory_bytes / 8, uint64_t{128} << 20);
  options.memory_budget_bytes = memory_bytes - process_reserve;
  options.verbose = flags.Bool("verbose");
  for (std::string_view name : SplitNonEmpty(flags.Get("allowed_hosts"), ',')) {
    options.allowed_hosts.emplace_back(name);
  }

  ProfileServiceOptions service_options;
  service_options.logdir = flags.Get("logdir");
  service_options.web_dir = flags.Has("web_dir") ? flags.Get("web_dir") : DefaultWebDir();
  service_options.cache_bytes = static_cast<size_t>(cache_mb) << 20;
  service_options.max_response_bytes = static_cast<uint64_t>(flags.Int("max_response_mb")) << 20;
  service_options.max_inflated_bytes = static_cast<uint64_t>(flags.Int("max_inflate_mb")) << 20;
  service_options.allow_capture = !flags.Bool("no_capture");
  auto service = ProfileService::Create(service_options);
  if (!service.ok()) {
    flags.Error(service.status().message());
    return 1;
  }

  UseSummaries(flags, (*service)->logdir().root());

  std::vector<std::string> hosts = {flags.Get("host")};
  if (flags.Bool("bind_all")) hosts = {"::", "0.0.0.0"};  // dual-stack first, IPv4 where IPv6 is off
  std::unique_ptr<HttpServer> server;
  Status started;
  for (const std::string& host : hosts) {
    options.host = host;
    server = std::make_unique<HttpServer>(options, service->get());
    started = server->Start();
    if (started.ok()) break;
  }
  if (!started.ok()) {
    flags.Error(started.message());
    return 1;
  }
  std::string shown = options.host == "::" || options.host == "0.0.0.0" ? "localhost" : options.host;
  if (shown.find(':') != std::string::npos) shown = "[" + shown + "]";
  std::printf("tbprof serve: %s at http://%s:%u/ (Ctrl-C to stop)\n", (*service)->logdir().root().c_str(),
              shown.c_str(), static_cast<unsigned>(server->port()));
  std::fflush(stdout);

  std::thread warmer;
  if (int warm = static_cast<int>(flags.Int("warm")); warm > 0) {
    // Through the server's admission: warm-up waits for memory like any request, and skips what could never fit.
    warmer = std::thread([svc = service->get(), srv = server.get(), warm] {
      svc->Warm(warm, [srv](ProfileService::Deferred work) { return srv->RunAdmitted(std::move(work)); });
    });
  }
  server->Run(/*handle_signals=*/true);
  if (warmer.joinable()) warmer.join();
  std::printf("tbprof serve: stopped\n");
  return 0;
}

}  // namespace tbprof::cli
