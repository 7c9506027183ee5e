#include "convert/analysis/trace_analysis/step_spans.h"

#include <algorithm>

#include "convert/model/schema.h"

namespace tbprof::trace_analysis {

std::vector<StepSpan> HostSteps(const XSpaceModel& space) {
  std::vector<StepSpan> steps;
  const XPlaneModel* host = space.FindPlane(schema::kHostPlane);
  const StrId step_num = space.Find(schema::kStepNum);
  if (host == nullptr || step_num == kNoStr) return steps;
  for (uint32_t e = 0; e < host->events.size(); ++e) {
    if (const Stat* s = host->FindStat(e, step_num)) {
      steps.push_back({s->IntValue(), host->events[e].begin_ps, host->events[e].end_ps()});
    }
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const StepSpan& a, const StepSpan& b) { return a.begin_ps < b.begin_ps; });
  return steps;
}

}  // namespace tbprof::trace_analysis
