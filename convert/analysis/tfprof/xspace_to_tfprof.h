// tfprof's node model from an xplane profile, through OpStats: one graph node
// per framework op (TensorFlow "scope/scope/op" with its type, JAX
// "jit(f)/.../op"), its accelerator time the self time of its device kernels
// rolled up to the framework op, its cpu time the self time of its host op
// events, its runs the occurrences, its float ops the cost model's FLOPs. The
// scope view splits these names at '/'. Bytes and parameters are unknown (an
// xplane has no per-op allocations nor variable shapes) and print as "--".
#pragma once

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/analysis/tfprof/tfprof_model.h"

namespace tbprof::tfprof {

// The profile is one step (0): OpStats keeps no per-step op times.
Model ModelFromOpStats(const OpStats& op_stats);

}  // namespace tbprof::tfprof
