// `tbprof harness <pipeline|demo|gpu>`: runs profiling workloads and writes
// their profiles. `gpu` is dispatched to harness/gpu_harness.h when that
// harness is built in.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/flags.h"
#include "convert/base/strings.h"
#include "harness/gpu_harness.h"
#include "harness/pipeline_report.h"
#include "harness/pipeline_runner.h"
#include "harness/pipeline_validation.h"
#include "harness/profiler_server.h"
#include "harness/variant_comparison.h"

namespace tbprof::cli {
namespace {

// Set by SIGINT/SIGTERM while the run serves ProfilerService: the run ends
// after its current step and removes its data, instead of dying mid-run.
std::atomic<bool> g_stop_requested{false};
void RequestStop(int) { g_stop_requested.store(true); }

using namespace tbprof::harness;

void PrintHarnessUsage() {
  std::printf(
      "usage: tbprof harness <subcommand> [flags]\n\nsubcommands:\n"
      "  pipeline   run tf.data-like input pipeline variants, compare and validate them\n"
      "  demo       write a small demo logdir (three pipeline variants) in a few seconds\n"
      "  gpu        GPU workloads (when built with the GPU harness)\n\n"
      "Run 'tbprof harness <subcommand> --help' for its flags.\n");
}

// "key=value,key=value" cost overrides.
Status ApplyCostList(const std::string& list, PipelineCosts& costs) {
  for (std::string_view piece : SplitNonEmpty(list, ',')) {
    const std::string item(piece);
    size_t eq = item.find('=');
    if (eq == std::string::npos) return InvalidArgument("--costs: expected key=value, got '" + item + "'");
    char* end = nullptr;
    std::string value = item.substr(eq + 1);
    double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0') return InvalidArgument("--costs: '" + value + "' is not a number");
    Status s = SetPipelineCost(costs, item.substr(0, eq), v);
    if (!s.ok()) return InvalidArgument("--costs: " + s.message());
  }
  if (costs.batch_size < 1 || costs.num_files < 1 || costs.records_per_file < 1)
    return InvalidArgument("--costs: batch_size, num_files and records_per_file must be >= 1");
  return Status::Ok();
}

class ProgressBar {
 public:
  ProgressBar(std::string label, int total) : label_(std::move(label)), total_(total), tty_(isatty(2)) {}
  void Update(int done) {
    if (!tty_) return;
    const int width = 30;
    int filled = total_ > 0 ? done * width / total_ : width;
    std::fprintf(stderr, "\r%-20s [%s%s] %d/%d steps", label_.c_str(), std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), done, total_);
    std::fflush(stderr);
  }
  void Finish(const std::string& note) {
    if (tty_) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "%-20s %s\n", label_.c_str(), note.c_str());
  }

 private:
  std::string label_;
  int total_;
  bool tty_;
};

struct PipelineArgs {
  std::vector<const PipelineVariant*> variants;
  PipelineCosts costs;
  RunOptions options;
  bool check = false;
  int check_attempts = 3;
};

