// Section 9 of trace_analysis, `op_roofline`: per PyTorch operator (and the
// shapes and dtypes it ran with, as TraceLens's perf report groups them), its
// GPU kernel time, FLOPs and bytes (op_shape_cost.h, or the profiler's own
// `flops` arg where `with_flops` recorded it), achieved TFLOP/s and
// arithmetic intensity against the device's peaks.
//
// A kernel's time goes to the op that launched it: the innermost enclosing
// cpu_op of its launch (linked by correlation id, as trace_analysis_kernels
// reads the rank's device ops and their launches) that has a cost formula,
// else the innermost enclosing cpu_op (whose cost is then unknown), so an
// aten::linear's kernels count once, for the aten::addmm inside it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "convert/analysis/device/device_peaks.h"
#include "convert/analysis/trace_analysis/trace_analysis_kernels.h"
#include "convert/model/xspace_model.h"

namespace tbprof::trace_analysis {

struct OpRooflineRow {
  std::string op;
  std::string input_dims, input_types;  // as recorded ("" when absent)
  int64_t count = 0;                    // op calls that launched kernels
  int64_t kernel_ps = 0;                // their kernels' GPU time
  std::optional<double> flops, bytes;   // all calls together; unknown when any call's is
};

struct OpRoofline {
  bool pytorch = false;  // false: not a PyTorch trace, no rows
  DevicePeaks peaks;
  std::vector<OpRooflineRow> rows;  // by kernel time, longest first
};

// `rank`: the same model's GPU work (ExtractRankKernels).
OpRoofline ComputeOpRoofline(const XSpaceModel& space, const RankKernels& rank);

// `"op_roofline":{...}` for the given ranks' results (ALL_HOSTS: side by
// side), appended to `out`.
void AppendOpRooflineJson(const std::vector<std::pair<int, const OpRoofline*>>& ranks, std::string& out);

}  // namespace tbprof::trace_analysis
