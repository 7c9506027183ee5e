// `tbprof harness gpu` (its flags are the CLI's, cli/harness_command.cc): runs
// the CUDA workloads under the CUPTI collector, writes a profile run, and
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

struct GpuHarnessOptions {
  std::string workload = "all";  // a name of GpuWorkloadNames(), or all
  int iters = 10;                // timed iterations per workload
  std::string logdir = "tbprof_gpu_logdir";
  // Verify TensorCore use/eligibility, CUPTI against CUDA-event timing and
  // the tracing overhead.
  bool check = false;
  // Run the workloads with no CUPTI collector and write no profile, so that
  // a profiler of its own (Nsight Compute, which takes CUPTI for itself) can
  // measure the kernels; TFLOP/s from CUDA events only.
  bool untraced = false;
};

// Runs the harness; an exit code below.
int RunGpuHarness(const GpuHarnessOptions& options);

struct GpuWorkloadName {
  std::string name, description;
};
// The workloads the harness runs; none when tbprof was built without CUDA.
std::vector<GpuWorkloadName> GpuWorkloadNames();

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
