// Small numeric helpers shared by the conversion steps.
#pragma once

#include <cmath>

namespace tbprof {

// a / b, or 0 when b is (nearly) 0: xprof's SafeDivide, whose answers
// (percentages of an empty total are 0) the tools reproduce. Where 0 would
// claim a measurement that does not exist, callers must check the total
// themselves and report the figure as unknown instead.
inline double SafeDivide(double a, double b) { return std::fabs(b) < 1e-10 ? 0.0 : a / b; }

// GB/s (10^9 bytes) as GiB/s (2^30 bytes): xprof states every measured
// bandwidth and bandwidth peak in GiB/s.
inline double GigaToGibi(double giga) { return giga * 1e9 / (1024.0 * 1024.0 * 1024.0); }

}  // namespace tbprof
