#include "convert/model/xspace_model.h"

#include <algorithm>
#include <cstdio>

namespace tbprof {

const Stat* XPlaneModel::FindEventOrMetadataStat(uint32_t e, StrId name) const {
  if (const Stat* s = FindStat(e, name)) return s;
  if (name == kNoStr) return nullptr;
  auto [b, end] = MetadataStatsOf(events[e].metadata);
  for (const Stat* s = b; s != end; ++s) {
    if (s->name == name) return s;
  }
  return nullptr;
}

const Stat* XPlaneModel::FindPlaneStat(StrId name) const {
  if (name == kNoStr) return nullptr;
  for (const Stat& s : plane_stats) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

int64_t XPlaneModel::NumOccurrences(uint32_t e) const {
  auto it = std::lower_bound(occurrences.begin(), occurrences.end(), std::make_pair(e, int64_t{INT64_MIN}));
  return it != occurrences.end() && it->first == e ? it->second : 0;
}

const XPlaneModel* XSpaceModel::FindPlane(std::string_view name) const {
  for (const XPlaneModel& p : planes) {
    if (Str(p.name) == name) return &p;
  }
  return nullptr;
}

std::vector<const XPlaneModel*> XSpaceModel::FindPlanesWithPrefix(std::string_view prefix) const {
  std::vector<const XPlaneModel*> out;
  for (const XPlaneModel& p : planes) {
    if (Str(p.name).substr(0, prefix.size()) == prefix) out.push_back(&p);
  }
  return out;
}

std::string XSpaceModel::StatToString(const Stat& s) const {
  char buf[64];
  switch (s.kind) {
    case StatKind::kInt64:
      return std::to_string(s.i64);
    case StatKind::kUint64:
      return std::to_string(s.u64);
    case StatKind::kDouble:
      std::snprintf(buf, sizeof(buf), "%.17g", s.f64);
      return buf;
    case StatKind::kStr:
      return std::string(Str(s.str));
    case StatKind::kBytes:
      return "<" + std::to_string(Blob(s.blob).size()) + " bytes>";
    case StatKind::kNone:
      break;
  }
  return "";
}

size_t XSpaceModel::NumEvents() const {
  size_t n = 0;
  for (const XPlaneModel& p : planes) n += p.events.size();
  return n;
}

size_t XSpaceModel::MemoryBytes() const {
  // Each allocation costs malloc's header and rounding too: a model of
  // 200,000 small planes (a PyTorch trace of as many devices) holds more in
  // its planes' own objects and per-array overhead than in their contents.
  constexpr size_t kPerAllocation = 16;
  auto array = [](const auto& v) {
    return v.capacity() == 0 ? 0 : v.capacity() * sizeof(v[0]) + kPerAllocation;
  };
  size_t n = strings.MemoryBytes() + planes.capacity() * sizeof(XPlaneModel);
  for (const std::string& b : blobs) n += b.capacity() + sizeof(std::string);
  for (const XPlaneModel& p : planes) {
    n += array(p.events) + array(p.event_stats) + array(p.lines) + array(p.event_metadata) +
         array(p.metadata_stats) + array(p.plane_stats) + array(p.stat_metadata) + array(p.occurrences);
  }
  return n;
}

}  // namespace tbprof
