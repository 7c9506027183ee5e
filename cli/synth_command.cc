#include <cstdio>

#include "cli/commands.h"
#include "cli/flags.h"
#include "synthetic/profile_generator.h"

namespace tbprof::cli {

int SynthCommand(int argc, char** argv) {
  Flags flags("synth", "--out DIR [flags]",
              "Writes a synthetic TF GPU training profile (deterministic for a seed) as a logdir:\n"
              "DIR/plugins/profile/<run>/<host>.xplane.pb, one file per host.");
  flags.Add("out", "", "logdir to write (required)");
  flags.Add("hosts", "1", "number of hosts (one .xplane.pb each)");
  flags.Add("gpus", "1", "GPUs per host (/device:GPU:<n> planes)");
  flags.Add("steps", "10", "training steps");
  flags.Add("events", "100000", "approximate number of events per host");
  flags.Add("seed", "1", "random seed");
  flags.Add("run", "synthetic", "run folder name under plugins/profile/");
  if (!flags.Parse(argc, argv)) return 2;
  if (flags.wants_help()) {
    flags.PrintHelp();
    return 0;
  }
  if (flags.Get("out").empty() || !flags.positional().empty()) {
    std::fprintf(stderr, "tbprof synth: --out DIR is required and no positional arguments are taken (see --help)\n");
    return 2;
  }
  SynthOptions o;
  o.out_dir = flags.Get("out");
  o.run = flags.Get("run");
  int64_t hosts, gpus, steps, events, seed;
  if (!flags.Int("hosts", hosts) || !flags.Int("gpus", gpus) || !flags.Int("steps", steps) ||
      !flags.Int("events", events) || !flags.Int("seed", seed)) {
    return 2;
  }
  if (hosts < 1 || hosts > 4096 || gpus < 0 || gpus > 64 || steps < 1 || steps > 10000000 || events < 1) {
    std::fprintf(stderr, "tbprof synth: need 1 <= --hosts <= 4096, 0 <= --gpus <= 64, --steps >= 1, --events >= 1\n");
    return 2;
  }
  o.hosts = static_cast<int>(hosts);
  o.gpus = static_cast<int>(gpus);
  o.steps = static_cast<int>(steps);
  o.events = events;
  o.seed = static_cast<uint64_t>(seed);
  auto paths = GenerateSyntheticLogdir(o);
  if (!paths.ok()) {
    std::fprintf(stderr, "tbprof synth: %s\n", paths.status().message().c_str());
    return 1;
  }
  for (const std::string& p : *paths) std::printf("%s\n", p.c_str());
  return 0;
}

}  // namespace tbprof::cli
