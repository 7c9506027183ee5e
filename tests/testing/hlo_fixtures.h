// HLO modules as XLA leaves them in a profile: an HloProto per program on the
// /host:metadata plane (event metadata id = program id, stat "Hlo Proto").
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "proto/hlo.pb.h"
#include "proto/xplane.pb.h"

namespace tbprof::hlo_test {

// Adds the /host:metadata plane holding `modules` (program id, module).
void AddMetadataPlane(tensorflow::profiler::XSpace& space,
                      const std::vector<std::pair<int64_t, xla::HloProto>>& modules);

// Module `name` whose entry computation "main" is a chain: parameter p0, then
// op.1 … op.<n>, each negating the one before; every op carries an op name
// (jit(f)/neg) and a source line.
xla::HloProto ChainModule(const std::string& name, int n);

}  // namespace tbprof::hlo_test
