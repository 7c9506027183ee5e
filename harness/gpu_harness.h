// `tbprof harness gpu [--workload NAME|all] [--iters N] [--logdir DIR] [--check]`:
// runs the CUDA workloads under the CUPTI collector, writes a profile run, and
// reports per workload kernel time, TFLOP/s and TensorCore use/eligibility.
//
// Exit codes: 0 ok, 1 a --check failed, 2 bad usage, 3 no GPU / CUPTI / CUDA
// build (nothing was run), 4 a CUDA error while running.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "convert/model/xspace_model.h"

namespace tbprof {

// argv holds the flags after `harness gpu` (leading "harness"/"gpu" words are skipped).
int RunGpuHarness(int argc, char** argv);

namespace gpu {

inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNoGpu = 3;
inline constexpr int kExitCudaError = 4;

// One device kernel as kernel_stats would read it from a profile, with
// kernel_stats' own TensorCore rules (convert/analysis/op_names/tf_op_utils.h).
struct KernelRow {
  std::string name, op_name;  // op_name: tf_op up to the first ':'
  int64_t duration_ps = 0;
  uint64_t correlation_id = 0;
  int64_t stream_id = 0;
  bool uses_tensor_core = false, op_eligible = false;
};
// Kernels of every `/device:GPU:` plane: non-derived lines, non-zero
// duration, non-empty kernel_details.
std::vector<KernelRow> KernelRowsFromModel(const XSpaceModel& model);

}  // namespace gpu
}  // namespace tbprof
