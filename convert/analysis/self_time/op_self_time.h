// Self time by nesting, the one reading of an op's self time that every table
// takes: on a TPU op line, ForEachTpuOpSelfTime gives each op's device span
// and its duration less its direct children's, so framework_op_stats,
// hlo_stats, op_profile and the step tables agree.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "convert/model/schema.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

struct Span {
  int64_t begin = 0, end = 0;
  int64_t duration() const { return end - begin; }
};

// Self time by nesting, over one line's events taken in order: an event nests
// in the innermost open one whose span includes its own, and closes the open
// ones that do not (one that only partly overlaps its predecessor ends it
// instead of nesting in it); each closed event's duration is taken out of its
// parent's self time. `close(open)` sees every event once, children before
// their parents. A TPU op's device span may begin before that of an op stored
// ahead of it (the line is in host-clock order): it is not inside that op, as
// xprof's nesting test (the parent's span includes the child's) says too.
template <typename Payload>
class SelfTimeStack {
 public:
  struct Open {
    uint32_t event;
    Span span;
    Payload payload;
    int64_t children_ps = 0;
    uint64_t SelfPs() const { return static_cast<uint64_t>(std::max<int64_t>(0, span.duration() - children_ps)); }
  };

  // `ends_before_next_begin`: an open event that ends exactly where the next
  // one begins is closed rather than containing it (host TraceMes, whose ends
  // sort before later begins); device ops contain an instant at their end.
  explicit SelfTimeStack(bool ends_before_next_begin) : ends_before_next_begin_(ends_before_next_begin) {}

  template <typename Close>
  void Push(uint32_t e, Span span, Payload payload, Close&& close) {
    // Towards the top the open events' ends never increase and their begins
    // never decrease, so the first one that includes `span` has every one
    // below it include it too.
    while (!open_.empty() && (open_.back().span.end < span.end || open_.back().span.begin > span.begin ||
                              (ends_before_next_begin_ && open_.back().span.end <= span.begin))) {
      CloseTop(close);
    }
    open_.push_back({e, span, payload, 0});
  }

  template <typename Close>
  void Drain(Close&& close) {
    while (!open_.empty()) CloseTop(close);
  }

 private:
  template <typename Close>
  void CloseTop(Close& close) {
    Open o = open_.back();
    open_.pop_back();
    if (!open_.empty()) open_.back().children_ps += o.span.duration();
    close(o);
  }

  bool ends_before_next_begin_;
  std::vector<Open> open_;
};

// A device event's span on the device clock (its device_offset_ps and
// device_duration_ps stats), else its span on the line.
Span DeviceEventSpan(const XPlaneModel& p, uint32_t e, const schema::StatIds& ids);

// A device op's HLO category: its own hlo_category stat, else its
// metadata's; kNoStr (empty) when it has neither.
StrId HloCategoryOf(const schema::StatIds& ids, const XPlaneModel& p, uint32_t e);

// The ops of one TPU op line by nesting of their device spans: each op once,
// children before their parents, with its span and its self time (its
// duration less its direct children's).
void ForEachTpuOpSelfTime(const XPlaneModel& p, const schema::StatIds& ids, const LineModel& line,
                          const std::function<void(uint32_t event, const Span& span, uint64_t self_ps)>& visit);

}  // namespace tbprof
