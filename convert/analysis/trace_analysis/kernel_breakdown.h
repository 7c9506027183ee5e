// Section 2 of trace_analysis: the kernel types and their overlap classes
// (HTA's get_gpu_kernel_breakdown with memory kernels included): time in
// which exactly one set of types runs ("COMPUTATION", "COMPUTATION
// overlapping COMMUNICATION", …, named in HTA's order), each class's share of
// the time any device op runs; and per kernel name its count, total, mean,
// min, max and sample standard deviation, the largest totals first.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "convert/analysis/trace_analysis/trace_analysis_kernels.h"

namespace tbprof::trace_analysis {

// An overlap class: a set of kernel types, bit 1 << KernelType.
inline constexpr int kNumOverlapClasses = 1 << kNumKernelTypes;
std::string OverlapClassName(int mask);

struct KernelNameStats {
  uint32_t name = 0;  // into RankKernels::names
  int64_t count = 0, sum_ps = 0, min_ps = 0, max_ps = 0;
  double mean_us = 0, stddev_us = 0;  // stddev with n-1 (pandas' std), 0 for one kernel
};

struct KernelBreakdown {
  int64_t rank = 0;
  std::string host;  // the rank's host: two hosts may state one rank
  std::array<int64_t, kNumOverlapClasses> class_ps{};  // [0] unused: nothing runs
  std::array<bool, kNumOverlapClasses> class_seen{};    // some time (maybe none) was in the class
  std::array<std::vector<KernelNameStats>, kNumKernelTypes> kernels;  // by sum_ps, largest first
  // Every kernel name's text by KernelNameStats::name (RankKernels::names'
  // order), owned: the breakdown outlives the model (a summary keeps it).
  std::vector<std::string> names;
};

// Time per overlap class of the per-type unions (one sweep over their boundaries).
void OverlapClassTimes(const MergedKernels& merged, std::array<int64_t, kNumOverlapClasses>& class_ps,
                       std::array<bool, kNumOverlapClasses>& seen);

KernelBreakdown ComputeKernelBreakdown(const RankKernels& rank, const MergedKernels& merged);

// `"kernel_breakdown": {...}`: every class of each rank, and per type its
// `top` largest kernels, the rest summed as one row named "others" (as HTA).
void AppendKernelBreakdownJson(std::string& out, const std::vector<KernelBreakdown>& rows, size_t top);

}  // namespace tbprof::trace_analysis
