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
  flags.Add("bind_all", "", "listen on every interface (IPv6 and IPv4) instead of --host", true);
  flags.Add("threads", "2", "network threads");
  flags.Add("workers", "2", "threads converting profiles (requests whose result is not cached)");
  flags.Add("cache_mb", "1024", "memory for loaded profiles and converted results (LRU)");
  flags.Add("warm", "1", "convert the default tools of this many newest runs in the background at start");
  flags.Add("log_level", "info", "debug | info (one line per request) | warn (errors only) | error | off");
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
  int64_t port = 0, threads = 0, workers = 0, cache_mb = 0, warm = 0;
  if (!flags.Int("port", port) || !flags.Int("threads", threads) || !flags.Int("workers", workers) ||
      !flags.Int("cache_mb", cache_mb) || !flags.Int("warm", warm)) {
    return 2;
  }
  if (port < 0 || port > 65535 || threads < 1 || threads > 256 || workers < 1 || workers > 256 || cache_mb < 0) {
    std::fprintf(stderr, "tbprof serve: --port must be 0..65535, --threads/--workers 1..256, --cache_mb >= 0\n");
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

  ProfileServiceOptions service_options;
  service_options.logdir = flags.Get("logdir");
  service_options.web_dir = flags.Has("web_dir") ? flags.Get("web_dir") : DefaultWebDir();
  service_options.cache_bytes = static_cast<size_t>(cache_mb) << 20;
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
