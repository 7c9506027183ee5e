#include <cstdint>
#include <cstdio>

#include "cli/commands.h"
#include "cli/flags.h"
#include "synthetic/profile_generator.h"

namespace tbprof::cli {

int SynthCommand(int argc, char** argv) {
  Flags flags("synth", "--out DIR [flags]",
              "Writes a synthetic TF GPU training profile (deterministic for a seed) as a logdir:\n"
              "DIR/plugins/profile/<run>/<host>.xplane.pb, one file per host.");
  flags.Add("out", "",
            "logdir to write (required), not a run folder: the run goes to DIR/plugins/profile/<--run>/, and DIR "
            "is what `tbprof serve --logdir` takes");
  flags.AddInt("hosts", 1, 1, 4096, "number of hosts (one .xplane.pb each)");
  flags.AddInt("gpus", 1, 0, 64, "GPUs per host (/device:GPU:<n> planes)");
  flags.AddInt("steps", 10, 1, 10000000, "training steps");
  flags.AddInt("events", 100000, 1, INT64_MAX, "approximate number of events per host");
  flags.AddInt("seed", 1, INT64_MIN, INT64_MAX, "random seed");
  flags.Add("run", "synthetic", "run folder name under plugins/profile/");
  flags.Require("out");
  if (auto exit_code = flags.Parse(argc, argv)) return *exit_code;
  if (!flags.positional().empty()) {
    flags.Error("no positional arguments are taken (see --help)");
    return 2;
  }
  SynthOptions o;
  o.out_dir = flags.Get("out");
  o.run = flags.Get("run");
  o.hosts = static_cast<int>(flags.Int("hosts"));
  o.gpus = static_cast<int>(flags.Int("gpus"));
  o.steps = static_cast<int>(flags.Int("steps"));
  o.events = flags.Int("events");
  o.seed = static_cast<uint64_t>(flags.Int("seed"));
  auto paths = GenerateSyntheticLogdir(o);
  if (!paths.ok()) {
    flags.Error(paths.status().message());
    return 1;
  }
  for (const std::string& p : *paths) std::printf("%s\n", p.c_str());
  return 0;
}

}  // namespace tbprof::cli
