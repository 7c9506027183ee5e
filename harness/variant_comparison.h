// After the pipeline variants' table: each variant compared with the first
// (the baseline, naive in `--variant all`), read from the profiles they
// wrote by the same comparison as `tbprof compare`: what each change saved
// per step and in which ops, and whether the tf.data bottleneck moved.
#pragma once

#include <string>
#include <vector>

#include "harness/pipeline_report.h"

namespace tbprof::harness {

// Empty when fewer than two variants wrote a profile.
std::string VariantComparisons(const std::vector<VariantReport>& reports, size_t top_ops = 5);

}  // namespace tbprof::harness
