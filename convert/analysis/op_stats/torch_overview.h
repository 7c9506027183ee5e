// The overview torch-tb-profiler computed for a PyTorch trace, from the model
// the Kineto importer filled (it reads the events' `kineto_category`):
//  - steps: each host ProfilerStep#N, moved to device time (it starts at the
//    previous step's end and ends with the last device op launched inside it);
//    trailing steps that launched nothing (or under 80 % of the previous
//    step's device ops) are dropped, as the profiler may have cut them short;
//  - the step breakdown by priority: each instant of a step counts once, for
//    the first of Kernel, Memcpy, Memset, Runtime, DataLoader, CPU Exec that
//    covers it, and Other for the rest, so the parts sum to the step;
//  - per GPU, over [first step start, last step end]: utilization (time with
//    a kernel running), estimated SM efficiency (Σ blocks per SM of the
//    running kernels, capped at 1, time-weighted) and estimated achieved
//    occupancy (kernel-time-weighted).
// Deliberate differences: the gpu_user_annotation copy of ProfilerStep#N is
// not a second step, and a DataLoader span recorded as a user_annotation (as
// PyTorch ≥1.10 writes it) counts as DataLoader, not nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/analysis/op_stats/xplane_to_step_events.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

// The breakdown categories, in priority order (Other last). Communication
// is ours, beside torch-tb-profiler's seven: NCCL / RCCL kernels (time a
// compute kernel overlaps stays Kernel) and host collective ops (`nccl:*`,
// `c10d::*`), which that plugin counted as Kernel and CPU Exec.
enum TorchRole { kTorchKernel, kTorchCommunication, kTorchMemcpy, kTorchMemset, kTorchRuntime, kTorchDataLoader,
                 kTorchCpuExec, kTorchOther, kTorchRoles };
inline constexpr const char* kTorchRoleNames[kTorchRoles] = {"Kernel",  "Communication", "Memcpy",   "Memset",
                                                             "Runtime", "DataLoader",    "CPU Exec", "Other"};

// Whether a kernel's name is a collective's (NCCL's, or RCCL's under its own
// or NCCL's name), and whether a host op's name is one.
bool IsCommunicationKernel(std::string_view kernel_name);
bool IsCommunicationOp(std::string_view op_name);

struct TorchStep {
  std::string name;  // "5" for ProfilerStep#5
  int64_t number = 0;
  int64_t begin_ps = 0, end_ps = 0;
  int64_t role_ps[kTorchRoles] = {};
  // The instants each role was given (disjoint across roles; Other included).
  std::vector<std::pair<int64_t, int64_t>> role_ranges[kTorchRoles];
  // The part of Communication a collective kernel ran in (the rest is host time in a collective call).
  std::vector<std::pair<int64_t, int64_t>> device_communication;
};

// The precision of a kernel's arithmetic, as its name or its op's input types tell.
enum class TorchPrecision { kUnknown, k16Bit, k32Bit };
// By the types a kernel's name spells (bf16, fp16, half, fp8, int8 kernels:
// 16-bit or less; float, f32, tf32, sgemm, double: 32-bit or more); unknown
// when it spells none (nvjet_*, triton_*, ncclKernel).
TorchPrecision PrecisionOfKernelName(std::string_view kernel_name);
// By an op's `Input type` arg (["c10::BFloat16", "float", ""]): 16-bit if any
// input is a 16-bit or 8-bit float, else 32-bit if any is a float or double,
// else unknown (integers, bools, no tensor).
TorchPrecision PrecisionOfInputTypes(std::string_view input_types);

struct TorchGpuMetrics {
  int64_t device = 0;
  double utilization = 0;                    // of the steps' time
  std::optional<double> sm_efficiency;       // none without "blocks per SM"
  std::optional<double> achieved_occupancy;  // none without occupancy figures
};

struct TorchOverview {
  std::vector<TorchStep> steps;
  double average_step_ps = 0;
  double average_role_ps[kTorchRoles] = {};
  bool has_device_ops = false;  // kernels, copies or sets: the GPU columns apply
  std::vector<TorchGpuMetrics> gpus;
  // Compute kernels' time within the steps by precision (the kernel's name,
  // else its op's input types); kUnknown where neither tells.
  int64_t kernel_ps_of_precision[3] = {};
};

// Whether the model came from the Kineto importer.
bool IsKinetoModel(const XSpaceModel& space);

TorchOverview ComputeTorchOverview(const XSpaceModel& space);

// The steps as the step events OpStats' step table is built from, so the
// overview and the input pipeline analysis show torch-tb-profiler's steps.
// Role → event type: Kernel → device compute (32-bit in the step table; the
// precision split is kernel_ps_of_precision's), Communication → device collectives where a collective kernel ran, host compute
// for the rest (the host in a collective call), Memcpy and Memset → device to device, Runtime → host prepare
// (xprof's kernel launch), DataLoader → host wait input (input), CPU Exec →
// host compute, Other → unknown. Each step is its own device marker.
StepEvents TorchStepEvents(const TorchOverview& overview);

// The steps in torch-tb-profiler's categories, in its column order.
TorchStepTable TorchStepTableOf(const TorchOverview& overview);

// The overview's GPU figures in percent: each the mean over the GPUs that
// have it; absent when no GPU has it.
TorchGpuSummary TorchGpuSummaryOf(const TorchOverview& overview);

}  // namespace tbprof
