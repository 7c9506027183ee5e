#include "convert/analysis/compare/step_events.h"

#include <map>
#include <optional>
#include <set>
#include <string>

#include "convert/base/cancellation.h"
#include "convert/base/strings.h"
#include "convert/model/schema.h"

namespace tbprof {
namespace {

struct Span {
  int64_t begin_ps = 0, end_ps = 0;
};

// The host plane's longest event numbered `step` (a step's marker may be
// nested in another of the same number); every step number seen goes to `seen`.
std::optional<Span> StepSpan(const XSpaceModel& space, const XPlaneModel& host, int64_t step,
                             std::set<int64_t>& seen) {
  const StrId step_num = space.Find(schema::kStepNum);
  if (step_num == kNoStr) return std::nullopt;
  std::optional<Span> span;
  CancellationPoll cancel;
  for (uint32_t e = 0; e < host.events.size(); ++e) {
    if (cancel.Due()) return std::nullopt;  // HostEventsOfStep answers cancelled
    const Stat* s = host.FindStat(e, step_num);
    if (s == nullptr || !s->IsInteger()) continue;
    seen.insert(s->IntValue());
    const Event& ev = host.events[e];
    if (s->IntValue() == step && (!span || ev.duration_ps > span->end_ps - span->begin_ps)) {
      span = Span{ev.begin_ps, ev.end_ps()};
    }
  }
  return span;
}

struct Totals {
  double count = 0, duration_ps = 0;
};

}  // namespace

StatusOr<std::vector<OpDeltaRow>> HostEventsOfStep(const std::vector<const XSpaceModel*>& hosts, int64_t step) {
  std::map<std::string, Totals, std::less<>> by_name;
  std::set<int64_t> seen;
  bool found = false;
  for (const XSpaceModel* space : hosts) {
    const XPlaneModel* host = space->FindPlane(schema::kHostPlane);
    if (host == nullptr) continue;
    std::optional<Span> span = StepSpan(*space, *host, step, seen);
    if (CancelRequested()) return CancelledError("compare: the step's host events");
    if (!span) continue;
    found = true;
    CancellationPoll cancel;
    for (uint32_t e = 0; e < host->events.size(); ++e) {
      if (cancel.Due()) return CancelledError("compare: the step's host events");
      const Event& ev = host->events[e];
      if (ev.begin_ps < span->begin_ps || ev.begin_ps >= span->end_ps) continue;
      std::string_view name = space->Str(host->EventName(e));
      // An allocator record is an instant that notes memory, not work done in the step.
      if (schema::IsAllocatorEventName(name)) continue;
      auto it = by_name.find(name);
      if (it == by_name.end()) it = by_name.emplace(std::string(name), Totals{}).first;
      it->second.count += 1;
      it->second.duration_ps += static_cast<double>(ev.duration_ps);
    }
  }
  if (!found) {
    return NotFound("no step " + std::to_string(step) + " on the host" +
                    (seen.empty() ? std::string(" (the run marks no steps)")
                                  : " (its steps: " + ListNumbers(seen, 20) + ")"));
  }
  std::vector<OpDeltaRow> rows;
  for (const auto& [name, t] : by_name) {
    OpDeltaRow r;
    r.where = "Host";
    r.name = name;
    r.occurrences_a = t.count;
    r.time_us_a = t.duration_ps / 1e6;
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace tbprof
