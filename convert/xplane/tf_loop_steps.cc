#include "convert/xplane/tf_loop_steps.h"

#include <map>
#include <string_view>

#include "convert/xplane/schema.h"

namespace tbprof {
namespace {

// Per event metadata of `p`: whether its name is one of `names`; false for
// all when none is.
bool MarkNamed(const XSpaceModel& space, const XPlaneModel& p, std::span<const std::string_view> names,
               std::vector<uint8_t>& named) {
  named.assign(p.event_metadata.size(), 0);
  bool any = false;
  for (size_t m = 0; m < p.event_metadata.size(); ++m) {
    const std::string_view name = space.Str(p.event_metadata[m].name);
    for (std::string_view n : names) named[m] |= name == n;
    any |= named[m] != 0;
  }
  return any;
}

}  // namespace

std::set<int64_t> TfDataStepIds(const XSpaceModel& space, std::span<const uint32_t> planes) {
  static constexpr std::string_view kFunctions[] = {
      "InstantiatedCapturedFunction::Run", "InstantiatedCapturedFunction::RunAsync",
      "InstantiatedCapturedFunction::RunInstantiated", "InstantiatedCapturedFunction::RunWithBorrowedArgs"};
  std::set<int64_t> ids;
  const StrId id_stat = space.Find(schema::kId);
  if (id_stat == kNoStr) return ids;
  std::vector<uint8_t> is_function;
  for (uint32_t pi : planes) {
    const XPlaneModel& p = space.planes[pi];
    if (!MarkNamed(space, p, kFunctions, is_function)) continue;
    for (uint32_t e = 0; e < p.events.size(); ++e) {
      if (!is_function[p.events[e].metadata]) continue;
      if (const Stat* id = p.FindStat(e, id_stat)) ids.insert(id->IntValue());
    }
  }
  return ids;
}

std::vector<TfLoopIteration> TfLoopIterations(const XSpaceModel& space, std::span<const uint32_t> planes,
                                              const std::set<int64_t>& tf_data_step_ids) {
  static constexpr std::string_view kExecutor[] = {"ExecutorState::Process"};
  std::vector<TfLoopIteration> out;
  const StrId id_stat = space.Find(schema::kId), iter_stat = space.Find(schema::kIterNum);
  if (id_stat == kNoStr || iter_stat == kNoStr) return out;
  std::map<int64_t, std::map<int64_t, std::vector<TfEventRef>>> loops;  // step id -> iter -> events
  std::vector<uint8_t> is_executor;
  for (uint32_t pi : planes) {
    const XPlaneModel& p = space.planes[pi];
    if (!MarkNamed(space, p, kExecutor, is_executor)) continue;
    for (uint32_t e = 0; e < p.events.size(); ++e) {
      if (!is_executor[p.events[e].metadata]) continue;
      const Stat* id = p.FindStat(e, id_stat);
      const Stat* iter = p.FindStat(e, iter_stat);
      if (id && iter) loops[id->IntValue()][iter->IntValue()].push_back({pi, e});
    }
  }
  for (const auto& [step_id, iterations] : loops) {
    // A function or session without a loop runs iteration 0 only.
    if (tf_data_step_ids.count(step_id) || iterations.rbegin()->first == 0) continue;
    for (const auto& [iter, events] : iterations) {
      auto begin_of = [&](const TfEventRef& r) { return space.planes[r.plane].events[r.event].begin_ps; };
      size_t first = 0;
      for (size_t i = 1; i < events.size(); ++i) {
        if (begin_of(events[i]) < begin_of(events[first])) first = i;
      }
      TfLoopIteration it;
      it.root = events[first];
      for (size_t i = 0; i < events.size(); ++i) {
        if (i != first) it.members.push_back(events[i]);
      }
      out.push_back(std::move(it));
    }
  }
  return out;
}

}  // namespace tbprof
