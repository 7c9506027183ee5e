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
//
// The roofs come from the GPU's datasheet (gpu_datasheets.h; the memory
// roof from the profile where it states one). Each op is held to one compute
// peak, chosen by its formula and dtype after PyTorch's defaults: GEMMs and
// attention on the tensor cores of their half-precision type, FP32 ones on
// the CUDA cores (torch.backends.cuda.matmul.allow_tf32 is off by default);
// FP32 convolutions as TF32 where the GPU has it (torch.backends.cudnn.
// allow_tf32 is on); elementwise ops on the FP32 CUDA cores whatever their
// dtype, since the datasheets state no vector half-precision rate: a lower
// compute roof only lowers the ridge point, so an op it finds memory bound is
// memory bound under the true roof too. An unknown device, dtype or shape
// leaves the roof and the bound unknown.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "convert/analysis/device/device_peaks.h"
#include "convert/analysis/trace_analysis/op_shape_cost.h"
#include "convert/analysis/trace_analysis/trace_analysis_kernels.h"
#include "convert/model/xspace_model.h"

namespace tbprof::trace_analysis {

struct OpRooflineRow {
  std::string op;
  std::string input_dims, input_types;  // as recorded ("" when absent)
  int64_t count = 0;                    // op calls that launched kernels
  int64_t kernel_ps = 0;                // their kernels' GPU time
  std::optional<double> flops, bytes;   // all calls together; unknown when any call's is
  CostClass cost_class = CostClass::kNone;
  FloatType float_type = FloatType::kNone;  // of its first tensor argument
};

enum class RoofPrecision { kUnknown, kFp32, kTf32, kFp16, kBf16 };
std::string_view RoofPrecisionName(RoofPrecision p);  // "fp32", "tf32", "fp16", "bf16"; "" when unknown

// One op's place under the roofs; every figure unknown where an input is.
struct OpRoofs {
  RoofPrecision precision = RoofPrecision::kUnknown;
  std::optional<double> achieved_tflops;       // FLOPs over its kernel time
  std::optional<double> arithmetic_intensity;  // FLOPs per byte
  std::optional<double> compute_roof_tflops;   // the precision's peak
  std::optional<double> memory_roof_tflops;    // intensity × memory bandwidth
  std::optional<double> roof_tflops;           // the lower of the two
  std::optional<double> ridge_intensity;       // where they meet, FLOPs per byte
  std::optional<double> roof_pctg;             // achieved as a share of the roof
  std::string_view bound;                      // "compute", "memory"; "" unknown
};

// The memory bandwidth the roofs use, GB/s: the profile's, else the datasheet's; unknown without either.
std::optional<double> MemoryRoofGbps(const DevicePeaks& peaks);
OpRoofs RoofsOf(const OpRooflineRow& row, const DevicePeaks& peaks);

struct OpRoofline {
  bool pytorch = false;  // false: not a PyTorch trace, no rows
  DevicePeaks peaks;
  std::vector<OpRooflineRow> rows;  // by kernel time, longest first
};

// `rank`: the same model's GPU work (ExtractRankKernels).
OpRoofline ComputeOpRoofline(const XSpaceModel& space, const RankKernels& rank);

// `"op_roofline":{...}` for the given ranks' results (ALL_HOSTS: side by
// side), appended to `out`.
// Each rank: its number, its host and its result.
struct RankRoofline {
  int rank = 0;
  std::string_view host;
  const OpRoofline* roofline = nullptr;
};
void AppendOpRooflineJson(const std::vector<RankRoofline>& ranks, std::string& out);

}  // namespace tbprof::trace_analysis
