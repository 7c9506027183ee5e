// tfprof's node model from an xplane profile, through OpStats: one graph node
// per framework op (TensorFlow "scope/scope/op" with its type, JAX
// "jit(f)/.../op"), its accelerator time the self time of its device kernels
// rolled up to the framework op, its cpu time the self time of its host op
// events, its runs the occurrences, its float ops the cost model's FLOPs. The
// scope view splits these names at '/'. Bytes and parameters are unknown (an
// xplane has no per-op allocations nor variable shapes) and print as "--".
#pragma once

#include <cstdint>

#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/analysis/op_stats/op_stats.h"
#include "convert/model/tfprof_model.h"

namespace tbprof::tfprof {

// The op stats as one step, numbered `step`: the whole profile (step 0 by
// convention), or the op stats of one step's window (see LoadTfprofModel).
Model ModelFromOpStats(const OpStats& op_stats, int64_t step = 0);

// Gives each node the source stack XLA recorded for its framework op: an HLO
// instruction whose metadata op_name is the node's name brings its stack
// frames (the module's stack frame index, outermost first) or else its
// source_file:source_line as one frame. Nodes without such an instruction
// keep no stack; the code view says so when no node has one. Returns the
// number of nodes given a stack.
size_t AttachHloSourceStacks(const HloPrograms& programs, Model& model);

}  // namespace tbprof::tfprof
