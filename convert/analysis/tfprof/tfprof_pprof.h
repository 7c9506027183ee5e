// tfprof's `-output pprof:outfile=F` (internal/tfprof_code.cc): the code view
// as a pprof profile. Sample type 0 counts graph nodes, sample type 1 is the
// one selected figure; each graph node under a displayed leaf of the code
// view is one sample whose call stack is its source stack (leaf first),
// labelled "graph node:" with its name. `go tool pprof -sample_index=1` reads
// the file.
#pragma once

#include <string>

#include "convert/model/tfprof_model.h"
#include "convert/analysis/tfprof/tfprof_options.h"
#include "convert/base/status.h"
#include "proto/profile.pb.h"

namespace tbprof::tfprof {

// Errors: a view other than code, not exactly one pprof-able select field
// (bytes, peak_bytes, residual_bytes, output_bytes, micros,
// accelerator_micros, cpu_micros, params, float_ops), a figure the profile
// cannot give, a profile without source stacks.
StatusOr<perftools::profiles::Profile> CodeViewPprof(const Model& model, const std::string& view,
                                                     const Options& options);

}  // namespace tbprof::tfprof
