// Builds XSpace protos in code (tests, the synthetic generator, the harness's
// writer). Event and stat metadata are interned by name, ids starting at 1,
// the way TSL's XPlaneBuilder numbers them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "proto/xplane.pb.h"

namespace tbprof {

class XPlaneBuilder;

class XStatsBuilder {
 public:
  // Integer values are written as int64_value, like TraceMe arguments.
  XStatsBuilder& Int(std::string_view name, int64_t v);
  XStatsBuilder& Uint(std::string_view name, uint64_t v);
  XStatsBuilder& Double(std::string_view name, double v);
  XStatsBuilder& Str(std::string_view name, std::string_view v);
  // String stored by reference (XStat.ref_value), as CUPTI's kernel_details.
  XStatsBuilder& Ref(std::string_view name, std::string_view v);
  XStatsBuilder& Bytes(std::string_view name, std::string_view v);

 protected:
  XStatsBuilder(XPlaneBuilder* plane, google::protobuf::RepeatedPtrField<tensorflow::profiler::XStat>* stats)
      : plane_(plane), stats_(stats) {}
  tensorflow::profiler::XStat* Add(std::string_view name);
  XPlaneBuilder* plane_;
  google::protobuf::RepeatedPtrField<tensorflow::profiler::XStat>* stats_;
};

class XEventBuilder : public XStatsBuilder {
 public:
  XEventBuilder(XPlaneBuilder* plane, tensorflow::profiler::XEvent* e)
      : XStatsBuilder(plane, e->mutable_stats()), event_(e) {}
  tensorflow::profiler::XEvent* proto() { return event_; }

 private:
  tensorflow::profiler::XEvent* event_;
};

class XLineBuilder {
 public:
  XLineBuilder(XPlaneBuilder* plane, tensorflow::profiler::XLine* line) : plane_(plane), line_(line) {}
  // offset_ps is relative to the line's timestamp_ns.
  XEventBuilder AddEvent(std::string_view name, int64_t offset_ps, int64_t duration_ps);
  XEventBuilder AddAggregatedEvent(std::string_view name, int64_t num_occurrences, int64_t duration_ps);
  tensorflow::profiler::XLine* proto() { return line_; }

 private:
  XPlaneBuilder* plane_;
  tensorflow::profiler::XLine* line_;
};

class XPlaneBuilder : public XStatsBuilder {
 public:
  explicit XPlaneBuilder(tensorflow::profiler::XPlane* plane)
      : XStatsBuilder(this, plane->mutable_stats()), plane_(plane) {}
  // Line and event builders point back at this object: it must stay in place.
  XPlaneBuilder(const XPlaneBuilder&) = delete;
  XPlaneBuilder& operator=(const XPlaneBuilder&) = delete;
  XLineBuilder AddLine(int64_t id, std::string_view name, int64_t timestamp_ns = 0) &;
  // Not on a temporary (`AddPlane(...).AddLine(...)`): the line builder would
  // point at a plane builder gone at the end of the statement.
  XLineBuilder AddLine(int64_t id, std::string_view name, int64_t timestamp_ns = 0) && = delete;
  int64_t EventMetadataId(std::string_view name);
  tensorflow::profiler::XEventMetadata* EventMetadata(std::string_view name);
  int64_t StatMetadataId(std::string_view name);
  tensorflow::profiler::XPlane* proto() { return plane_; }

 private:
  tensorflow::profiler::XPlane* plane_;
  std::unordered_map<std::string, int64_t> event_ids_, stat_ids_;  // name -> id, ids from 1
};

// Adds a plane named `name` with `id` to the space.
XPlaneBuilder AddPlane(tensorflow::profiler::XSpace& space, std::string_view name, int64_t id = 0);

}  // namespace tbprof
