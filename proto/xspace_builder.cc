#include "proto/xspace_builder.h"

namespace tbprof {

using tensorflow::profiler::XStat;

XStat* XStatsBuilder::Add(std::string_view name) {
  XStat* s = stats_->Add();
  s->set_metadata_id(plane_->StatMetadataId(name));
  return s;
}

XStatsBuilder& XStatsBuilder::Int(std::string_view name, int64_t v) {
  Add(name)->set_int64_value(v);
  return *this;
}
XStatsBuilder& XStatsBuilder::Uint(std::string_view name, uint64_t v) {
  Add(name)->set_uint64_value(v);
  return *this;
}
XStatsBuilder& XStatsBuilder::Double(std::string_view name, double v) {
  Add(name)->set_double_value(v);
  return *this;
}
XStatsBuilder& XStatsBuilder::Str(std::string_view name, std::string_view v) {
  Add(name)->set_str_value(std::string(v));
  return *this;
}
XStatsBuilder& XStatsBuilder::Ref(std::string_view name, std::string_view v) {
  int64_t ref = plane_->StatMetadataId(v);
  Add(name)->set_ref_value(static_cast<uint64_t>(ref));
  return *this;
}
XStatsBuilder& XStatsBuilder::Bytes(std::string_view name, std::string_view v) {
  Add(name)->set_bytes_value(std::string(v));
  return *this;
}

XEventBuilder XLineBuilder::AddEvent(std::string_view name, int64_t offset_ps, int64_t duration_ps) {
  auto* e = line_->add_events();
  e->set_metadata_id(plane_->EventMetadataId(name));
  e->set_offset_ps(offset_ps);
  e->set_duration_ps(duration_ps);
  return XEventBuilder(plane_, e);
}

XEventBuilder XLineBuilder::AddAggregatedEvent(std::string_view name, int64_t num_occurrences,
                                               int64_t duration_ps) {
  auto* e = line_->add_events();
  e->set_metadata_id(plane_->EventMetadataId(name));
  e->set_num_occurrences(num_occurrences);
  e->set_duration_ps(duration_ps);
  return XEventBuilder(plane_, e);
}

XLineBuilder XPlaneBuilder::AddLine(int64_t id, std::string_view name, int64_t timestamp_ns) & {
  auto* l = plane_->add_lines();
  l->set_id(id);
  l->set_name(std::string(name));
  l->set_timestamp_ns(timestamp_ns);
  return XLineBuilder(this, l);
}

namespace {

// Gives `name` the next id of a plane's metadata map the first time it is
// seen, so event and stat metadata are numbered from 1 in order of first use.
// `metadata()` gives the map; it is asked for only when a name is new, since
// a protobuf map's mutable accessor syncs the map's state on every call
// (asked for at every stat, that cost the GPU trace writer 5 %).
template <typename GetMetadataMap>
int64_t InternMetadata(std::unordered_map<std::string, int64_t>& ids, GetMetadataMap&& metadata,
                       std::string_view name) {
  auto [it, inserted] = ids.emplace(std::string(name), static_cast<int64_t>(ids.size()) + 1);
  if (inserted) {
    auto& md = metadata()[it->second];
    md.set_id(it->second);
    md.set_name(std::string(name));
  }
  return it->second;
}

}  // namespace

int64_t XPlaneBuilder::EventMetadataId(std::string_view name) {
  return InternMetadata(event_ids_, [&]() -> auto& { return *plane_->mutable_event_metadata(); }, name);
}

tensorflow::profiler::XEventMetadata* XPlaneBuilder::EventMetadata(std::string_view name) {
  return &(*plane_->mutable_event_metadata())[EventMetadataId(name)];
}

int64_t XPlaneBuilder::StatMetadataId(std::string_view name) {
  return InternMetadata(stat_ids_, [&]() -> auto& { return *plane_->mutable_stat_metadata(); }, name);
}

XPlaneBuilder AddPlane(tensorflow::profiler::XSpace& space, std::string_view name, int64_t id) {
  auto* p = space.add_planes();
  p->set_name(std::string(name));
  p->set_id(id);
  return XPlaneBuilder(p);
}

}  // namespace tbprof
