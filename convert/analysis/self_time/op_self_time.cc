#include "convert/analysis/self_time/op_self_time.h"

#include <variant>

#include "convert/model/event_nesting.h"

namespace tbprof {

Span DeviceEventSpan(const XPlaneModel& p, uint32_t e, const schema::StatIds& ids) {
  const Stat* off = ids.device_offset_ps == kNoStr ? nullptr : p.FindStat(e, ids.device_offset_ps);
  const Stat* dur = ids.device_duration_ps == kNoStr ? nullptr : p.FindStat(e, ids.device_duration_ps);
  if (off && dur) return Span{off->IntValue(), off->IntValue() + dur->IntValue()};
  return Span{p.events[e].begin_ps, p.events[e].end_ps()};
}

StrId HloCategoryOf(const schema::StatIds& ids, const XPlaneModel& p, uint32_t e) {
  const Stat* cat = ids.hlo_category == kNoStr ? nullptr : p.FindEventOrMetadataStat(e, ids.hlo_category);
  return cat && cat->kind == StatKind::kStr ? cat->str : kNoStr;
}

void ForEachTpuOpSelfTime(const XPlaneModel& p, const schema::StatIds& ids, const LineModel& line,
                          const std::function<void(uint32_t event, const Span& span, uint64_t self_ps)>& visit) {
  using Stack = SelfTimeStack<std::monostate>;
  Stack stack(/*ends_before_next_begin=*/false);
  auto close = [&](const Stack::Open& o) { visit(o.event, o.span, o.SelfPs()); };
  for (uint32_t e : SortedLineEvents(p, line)) stack.Push(e, DeviceEventSpan(p, e, ids), std::monostate{}, close);
  stack.Drain(close);
}

}  // namespace tbprof
