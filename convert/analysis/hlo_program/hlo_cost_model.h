// FLOPs and bytes of one HLO instruction, for profiles whose device events do
// not carry them (GPU; TPU ops without `flops`/`bytes_accessed` stats). It
// follows the counting rules of XLA's HloCostAnalysis for the ops that matter:
//
//   dot            2 × output elements × product of the lhs contracting sizes
//   convolution    2 × output elements × kernel spatial window × input features
//                  per group (kernel_input_feature size); every window position
//                  is counted, padded ones included (XLA skips positions that
//                  fall in the padding: ours is an upper bound for padded convs)
//   elementwise    1 FLOP per output element; transcendental ops (exp, log,
//                  tanh, logistic, sqrt, rsqrt, cbrt, power, sin, cos, tan,
//                  atan2, erf, expm1, log1p) count 0 FLOPs, as XLA counts them
//                  apart as transcendentals
//   reduce         (input elements − output elements) × FLOPs of one
//                  application of the reducer; reduce-window: output elements ×
//                  window size × reducer FLOPs
//   fusion         the sum over the fused computation's instructions; bytes are
//                  the fusion's operands plus its output, as XLA counts a fusion
//                  (operands read in part through a slice are counted whole)
//   custom-call    BLAS GEMMs (cuBLAS/cuBLASLt/hipBLASLt/rocBLAS targets): 2 ×
//                  output elements × contracting size, the contracting dimensions
//                  read from the backend config; DNN-library convolutions
//                  (__cudnn$conv*, MIOpen's too): as a convolution; both without
//                  their scratch result in the bytes; other targets: unknown
//   copy, transpose, slice, pad, broadcast, gather, scatter …   0 FLOPs,
//                  bytes of operands plus output
//   collectives    0 FLOPs (the reduction inside an all-reduce is not counted);
//                  bytes of operands plus output
//   parameter, constant, tuple, get-tuple-element, bitcast, after-all:  free
//
// Bytes are the sum of the operands' array bytes and the output's, with no
// cache or layout-padding model (XLA's also ignores tiling padding).
// Approximate everywhere: the counts are those of the HLO, not of the kernels
// the backend emitted (a GEMM tile that pads K, a fusion that recomputes an
// elementwise op per consumer are not visible here).
#pragma once

#include <optional>

#include "convert/analysis/hlo_program/hlo_module.h"

namespace tbprof {

struct HloCost {
  double flops = 0;
  double bytes_accessed = 0;
  bool flops_known = true;  // false for ops whose FLOPs the model cannot tell (unknown custom calls)
};

// Cost of one execution of `inst` of `program`.
HloCost HloInstructionCost(const HloProgram& program, const HloInstruction& inst);

// Which figures of a GPU XLA op its instruction's cost gives (counted once
// per occurrence) rather than the profiler's flops/bytes_accessed stats on its
// kernels (counted on each): xprof takes each figure from the cost where the
// cost is above 0. `cost` is empty without the instruction.
struct FiguresFromCost {
  bool flops = false, bytes = false;
};
inline FiguresFromCost FiguresTakenFromCost(const std::optional<HloCost>& cost) {
  return {cost && cost->flops_known && cost->flops > 0, cost && cost->bytes_accessed > 0};
}

// FLOPs of one application of a computation (a reducer or a fused body).
double HloComputationFlops(const HloProgram& program, const HloComputation& comp);

}  // namespace tbprof
