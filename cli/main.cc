#include <cstdio>
#include <cstring>

#include "cli/commands.h"

namespace tbprof::cli {
namespace {

// Commands register here; the help below lists them in this order.
const Command kCommands[] = {
    {"inspect", "print the planes, lines, events and stats of an .xplane.pb", InspectCommand},
    {"convert", "convert an .xplane.pb into one tool's output (JSON/CSV)", ConvertCommand},
    {"compare", "compare two runs (steps, ops, kernels, input, memory); --fail-if gates CI", CompareCommand},
    {"serve", "serve a logdir to TensorBoard's profile frontend (xprof-compatible HTTP API)", ServeCommand},
    {"synth", "write a synthetic GPU training profile (logdir) of any size", SynthCommand},
    {"capture", "capture a profile from running jobs' profiler servers into a new run of a logdir", CaptureCommand},
    {"summarize", "write each profile file's summary (a run's ALL_HOSTS pages then load no profile); --shard I/N", SummarizeCommand},
    {"tfprof", "TensorFlow tfprof's scope/op/code/graph views and advisor over a profile", TfprofCommand},
    {"harness", "run profiling workloads (tf.data-like pipelines) and write their profiles", HarnessCommand},
};

void PrintUsage() {
  std::printf(
      "tbprof: a native TensorBoard profile server, converter and profiling harness\n\n"
      "usage: tbprof <command> [flags]\n\ncommands:\n");
  for (const Command& c : kCommands) std::printf("  %-10s %s\n", c.name, c.summary);
  std::printf("\nRun 'tbprof <command> --help' for the flags of a command.\n");
}

}  // namespace
}  // namespace tbprof::cli

int main(int argc, char** argv) {
  using namespace tbprof::cli;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    PrintUsage();
    return argc < 2 ? 2 : 0;
  }
  for (const Command& c : kCommands) {
    if (!std::strcmp(argv[1], c.name)) return c.run(argc - 2, argv + 2);
  }
  std::fprintf(stderr, "tbprof: unknown command '%s'\n\n", argv[1]);
  PrintUsage();
  return 2;
}
