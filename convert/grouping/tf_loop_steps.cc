#include "convert/grouping/tf_loop_steps.h"

#include <map>
#include <string_view>

#include "convert/model/schema.h"

namespace tbprof {
namespace {

// Calls fn(plane, event) for every event named one of `names` on `planes`.
template <typename Fn>
void ForEachNamed(const XSpaceModel& space, std::span<const uint32_t> planes, std::span<const std::string_view> names,
                  Fn&& fn) {
  std::vector<uint8_t> named;
  for (uint32_t pi : planes) {
    const XPlaneModel& p = space.planes[pi];
    named.assign(p.event_metadata.size(), 0);
    bool any = false;
    for (size_t m = 0; m < p.event_metadata.size(); ++m) {
      const std::string_view name = space.Str(p.event_metadata[m].name);
      for (std::string_view n : names) named[m] |= name == n;
      any |= named[m] != 0;
    }
    for (uint32_t e = 0; any && e < p.events.size(); ++e) {
      if (named[p.events[e].metadata]) fn(pi, e);
    }
  }
}

}  // namespace

std::set<int64_t> TfDataStepIds(const XSpaceModel& space, std::span<const uint32_t> planes) {
  static constexpr std::string_view kFunctions[] = {
      "InstantiatedCapturedFunction::Run", "InstantiatedCapturedFunction::RunAsync",
      "InstantiatedCapturedFunction::RunInstantiated", "InstantiatedCapturedFunction::RunWithBorrowedArgs"};
  std::set<int64_t> ids;
  const StrId id_stat = space.Find(schema::kId);
  if (id_stat == kNoStr) return ids;
  ForEachNamed(space, planes, kFunctions, [&](uint32_t pi, uint32_t e) {
    if (const Stat* id = space.planes[pi].FindStat(e, id_stat)) ids.insert(id->IntValue());
  });
  return ids;
}

std::vector<TfLoopIteration> TfLoopIterations(const XSpaceModel& space, std::span<const uint32_t> planes,
                                              const std::set<int64_t>& tf_data_step_ids) {
  static constexpr std::string_view kExecutor[] = {"ExecutorState::Process"};
  std::vector<TfLoopIteration> out;
  const StrId id_stat = space.Find(schema::kId), iter_stat = space.Find(schema::kIterNum);
  if (id_stat == kNoStr || iter_stat == kNoStr) return out;
  std::map<int64_t, std::map<int64_t, std::vector<TfEventRef>>> loops;  // step id -> iter -> events
  ForEachNamed(space, planes, kExecutor, [&](uint32_t pi, uint32_t e) {
    const Stat* id = space.planes[pi].FindStat(e, id_stat);
    const Stat* iter = space.planes[pi].FindStat(e, iter_stat);
    if (id && iter) loops[id->IntValue()][iter->IntValue()].push_back({pi, e});
  });
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
