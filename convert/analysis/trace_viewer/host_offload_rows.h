// The "Host Offload Ops row <n>" lines of a TPU TensorCore plane (xprof's
// HostOffloadEventProcessor): a copy or dynamic slice between device and host
// memory (an op whose shape lives in memory space 5, "S(5)") shows as one
// event "offload-<op>.<number>" from its start to its done.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "convert/analysis/trace_viewer/derived_line.h"
#include "convert/base/string_table.h"
#include "convert/model/xspace_model.h"

namespace tbprof::derived {

class HostOffloadRows {
 public:
  // Events of `plane` (in `space`) become events of `derived`, whose names
  // are interned in `strings`.
  HostOffloadRows(const XSpaceModel& space, const XPlaneModel& plane, XPlaneModel& derived, StringTable& strings);

  // Takes the plane's events in time order: a start waits for its done (first
  // in, first out, per label); the pair goes on the row whose last copy ended
  // earliest before it begins, or on a new row (the last one when all the
  // row ids are used). Each event: is_async 1, the done's raw_bytes_accessed
  // and the start's shape_with_layout.
  void Add(uint32_t event);

  size_t NumRows() const { return rows_.size(); }
  DerivedLine& Row(size_t i) { return rows_[i].line; }

 private:
  enum class Step : uint8_t { kUnchecked, kNone, kStart, kDone };
  struct OffloadOp {
    Step step = Step::kUnchecked;
    uint32_t metadata = 0;  // the derived event's, shown as "offload-<op>.<number>"
  };
  struct OffloadRow {
    int64_t frontier = 0;  // the end of its latest copy
    DerivedLine line{Growth::kOverShortGaps};
  };

  const OffloadOp& OffloadOpOf(uint32_t metadata);
  Stat NamedStat(std::string_view name, StatKind kind) const;
  void CopyMetadataStat(uint32_t event, StrId name, std::string_view as, StatKind kind, std::vector<Stat>& out) const;

  const XSpaceModel& space_;
  const XPlaneModel& plane_;
  XPlaneModel& derived_;
  StringTable& strings_;
  const StrId raw_bytes_accessed_, shape_with_layout_;
  std::vector<OffloadOp> ops_;  // per event metadata of the plane
  std::unordered_map<std::string, uint32_t> label_metadata_;
  std::unordered_map<uint32_t, std::deque<uint32_t>> starts_;  // by label: starts awaiting their done
  std::vector<OffloadRow> rows_;
};

}  // namespace tbprof::derived
