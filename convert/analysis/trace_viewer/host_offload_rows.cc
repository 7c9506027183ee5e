#include "convert/analysis/trace_viewer/host_offload_rows.h"

#include <algorithm>
#include <iterator>

#include "convert/model/schema.h"

namespace tbprof::derived {
namespace {

// One row per line id of the range.
constexpr size_t kMaxRows = schema::kThreadIdHostOffloadOpEnd - schema::kThreadIdHostOffloadOpStart + 1;

}  // namespace

HostOffloadRows::HostOffloadRows(const XSpaceModel& space, const XPlaneModel& plane, XPlaneModel& derived,
                                 StringTable& strings)
    : space_(space),
      plane_(plane),
      derived_(derived),
      strings_(strings),
      raw_bytes_accessed_(space.Find(schema::kRawBytesAccessed)),
      shape_with_layout_(space.Find(schema::kShapeWithLayout)),
      ops_(plane.event_metadata.size()) {}

const HostOffloadRows::OffloadOp& HostOffloadRows::OffloadOpOf(uint32_t metadata) {
  OffloadOp& op = ops_[metadata];
  if (op.step != Step::kUnchecked) return op;
  op.step = Step::kNone;
  const EventMetadata& m = plane_.event_metadata[metadata];
  const std::string_view name = space_.Str(m.name);
  const std::string_view shown =
      m.display_name != kNoStr && !space_.Str(m.display_name).empty() ? space_.Str(m.display_name) : name;
  static constexpr std::string_view kKinds[] = {"copy-start",          "copy-done",
                                                "dynamic-slice-start", "dynamic-slice-done",
                                                "dynamic-update-slice-start", "dynamic-update-slice-done"};
  const bool offload = name.find("S(5)") != std::string_view::npos &&
                       std::any_of(std::begin(kKinds), std::end(kKinds),
                                   [&](std::string_view k) { return shown.find(k) != std::string_view::npos; });
  if (!offload) return op;
  const size_t start = shown.find("-start"), done = shown.find("-done");
  op.step = start != std::string_view::npos ? Step::kStart : Step::kDone;
  // The instruction's number is what follows its last '.', "0" without one.
  const size_t dot = shown.rfind('.');
  const std::string_view number = dot == std::string_view::npos ? "0" : shown.substr(dot + 1);
  const std::string label = "offload-" + std::string(shown.substr(0, std::min(start, done))) + "." + std::string(number);
  auto [it, fresh] = label_metadata_.try_emplace(label, 0);
  if (fresh) {
    // Shown by its display name only, as xprof makes these events' metadata.
    it->second = static_cast<uint32_t>(derived_.event_metadata.size());
    EventMetadata md;
    md.id = it->second;
    md.name = strings_.Intern("");
    md.display_name = strings_.Intern(label);
    derived_.event_metadata.push_back(std::move(md));
  }
  op.metadata = it->second;
  return op;
}

Stat HostOffloadRows::NamedStat(std::string_view name, StatKind kind) const {
  Stat s;
  s.name = strings_.Intern(name);
  s.kind = kind;
  return s;
}

void HostOffloadRows::CopyMetadataStat(uint32_t event, StrId name, std::string_view as, StatKind kind,
                                       std::vector<Stat>& out) const {
  if (name == kNoStr) return;
  auto [b, end] = plane_.MetadataStatsOf(plane_.events[event].metadata);
  for (const Stat* s = b; s != end; ++s) {
    if (s->name != name) continue;
    Stat copy = NamedStat(as, kind);
    if (kind == StatKind::kStr) {
      copy.str = strings_.Intern(s->kind == StatKind::kStr ? space_.Str(s->str) : "");
    } else {
      copy.i64 = s->IntValue();
    }
    out.push_back(copy);
  }
}

void HostOffloadRows::Add(uint32_t event) {
  const OffloadOp& op = OffloadOpOf(plane_.events[event].metadata);
  if (op.step == Step::kStart) {
    starts_[op.metadata].push_back(event);
    return;
  }
  if (op.step != Step::kDone) return;
  std::deque<uint32_t>& starts = starts_[op.metadata];
  if (starts.empty()) return;  // its start was not traced
  const uint32_t start = starts.front();
  starts.pop_front();
  const int64_t begin = plane_.events[start].begin_ps, end = plane_.events[event].end_ps();
  int64_t frontier = begin;
  size_t row = rows_.size();
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].frontier <= frontier) {
      row = i;
      frontier = rows_[i].frontier;
    }
  }
  if (row == rows_.size()) {
    if (rows_.size() < kMaxRows) rows_.push_back(OffloadRow{end});
    row = rows_.size() - 1;
  }
  rows_[row].frontier = std::max(rows_[row].frontier, end);
  std::vector<Stat> stats;
  Stat async = NamedStat(schema::kIsAsync, StatKind::kInt64);
  async.i64 = 1;
  stats.push_back(async);
  CopyMetadataStat(event, raw_bytes_accessed_, schema::kRawBytesAccessed, StatKind::kInt64, stats);
  // The start's shape holds the done's.
  CopyMetadataStat(start, shape_with_layout_, schema::kShapeWithLayout, StatKind::kStr, stats);
  rows_[row].line.AddEvent(op.metadata, begin, end, kNoGroup, std::move(stats));
}

}  // namespace tbprof::derived
