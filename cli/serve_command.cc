#include <algorithm>
#include <cstdio>
#include <thread>

#include "cli/commands.h"
#include "cli/flags.h"
#include "plugin/http_server.h"
#include "plugin/routes.h"

namespace tbprof::cli {

int ServeCommand(int argc, char** argv) {
  Flags flags("serve", "--logdir DIR [--port 6006] [--host 127.0.0.1 | --bind_all] [flags]",
              "Serves the profiles under DIR to a browser or to TensorBoard's frontend, answering the\n"
              "routes of TensorBoard's profile plugin (xprof) at /data/plugin/profile/<route> and /<route>.");
  flags.Add("logdir", "", "directory holding plugins/profile/<run>/ folders (searched recursively)");
  flags.Add("port", "6006", "TCP port; 0 picks a free one (the URL is printed)");
  flags.Add("host", "127.0.0.1", "address to listen on");
  flags.Add("bind_all", "",
            "listen on every interface (IPv6 and IPv4) instead of --host. EXPOSES every profile under the logdir,\n"
            "      without authentication, to anyone who can reach this machine's port, and turns off the Host\n"
            "      header check that keeps web pages elsewhere from reading a localhost server (DNS rebinding)",
            true);
  flags.Add("allowed_hosts", "",
            "comma-separated names the Host header may carry besides localhost, 127.0.0.1 and [::1] (e.g. a\n"
            "      name of this machine used through an SSH tunnel); requests naming another host get 403");
  flags.Add("threads", "2", "network threads");
  flags.Add("workers", "2", "threads converting profiles (requests whose result is not cached)");
  flags.Add("cache_mb", "1024", "memory for loaded profiles and converted results (LRU)");
  flags.Add("max_response_mb", "1024",
            "largest answer (and legacy file read whole); bigger ones get 413 instead of being built");
  flags.Add("max_inflate_mb", "2048", "most a gzip'ed profile may inflate to");
  flags.Add("max_queued", "64", "requests that may wait for a worker or for memory; more get 503 (retry later)");
  flags.Add("memory_mb", "0",
            "memory for the cache and conversions together (0: --cache_mb plus the larger of --cache_mb and\n"
            "      2048). A conversion starts when the cache's bytes and the estimated working memory of those\n"
            "      running leave room for its own estimate, else it waits; one needing more than --memory_mb minus\n"
            "      --cache_mb gets 413");
  flags.Add("warm", "1", "convert the default tools of this many newest runs in the background at start");
  flags.Add("verbose", "", "log one line per request (otherwise only failed requests and errors)", true);
  flags.Add("log_level", "info", "debug | info | warn | error (errors are always logged) | off");
  flags.Add("no_capture", "", "refuse capture_profile (the UI hides Capture Profile); nothing is ever written", true);
  flags.Add("web_dir", "", "directory of the built web UI (default: the build's plugin/web/dist, then <exe dir>/web)");
  if (!flags.Parse(argc, argv)) return 2;
  if (flags.wants_help()) {
    flags.PrintHelp();
    return 0;
  }
  if (flags.Get("logdir").empty()) {
    std::fprintf(stderr, "tbprof serve: --logdir DIR is required (see tbprof serve --help)\n");
    return 2;
  }
  int64_t port = 0, threads = 0, workers = 0, cache_mb = 0, warm = 0, max_response_mb = 0, max_inflate_mb = 0,
          max_queued = 0, memory_mb = 0;
  if (!flags.Int("port", port) || !flags.Int("threads", threads) || !flags.Int("workers", workers) ||
      !flags.Int("cache_mb", cache_mb) || !flags.Int("warm", warm) || !flags.Int("max_response_mb", max_response_mb) ||
      !flags.Int("max_inflate_mb", max_inflate_mb) || !flags.Int("max_queued", max_queued) ||
      !flags.Int("memory_mb", memory_mb)) {
    return 2;
  }
  if (port < 0 || port > 65535 || threads < 1 || threads > 256 || workers < 1 || workers > 256 || cache_mb < 0 ||
      max_response_mb < 1 || max_inflate_mb < 1 || max_queued < 0 || memory_mb < 0 ||
      (memory_mb > 0 && memory_mb <= cache_mb)) {
    std::fprintf(stderr,
                 "tbprof serve: --port must be 0..65535, --threads/--workers 1..256, --cache_mb/--max_queued >= 0, "
                 "--max_response_mb/--max_inflate_mb >= 1, --memory_mb 0 or more than --cache_mb\n");
    return 2;
  }
  HttpServerOptions options;
  if (!ParseLogLevel(flags.Get("log_level"), &options.log_level)) {
    std::fprintf(stderr, "tbprof serve: --log_level must be debug, info, warn, error or off\n");
    return 2;
  }
  options.port = static_cast<uint16_t>(port);
  options.io_threads = static_cast<int>(threads);
  options.worker_threads = static_cast<int>(workers);
  options.max_queued = static_cast<int>(max_queued);
  // By default conversions get at least 2 GiB beside the cache: a profile of a few hundred MB must open
  // with the default --cache_mb (its model, decoded, is about twice its size).
  const int64_t default_memory_mb = cache_mb == 0 ? 0 : cache_mb + std::max<int64_t>(cache_mb, 2048);
  options.memory_budget_bytes = static_cast<uint64_t>(memory_mb > 0 ? memory_mb : default_memory_mb) << 20;
  options.verbose = flags.Bool("verbose");
  for (size_t pos = 0; pos < flags.Get("allowed_hosts").size();) {
    const std::string& list = flags.Get("allowed_hosts");
    size_t comma = std::min(list.find(',', pos), list.size());
    if (comma > pos) options.allowed_hosts.push_back(list.substr(pos, comma - pos));
    pos = comma + 1;
  }

  ProfileServiceOptions service_options;
  service_options.logdir = flags.Get("logdir");
  service_options.web_dir = flags.Has("web_dir") ? flags.Get("web_dir") : DefaultWebDir();
  service_options.cache_bytes = static_cast<size_t>(cache_mb) << 20;
  service_options.max_response_bytes = static_cast<uint64_t>(max_response_mb) << 20;
  service_options.max_inflated_bytes = static_cast<uint64_t>(max_inflate_mb) << 20;
  service_options.allow_capture = !flags.Bool("no_capture");
  auto service = ProfileService::Create(service_options);
  if (!service.ok()) {
    std::fprintf(stderr, "tbprof serve: %s\n", service.status().message().c_str());
    return 1;
  }

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
    std::fprintf(stderr, "tbprof serve: %s\n", started.message().c_str());
    return 1;
  }
  std::string shown = options.host == "::" || options.host == "0.0.0.0" ? "localhost" : options.host;
  if (shown.find(':') != std::string::npos) shown = "[" + shown + "]";
  std::printf("tbprof serve: %s at http://%s:%u/ (Ctrl-C to stop)\n", (*service)->logdir().root().c_str(),
              shown.c_str(), static_cast<unsigned>(server->port()));
  std::fflush(stdout);

  std::thread warmer;
  if (warm > 0) {
    warmer = std::thread([svc = service->get(), n = static_cast<int>(warm)] { svc->Warm(n); });
  }
  server->Run(/*handle_signals=*/true);
  if (warmer.joinable()) warmer.join();
  std::printf("tbprof serve: stopped\n");
  return 0;
}

}  // namespace tbprof::cli
