// XSpaces built in code for the grouping tests and for tests that check
// what a load must keep for grouping (ops_projection_test.cc).
#pragma once

#include <cstdint>

#include "proto/xplane.pb.h"
#include "proto/xspace_builder.h"

namespace tbprof::grouping_test {

// tsl's ContextType of a TensorCore's offload to a SparseCore.
constexpr int64_t kScOffload = 17;

// A host's launch of a TPU program: what names the launch for xprof's
// preprocessing (device ordinal, queue, run id; core type 0, a TensorCore).
void AddLaunch(XLineBuilder& line, int64_t begin, int64_t duration, int64_t run_id, int64_t ordinal,
               int64_t queue = 0);

// xla's MergeHostStepsTest: the host's step "train" launches four programs
// that the TPU ran as four modules, each its own step, each offloading to a
// SparseCore.
tensorflow::profiler::XSpace MergeHostStepsSpace();

// One TF step, in µs: an op run eagerly (a/add:AddV2, 20-380, launching
// add_kernel, 1000-1100 on the GPU) and an op of a function called eagerly
// (b/mul:Mul, 510-890, launching mul_kernel, 1200-1500).
tensorflow::profiler::XSpace EagerAndFunctionSpace();

}  // namespace tbprof::grouping_test