// Runs the variants; fills `reports`. Returns 0, or 1 on a failed run or check.
int RunVariants(const PipelineArgs& args, std::vector<VariantReport>& reports) {
  std::string data_dir =
      (std::filesystem::temp_directory_path() / ("tbprof-harness-" + std::to_string(::getpid()))).string();
  auto files = WritePipelineData(data_dir, args.costs);
  if (!files.ok()) {
    std::fprintf(stderr, "tbprof harness: %s\n", files.status().message().c_str());
    return 1;
  }
  int rc = 0;
  for (const PipelineVariant* v : args.variants) {
    if (args.options.stop && args.options.stop->load()) break;
    // With --check, a mismatching run is repeated (up to check_attempts runs
    // in all): the analysis judges the single slowest call, which one
    // descheduling on a busy machine can decide. The attempt is reported.
    const int attempts = args.check ? args.check_attempts : 1;
    for (int attempt = 1; attempt <= attempts; ++attempt) {
      ProgressBar bar(v->name, args.options.steps);
      RunOptions opts = args.options;
      opts.run_name = v->name;  // runs are told apart by their variant, not by when they ran
      opts.progress = [&bar](int done) { bar.Update(done); };
      auto run = RunPipelineVariant(*v, args.costs, *files, opts);
      if (!run.ok()) {
        bar.Finish("failed: " + run.status().message());
        rc = 1;
        break;
      }
      VariantReport report;
      report.run = std::move(*run);
      if (!report.run.xplane_path.empty()) {
        auto analysis = AnalyzePipelineProfile(report.run.xplane_path);
        if (analysis.ok()) {
          report.analysis = std::move(*analysis);
        } else {
          report.analysis_error = analysis.status().message();
        }
      }
      if (args.check) {
        if (report.analysis) {
          report.check = CheckVariant(*v, report.run, *report.analysis);
        } else {
          report.check = CheckResult{false, "no analysis: " + report.analysis_error};
        }
        if (attempts > 1) report.check->message += " (run " + std::to_string(attempt) + "/" + std::to_string(attempts) + ")";
        if (!report.check->ok && attempt < attempts && report.analysis) {
          bar.Finish("check mismatch (" + report.check->message + "), running again");
          // One run per variant stays in the logdir.
          std::error_code rm_ec;
          std::filesystem::remove_all(std::filesystem::path(report.run.xplane_path).parent_path(), rm_ec);
          continue;
        }
        if (!report.check->ok) rc = 1;
      }
      bar.Finish(report.run.xplane_path.empty() ? "done" : report.run.xplane_path);
      reports.push_back(std::move(report));
      break;
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(data_dir, ec);
  return rc;
}

int PipelineSubcommand(int argc, char** argv) {
  Flags flags("harness pipeline", "--variant NAME|all [flags]",
              "Runs tf.data-like input pipeline variants under the host tracer, writes one profile run per\n"
              "variant and prints a comparison table.");
  std::string names;
  for (const PipelineVariant& v : PipelineVariants()) names += (names.empty() ? "" : ", ") + v.name;
  flags.Add("variant", "all", "variant to run: all, or one of " + names);
  flags.AddInt("steps", 48, 1, 1000000, "traced training steps per variant");
  flags.AddInt("warmup", 20, 0, 1000000, "untraced warm-up steps (when > 0, at least one epoch, so caches are warm)");
  flags.Add("logdir", "", "write profiles to <logdir>/plugins/profile/<run>/ (default: a temporary dir)");
  flags.Add("config", "", "JSON file of stage costs, e.g. {\"decode_us\": 400, \"batch_size\": 8}");
  flags.Add("costs", "", "stage costs as key=value,... (applied after --config)");
  flags.Add("json", "", "print the results as JSON", true);
  flags.Add("check", "", "validate the tf.data analysis against the injected bottlenecks (exit 1 on mismatch)",
            true);
  flags.AddInt("check-attempts", 3, 1, 10, "with --check, runs per variant before a mismatch counts (timing noise)");
  flags.Add("plot", "", "write an SVG bar chart of throughput per variant to this file");
  flags.Add("serve_profiler", "",
            "PORT or HOST:PORT: serve ProfilerService (gRPC) while running, so `tbprof capture` or TensorBoard's\n"
            "Capture Profile can trace the run (PORT alone listens on 127.0.0.1; port 0 picks a free one). The run\n"
            "then writes no profile of its own; use many --steps to keep it running.");
  std::string footer = "variants:\n";
  for (const PipelineVariant& v : PipelineVariants()) {
    footer += "  " + v.name + std::string(v.name.size() < 20 ? 20 - v.name.size() : 0, ' ') + " " + v.description +
              " (expected bottleneck: " + (v.expected_bottleneck.empty() ? "none" : v.expected_bottleneck) + ")\n";
  }
  flags.SetHelpFooter(footer);
  if (auto exit_code = flags.Parse(argc, argv)) return *exit_code;
  if (!flags.positional().empty()) {
    std::fprintf(stderr, "tbprof harness pipeline: unexpected argument '%s'\n", flags.positional()[0].c_str());
    return 2;
  }
  PipelineArgs args;
  const std::string& variant = flags.Get("variant");
  if (variant == "all") {
    for (const PipelineVariant& v : PipelineVariants()) args.variants.push_back(&v);
  } else if (const PipelineVariant* v = FindPipelineVariant(variant)) {
    args.variants.push_back(v);
  } else {
    std::fprintf(stderr, "tbprof harness pipeline: unknown variant '%s' (known: all, %s)\n", variant.c_str(),
                 names.c_str());
    return 2;
  }
  args.options.steps = static_cast<int>(flags.Int("steps"));
  args.options.warmup_steps = static_cast<int>(flags.Int("warmup"));
  if (!flags.Get("config").empty()) {
    Status s = LoadPipelineCosts(flags.Get("config"), args.costs);
    if (!s.ok()) {
      flags.Error(s.message());
      return 2;
    }
  }
  if (Status s = ApplyCostList(flags.Get("costs"), args.costs); !s.ok()) {
    flags.Error(s.message());
    return 2;
  }
  args.check = flags.Bool("check");
  args.check_attempts = static_cast<int>(flags.Int("check-attempts"));
  std::unique_ptr<ProfilerServer> profiler_server;
  if (std::string serve = flags.Get("serve_profiler"); !serve.empty()) {
    if (args.check) {
      flags.Error("--check needs the run's own profile; drop --serve_profiler");
      return 2;
    }
    if (serve.find(':') == std::string::npos) serve = "127.0.0.1:" + serve;
    auto started = ProfilerServer::Start(serve);
    if (!started.ok()) {
      flags.Error(started.status().message());
      return 1;
    }
    profiler_server = std::move(*started);
    std::string host = serve.substr(0, serve.rfind(':'));
    std::printf("tbprof harness: ProfilerService at %s:%d (capture with: tbprof capture --service_addr %s:%d "
                "--logdir DIR)\n",
                host.c_str(), profiler_server->port(), host.c_str(), profiler_server->port());
    std::fflush(stdout);
    args.options.self_trace = false;
    args.options.stop = &g_stop_requested;
    std::signal(SIGINT, RequestStop);
    std::signal(SIGTERM, RequestStop);
  }
  std::string temp_logdir;
  args.options.logdir = flags.Get("logdir");
  if (args.options.logdir.empty()) {
    temp_logdir = (std::filesystem::temp_directory_path() / ("tbprof-harness-logdir-" + std::to_string(::getpid())))
                      .string();
    args.options.logdir = temp_logdir;
  }
  std::vector<VariantReport> reports;
  int rc = RunVariants(args, reports);
  if (profiler_server) {
    std::fprintf(stderr, "tbprof harness: ProfilerService answered %lld capture(s)\n",
                 static_cast<long long>(profiler_server->profiles_served()));
    profiler_server.reset();
  }
  if (flags.Bool("json")) {
    std::fputs(ReportsToJson(reports, args.costs).c_str(), stdout);
  } else {
    std::fputs(ComparisonTable(reports).c_str(), stdout);
    // Each variant against the first: what it saved and where, from the profiles.
    std::fputs(VariantComparisons(reports).c_str(), stdout);
    if (temp_logdir.empty() && args.options.self_trace)
      std::printf("\nprofiles written under %s\n", args.options.logdir.c_str());
  }
  if (!flags.Get("plot").empty()) {
    std::ofstream out(flags.Get("plot"), std::ios::trunc);
    out << ThroughputSvg(reports);
    out.close();
    if (!out) {
      std::fprintf(stderr, "tbprof harness pipeline: cannot write %s\n", flags.Get("plot").c_str());
      rc = 1;
    }
  }
  if (!temp_logdir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(temp_logdir, ec);
  }
  return rc;
}

int DemoSubcommand(int argc, char** argv) {
  Flags flags("harness demo", "--logdir DIR",
              "Writes a small demo logdir: short profiles of the naive, prefetch and cache pipeline variants.");
  flags.Add("logdir", "", "where to write (required)");
  if (auto exit_code = flags.Parse(argc, argv)) return *exit_code;
  std::string logdir = flags.Get("logdir");
  if (logdir.empty() && flags.positional().size() == 1) logdir = flags.positional()[0];
  if (logdir.empty()) {
    std::fprintf(stderr, "tbprof harness demo: --logdir DIR is required\n");
    return 2;
  }
  PipelineArgs args;
  args.variants = {FindPipelineVariant("naive"), FindPipelineVariant("prefetch"), FindPipelineVariant("cache")};
  args.options.steps = 24;
  args.options.warmup_steps = 4;
  args.options.logdir = logdir;
  std::vector<VariantReport> reports;
  int rc = RunVariants(args, reports);
  std::fputs(ComparisonTable(reports).c_str(), stdout);
  std::printf("\ndemo logdir: %s\n", logdir.c_str());
  return rc;
}

// `tbprof harness gpu`: its flags, checked before anything runs.
int GpuSubcommand(int argc, char** argv) {
  Flags flags("harness gpu", "[--workload NAME|all] [--iters N] [--logdir DIR] [--check | --untraced]",
              "Runs the CUDA workloads under the CUPTI collector, writes a profile run, and reports per workload\n"
              "kernel time, TFLOP/s and TensorCore use/eligibility.");
  const GpuHarnessOptions defaults;
  const std::vector<GpuWorkloadName> workloads = GpuWorkloadNames();
  flags.Add("workload", defaults.workload, "one of the workloads below, or all");
  flags.AddInt("iters", defaults.iters, 1, 100000, "timed iterations per workload");
  flags.Add("logdir", defaults.logdir, "where the run is written: DIR/plugins/profile/<run>/<host>.xplane.pb");
  flags.Add("check", "", "verify TensorCore use/eligibility, CUPTI vs CUDA-event timing (5%) and tracing overhead (5%)",
            true);
  flags.Add("untraced", "", "run without CUPTI and write no profile (for Nsight Compute to measure the kernels)", true);
  std::string footer = "workloads:\n";
  for (const GpuWorkloadName& w : workloads) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-18s %s\n", w.name.c_str(), w.description.c_str());
    footer += line;
  }
  if (workloads.empty()) footer += "  (none: this tbprof was built without CUDA)\n";
  footer += "exit codes: 0 ok, 1 check failed, 2 usage, 3 no GPU/CUPTI (nothing run), 4 CUDA error\n";
  flags.SetHelpFooter(footer);
  if (auto exit_code = flags.Parse(argc, argv)) return *exit_code;
  if (!flags.positional().empty()) {
    flags.Error("unexpected argument '" + flags.positional()[0] + "' (see --help)");
    return gpu::kExitUsage;
  }
  GpuHarnessOptions options;
  options.workload = flags.Get("workload");
  options.iters = static_cast<int>(flags.Int("iters"));
  options.logdir = flags.Get("logdir");
  options.check = flags.Bool("check");
  options.untraced = flags.Bool("untraced");
  if (options.check && options.untraced) {
    flags.Error("--check reads the CUPTI trace, which --untraced does not take");
    return gpu::kExitUsage;
  }
  // Without CUDA there is nothing to name; the harness says so (exit 3).
  const bool known = options.workload == "all" || workloads.empty() ||
                     std::any_of(workloads.begin(), workloads.end(),
                                 [&](const GpuWorkloadName& w) { return w.name == options.workload; });
  if (!known) {
    flags.Error("unknown workload '" + options.workload + "' (see --help)");
    return gpu::kExitUsage;
  }
  return RunGpuHarness(options);
}

}  // namespace

int HarnessCommand(int argc, char** argv) {
  if (argc < 1 || !std::strcmp(argv[0], "--help") || !std::strcmp(argv[0], "-h") || !std::strcmp(argv[0], "help")) {
    PrintHarnessUsage();
    return argc < 1 ? 2 : 0;
  }
  const std::string sub = argv[0];
  if (sub == "pipeline") return PipelineSubcommand(argc - 1, argv + 1);
  if (sub == "demo") return DemoSubcommand(argc - 1, argv + 1);
  if (sub == "gpu") return GpuSubcommand(argc - 1, argv + 1);
  std::fprintf(stderr, "tbprof harness: unknown subcommand '%s'\n\n", sub.c_str());
  PrintHarnessUsage();
  return 2;
}

}  // namespace tbprof::cli
