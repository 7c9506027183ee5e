// The steps of a profile as trace_analysis reads them: the host events that
// carry a step number (PyTorch's ProfilerStep#N, a TensorFlow or JAX step
// trace with step_num), in time order.
#pragma once

#include <cstdint>
#include <vector>

#include "convert/model/xspace_model.h"

namespace tbprof::trace_analysis {

struct StepSpan {
  int64_t number = 0, begin_ps = 0, end_ps = 0;
};

std::vector<StepSpan> HostSteps(const XSpaceModel& space);

}  // namespace tbprof::trace_analysis
