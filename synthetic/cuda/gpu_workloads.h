// CUDA workloads for `tbprof harness gpu`: GEMMs on CUDA cores and on tensor
// cores (own WMMA kernels and cuBLAS), elementwise ops, host<->device copies
// and several streams. Plain C++ interface so harness code is compiled by the
// host compiler; the definitions live in the .cu files beside this header.
#pragma once

#include <string>
#include <vector>

#include "convert/base/status.h"

namespace tbprof::gpu {

// Receives TF-style op scopes ("model/dense/MatMul:MatMul") around launches;
// the harness forwards them to the CUPTI collector.
class OpAnnotator {
 public:
  virtual ~OpAnnotator() = default;
  virtual void Push(const char* op_fullname) = 0;
  virtual void Pop() = 0;
};

struct WorkloadInfo {
  std::string name;
  std::string description;
  // The op whose kernels are timed against CUDA events and whose FLOPs give
  // TFLOP/s; empty for copy-only workloads.
  std::string main_op;
  bool expects_tensor_core = false;  // kernels of main_op run on tensor cores
  bool check_kernel_names = true;    // our own kernels, named after what they do
  int min_compute_major = 7;
};

struct WorkloadRun {
  int iters = 0;
  double flops_per_iter = 0;  // of main_op
  double bytes_per_iter = 0;  // copies
  double event_ms = 0;        // CUDA-event time around the annotated main_op launches
  std::string skipped;        // non-empty: not run, and why
};

const std::vector<WorkloadInfo>& Workloads();

// Runs one workload on device 0. A warm-up iteration runs first with no op
// scope, so timed kernels are exactly those under main_op.
Status RunWorkload(const std::string& name, int iters, OpAnnotator& annotator, WorkloadRun& out);

// `count` small elementwise kernels back to back on one stream, then a sync;
// wall-clock seconds of the whole loop (for the tracing-overhead check).
Status RunSmallKernelLoop(int count, double& seconds);

// Compute capability of device 0 (initialises the CUDA runtime).
Status DeviceComputeCapability(int& major, int& minor, std::string& name);

}  // namespace tbprof::gpu
