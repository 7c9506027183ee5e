// The result of step grouping, kept beside the model (which stays immutable):
// each event's group, the groups' names, a TPU plane's steps and which events
// ran eagerly. GroupEvents (group_events.h) fills it; its helpers and every
// analysis read it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tbprof {

inline constexpr int32_t kNoGroup = -1;

struct EventGroups {
  // group_of[plane][event]: group id of the event, kNoGroup if none.
  std::vector<std::vector<int32_t>> group_of;
  // has_step_name[plane][event]: the event is a named (non-implicit) step root.
  std::vector<std::vector<uint8_t>> has_step_name;
  std::map<int32_t, std::string> group_names;
  bool was_grouped = false;  // the file already carried group_id stats

  // A TPU step: the events of a "Steps" (or "Sparse Core Steps") line that
  // make it up. xprof's MergeHostSteps makes one step of consecutive steps of
  // one group (a step of several modules) and drops the ungrouped ones,
  // unless no step has a group. Files that come grouped keep every step.
  struct TpuStep {
    int32_t group = kNoGroup;
    std::vector<uint32_t> events;  // in time order
  };
  // tpu_steps[plane]: the plane's steps in time order (empty for other planes).
  std::vector<std::vector<TpuStep>> tpu_steps;

  // Eager execution (xprof's MarkEagerlyExecutedGpuKernels and …CpuTfOps):
  // an event runs eagerly when the nearest EagerKernelExecute above it (by
  // nesting, launch or producer/consumer link; itself included) ran a single
  // op (`is_func` 0). A function call (`is_func` 1, or no `is_func`, as TF
  // wrote before it had the stat) is not eager. xprof writes the answer as
  // an `is_eager` stat on TF ops ("name:Type" events) and on launched kernels
  // only; readers apply it to those. is_eager[plane] is empty when no event
  // of the plane runs eagerly.
  std::vector<std::vector<uint8_t>> is_eager;
  // The grouping was computed (not read from the file, not skipped for TF
  // loops): xprof then writes is_eager, 0 or 1, on every such event.
  bool computed = false;

  int32_t Group(size_t plane, uint32_t event) const {
    return plane < group_of.size() && event < group_of[plane].size() ? group_of[plane][event] : kNoGroup;
  }
  bool IsEager(size_t plane, uint32_t event) const {
    return plane < is_eager.size() && event < is_eager[plane].size() && is_eager[plane][event] != 0;
  }
  bool IsEagerPlane(size_t plane) const { return plane < is_eager.size() && !is_eager[plane].empty(); }
};

}  // namespace tbprof
