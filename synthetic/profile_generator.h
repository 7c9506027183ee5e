// Synthetic profiles that look like a real TF/JAX GPU training job, of any
// size, deterministic for a seed. Written straight to disk plane by plane so a
// 10M-event host file is never held in memory twice.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "convert/base/status.h"

namespace tbprof {

struct SynthOptions {
  std::string out_dir;          // logdir; files go to <out_dir>/plugins/profile/<run>/<host>.xplane.pb
  std::string run = "synthetic";  // run folder name
  int hosts = 1;
  int gpus = 1;                  // GPU planes per host
  int steps = 10;                // training steps
  int64_t events = 100000;       // approximate total events per host
  uint64_t seed = 1;
  // Encoded lines of a plane kept in memory before they spill to a temporary file.
  uint64_t spill_bytes = uint64_t{64} << 20;
};

// Writes one host's XSpace (host index `host` of options.hosts) to `out`.
Status WriteSyntheticXSpace(const SynthOptions& options, int host, std::ostream& out);

// Writes every host of the run; returns the paths written.
StatusOr<std::vector<std::string>> GenerateSyntheticLogdir(const SynthOptions& options);

}  // namespace tbprof
