// tbprof compare A B: what changed from run A (the baseline) to run B, as a
// terminal table, JSON or CSV, with --fail-if thresholds for CI.
#include <sys/stat.h>

#include <cstdio>
#include <exception>
#include <fstream>
#include <string>

#include "cli/commands.h"
#include "cli/flags.h"
#include "convert/analysis/compare/comparison_output.h"
#include "convert/analysis/compare/regression_check.h"
#include "convert/base/strings.h"
#include "convert/load/profile_file.h"
#include "convert/tools/compare_tools.h"
#include "plugin/logdir.h"

namespace tbprof::cli {
namespace {

// Exit codes (also in --help and the README).
constexpr int kExitCrossed = 1;      // a --fail-if threshold was crossed
constexpr int kExitUsage = 2;        // bad flags or --fail-if expression
constexpr int kExitUndecidable = 3;  // a --fail-if figure is unknown in a run, or its name in neither
constexpr int kExitUnreadable = 4;   // a run could not be read

constexpr const char* kHelpFooter =
    "A and B are each a run directory (…/plugins/profile/<run>, or a directory of PyTorch traces), a\n"
    "logdir holding a single run, or one profile file (<host>.xplane.pb[.gz], a PyTorch trace\n"
    "<worker>.<span>.pt.trace.json[.gz] or another Kineto .json[.gz], or a legacy <host>.overview_page.pb,\n"
    "input_pipeline.pb, tensorflow_stats.pb, kernel_stats.pb). A is the baseline: every delta is B - A.\n"
    "Two spans of one worker or two hosts of one run: give the two files, or the run twice with --host\n"
    "and --base_host.\n\n"
    "--step N (and --base_step M): also compare the host events of step N of B with those of step M of A\n"
    "  (M = N when not given): every host-plane event that begins inside the step (operators,\n"
    "  annotations, runtime calls, any thread), by name, with its count and total time, as HTA's trace\n"
    "  diff does for a PyTorch iteration (ProfilerStep#N).\n\n"
    "--fail-if EXPR (repeatable): EXPR is SUBJECT>THRESHOLD or SUBJECT<THRESHOLD, where SUBJECT is\n"
    "  step_time, a step category (input, host_compute, device_compute, kernel_launch,\n"
    "  device_collectives, device_to_device, output, compile, other; on TPU tc_compute, scv0_compute,\n"
    "  tc_infeed, tc_outfeed, scv0_infeed, tc_idle, host_transfer: per-step averages),\n"
    "  op:NAME (framework ops of that name, summed), hlo:NAME, kernel:NAME or event:NAME (host events\n"
    "  of that name in the --step compared), and THRESHOLD a signed\n"
    "  number with %, ms or us, e.g. 'step_time>+5%', 'op:MatMul>+2ms', 'kernel:volta_sgemm>+10%'.\n"
    "  An op in one run only took no time in the other (a % of a zero baseline is infinite).\n\n"
    "exit codes: 0 compared (every --fail-if check passed); 1 a --fail-if threshold was crossed;\n"
    "  2 bad flags or expression; 3 a --fail-if figure is unknown in a run, or its name is in neither\n"
    "  run (and none was crossed); 4 a run could not be read.";

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool EndsWith(const std::string& s, std::string_view suffix) { return std::string_view(s).ends_with(suffix); }

// The files compare reads from one run directory (a logdir with one run is taken as that run).
StatusOr<CompareSide> SideOfDirectory(const std::string& dir, const std::string& host) {
  ASSIGN_OR_RETURN(Logdir logdir, Logdir::Open(dir));
  RunContents contents = logdir.ScanRun(logdir.root());
  if (contents.profiles.empty() && contents.legacy.empty()) {
    ASSIGN_OR_RETURN(auto runs, logdir.ListRuns(RunScope{}));
    if (runs.size() != 1) {
      std::string names;
      for (const RunRef& r : runs) names += " " + r.name;
      return InvalidArgument(dir + ": not a run directory, and holds " + std::to_string(runs.size()) +
                             " runs (name one of their directories):" + names);
    }
    contents = logdir.ScanRun(runs.front().dir);
  }
  CompareSide side;
  // A PyTorch run's trace files are spans (or workers), compared one at a
  // time as the server does: without --host, the first.
  const bool first_trace_only = host.empty() && !contents.profiles.empty() &&
                                contents.profiles.front().suffix.starts_with("pt.trace.json");
  for (const RunFile& f : contents.profiles) {
    if (first_trace_only && !side.profile_paths.empty()) break;
    if (host.empty() || f.host == host) {
      side.hosts.push_back(f.host);
      side.profile_paths.push_back(f.path);
    }
  }
  if (contents.profiles.empty()) {
    for (const RunFile& f : contents.legacy) {
      if (!CompareReadsLegacySuffix(f.suffix)) continue;
      if (host.empty() ? (side.hosts.empty() || f.host == side.hosts.front()) : f.host == host) {
        if (side.hosts.empty()) side.hosts.push_back(f.host);
        side.legacy_paths.push_back(f.path);
      }
    }
  }
  if (side.profile_paths.empty() && side.legacy_paths.empty()) {
    return NotFound(dir + ": no profile that compare reads" + (host.empty() ? "" : " for host " + host));
  }
  return side;
}

StatusOr<CompareSide> SideOf(const std::string& path, const std::string& host) {
  if (IsDirectory(path)) return SideOfDirectory(path, host);
  CompareSide side;
  std::string base = path.substr(path.find_last_of('/') + 1);
  if (EndsWith(base, ".xplane.pb") || EndsWith(base, ".xplane.pb.gz")) {
    side.hosts.push_back(base.substr(0, base.find(".xplane.pb")));
    side.profile_paths.push_back(path);
    return side;
  }
  // A PyTorch trace: one span of one worker, named as the server names it.
  if (IsKinetoTraceFileName(base) || (IsJsonFileName(base) && FileLooksLikeKinetoTrace(path))) {
    size_t cut = base.find(IsKinetoTraceFileName(base) ? ".pt.trace.json" : ".json");
    side.hosts.push_back(base.substr(0, cut));
    side.profile_paths.push_back(path);
    return side;
  }
  for (std::string_view suffix : {"overview_page.pb", "input_pipeline.pb", "tensorflow_stats.pb", "kernel_stats.pb"}) {
    if (EndsWith(base, suffix)) {
      side.legacy_paths.push_back(path);
      return side;
    }
  }
  return InvalidArgument(path + ": neither a run directory nor a profile file compare reads");
}

bool WriteOut(const std::string& dest, const std::string& body) {
  if (dest == "-") {
    std::fwrite(body.data(), 1, body.size(), stdout);
    if (!body.empty() && body.back() != '\n') std::fputc('\n', stdout);
    return true;
  }
  std::ofstream f(dest, std::ios::binary);
  f.write(body.data(), static_cast<std::streamsize>(body.size()));
  return static_cast<bool>(f);
}

// Runs the checks, reporting each on stderr; the exit code they give.
int RunChecks(const std::vector<RegressionCheck>& checks, const RunComparison& c) {
  bool crossed = false, undecidable = false;
  for (const RegressionCheck& check : checks) {
    CheckOutcome o = EvaluateRegressionCheck(check, c);
    const char* verdict = o.result == CheckOutcome::Result::kCrossed       ? "FAIL"
                          : o.result == CheckOutcome::Result::kUndecidable ? "UNKNOWN"
                                                                           : "ok";
    std::fprintf(stderr, "tbprof compare: %s %s\n", verdict, o.message.c_str());
    crossed |= o.result == CheckOutcome::Result::kCrossed;
    undecidable |= o.result == CheckOutcome::Result::kUndecidable;
  }
  return crossed ? kExitCrossed : undecidable ? kExitUndecidable : 0;
}

}  // namespace

int CompareCommand(int argc, char** argv) {
  Flags flags("compare", "A B [--tool LIST] [--format table|json|csv] [--fail-if EXPR …]",
              "Compares run B with run A (the baseline): step time and its breakdown, framework ops,\n"
              "HLO ops and kernels (matched by name and type, largest change first), input-pipeline\n"
              "stages and tf.data bottleneck, memory peak. Unknown figures stay unknown ('--').");
  flags.Add("tool", "", "tools whose figures to compare, comma-separated (overview_page, input_pipeline_analyzer,\n"
            "      framework_op_stats, hlo_stats, kernel_stats, memory_profile, tf_data_bottleneck_analysis);\n"
            "      all by default");
  flags.Add("format", "table", "table, json or csv");
  flags.Add("align", "average", "steps: average (per-step averages), step_number or order (step by step)");
  flags.Add("host", "", "B's host (default: every host of the run, combined)");
  flags.Add("base_host", "", "A's host (default: every host of the run, combined)");
  flags.Add("step", "", "B's step whose host events to compare (see below)");
  flags.Add("base_step", "", "A's step whose host events to compare (default: --step)");
  flags.AddInt("top", 20, 1, 1000000, "rows of each op and kernel table in the terminal table");
  flags.Add("fail-if", "", "a regression threshold (see below); may be repeated");
  flags.JoinRepeats("fail-if", "\n");
  flags.Add("out", "-", "output file, or - for standard output");
  flags.SetHelpFooter(kHelpFooter);
  if (auto exit_code = flags.Parse(argc, argv)) return *exit_code;
  if (flags.positional().size() != 2) {
    flags.Error("need two runs, A (the baseline) and B (see --help)");
    return kExitUsage;
  }
  const std::string format = flags.Get("format");
  if (format != "table" && format != "json" && format != "csv") {
    flags.Error("--format must be table, json or csv");
    return kExitUsage;
  }
  auto alignment = StepAlignmentFromName(flags.Get("align"));
  if (!alignment) {
    flags.Error("--align must be average, step_number or order");
    return kExitUsage;
  }
  auto sections = CompareSectionsOf(flags.Get("tool"));
  if (!sections.ok()) {
    flags.Error(sections.status().message());
    return kExitUsage;
  }
  auto steps = CompareStepsOf(flags.Get("base_step"), flags.Get("step"));
  if (!steps.ok()) {
    flags.Error(steps.status().message());
    return kExitUsage;
  }
  std::vector<RegressionCheck> checks;
  for (std::string_view text : SplitNonEmpty(flags.Get("fail-if"), '\n')) {
    auto check = ParseRegressionCheck(text);
    if (!check.ok()) {
      flags.Error(check.status().message());
      return kExitUsage;
    }
    checks.push_back(std::move(*check));
  }
  const std::string& path_a = flags.positional()[0];
  const std::string& path_b = flags.positional()[1];
  // One cache for both runs, so each file is loaded once for all the tools compared.
  ArtifactCache cache(size_t{4} << 30);
  StatusOr<RunComparison> comparison = Internal("not run");
  std::vector<std::string> hosts_a, hosts_b;
  try {
    comparison = [&]() -> StatusOr<RunComparison> {
      ASSIGN_OR_RETURN(CompareSide a, SideOf(path_a, flags.Get("base_host")));
      ASSIGN_OR_RETURN(CompareSide b, SideOf(path_b, flags.Get("host")));
      a.step = steps->a;
      b.step = steps->b;
      hosts_a = a.hosts;
      hosts_b = b.hosts;
      ASSIGN_OR_RETURN(RunFigures fa, LoadRunFigures(a, *sections, &cache));
      ASSIGN_OR_RETURN(RunFigures fb, LoadRunFigures(b, *sections, &cache));
      return CompareRuns(fa, fb, *alignment);
    }();
  } catch (const std::exception& e) {
    comparison = Internal(std::string("comparison failed: ") + e.what());
  }
  if (!comparison.ok()) {
    flags.Error(comparison.status().message());
    return kExitUnreadable;
  }
  // A run directory compared by one host (named, or a PyTorch run's first trace) says which.
  auto label = [&](const std::string& path, const std::vector<std::string>& hosts) {
    return IsDirectory(path) && hosts.size() == 1 && !hosts.front().empty() ? path + " (" + hosts.front() + ")" : path;
  };
  const std::string label_a = label(path_a, hosts_a), label_b = label(path_b, hosts_b);
  std::string body = format == "json"  ? ComparisonToJson(*comparison, label_a, label_b)
                     : format == "csv" ? ComparisonToCsv(*comparison)
                                       : ComparisonToText(*comparison, label_a, label_b,
                                                          static_cast<size_t>(flags.Int("top")));
  if (!WriteOut(flags.Get("out"), body)) {
    flags.Error("cannot write " + flags.Get("out"));
    return kExitUnreadable;
  }
  return RunChecks(checks, *comparison);
}

}  // namespace tbprof::cli
