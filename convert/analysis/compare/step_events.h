// One step's host events as comparison rows, the way HTA's trace diff sees a
// PyTorch iteration: every event of the host plane (operators, annotations,
// runtime calls, on any thread) that begins inside the step's span, the step
// event itself included, grouped by name with its count and total duration.
// A step is a host event that carries the step_num stat (PyTorch's
// ProfilerStep#N, TensorFlow's step markers).
#pragma once

#include <cstdint>
#include <vector>

#include "convert/analysis/compare/delta_rows.h"
#include "convert/base/status.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

// A run's host events in its step `step`: rows with where "Host", no type,
// the figures in the *_a fields (self time unknown), summed over the hosts
// given. NotFound naming the steps the run has when none of them has `step`.
StatusOr<std::vector<OpDeltaRow>> HostEventsOfStep(const std::vector<const XSpaceModel*>& hosts, int64_t step);

}  // namespace tbprof
