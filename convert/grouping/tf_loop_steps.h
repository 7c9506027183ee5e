// TensorFlow's own step structure, which xprof's grouping reads before it
// looks for roots (ProcessTfDataSteps, ProcessTensorFlowLoop):
//   - tf.data runs its captured functions under step ids (the `id` of
//     InstantiatedCapturedFunction::Run, RunAsync, RunInstantiated and
//     RunWithBorrowedArgs); a root carrying one of them (the function's own
//     FunctionRun) is no step;
//   - a TensorFlow loop: the ExecutorState::Process events of one step id
//     (not tf.data's) whose iter_num reaches beyond 0. Each iteration is a
//     step whose root is its earliest event (the first met of those that begin
//     together), holding the iteration's other events.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <vector>

#include "convert/model/xspace_model.h"

namespace tbprof {

struct TfEventRef {
  uint32_t plane = 0;  // index into the space's planes
  uint32_t event = 0;
};

// The step ids of tf.data's captured functions on `planes` (space indices).
std::set<int64_t> TfDataStepIds(const XSpaceModel& space, std::span<const uint32_t> planes);

struct TfLoopIteration {
  TfEventRef root;
  std::vector<TfEventRef> members;  // the iteration's other events
};

// The iterations of every TensorFlow loop on `planes`, by step id, then
// iteration; empty when the space runs none.
std::vector<TfLoopIteration> TfLoopIterations(const XSpaceModel& space, std::span<const uint32_t> planes,
                                              const std::set<int64_t>& tf_data_step_ids);

}  // namespace tbprof
