// The decoder's field numbers are the ones libprotobuf reads from
// proto/xplane.proto: a second, independent statement of the wire format.
#include "convert/xplane/xplane_fields.h"

#include <gtest/gtest.h>

#include <string>

#include "proto/xplane.pb.h"

namespace tbprof {
namespace {

namespace pb = tensorflow::profiler;
namespace f = xplane_field;

template <typename Message>
int Number(const std::string& field) {
  const auto* d = Message::descriptor()->FindFieldByName(field);
  EXPECT_NE(d, nullptr) << Message::descriptor()->full_name() << "." << field;
  return d == nullptr ? -1 : d->number();
}

TEST(XPlaneFields, MatchTheProtoDescriptors) {
  EXPECT_EQ(f::kSpacePlanes, Number<pb::XSpace>("planes"));
  EXPECT_EQ(f::kSpaceErrors, Number<pb::XSpace>("errors"));
  EXPECT_EQ(f::kSpaceWarnings, Number<pb::XSpace>("warnings"));
  EXPECT_EQ(f::kSpaceHostnames, Number<pb::XSpace>("hostnames"));

  EXPECT_EQ(f::kPlaneId, Number<pb::XPlane>("id"));
  EXPECT_EQ(f::kPlaneName, Number<pb::XPlane>("name"));
  EXPECT_EQ(f::kPlaneLines, Number<pb::XPlane>("lines"));
  EXPECT_EQ(f::kPlaneEventMetadata, Number<pb::XPlane>("event_metadata"));
  EXPECT_EQ(f::kPlaneStatMetadata, Number<pb::XPlane>("stat_metadata"));
  EXPECT_EQ(f::kPlaneStats, Number<pb::XPlane>("stats"));

  EXPECT_EQ(f::kLineId, Number<pb::XLine>("id"));
  EXPECT_EQ(f::kLineDisplayId, Number<pb::XLine>("display_id"));
  EXPECT_EQ(f::kLineName, Number<pb::XLine>("name"));
  EXPECT_EQ(f::kLineDisplayName, Number<pb::XLine>("display_name"));
  EXPECT_EQ(f::kLineTimestampNs, Number<pb::XLine>("timestamp_ns"));
  EXPECT_EQ(f::kLineDurationPs, Number<pb::XLine>("duration_ps"));
  EXPECT_EQ(f::kLineEvents, Number<pb::XLine>("events"));

  EXPECT_EQ(f::kEventMetadataId, Number<pb::XEvent>("metadata_id"));
  EXPECT_EQ(f::kEventOffsetPs, Number<pb::XEvent>("offset_ps"));
  EXPECT_EQ(f::kEventNumOccurrences, Number<pb::XEvent>("num_occurrences"));
  EXPECT_EQ(f::kEventDurationPs, Number<pb::XEvent>("duration_ps"));
  EXPECT_EQ(f::kEventStats, Number<pb::XEvent>("stats"));

  EXPECT_EQ(f::kStatMetadataId, Number<pb::XStat>("metadata_id"));
  EXPECT_EQ(f::kStatDouble, Number<pb::XStat>("double_value"));
  EXPECT_EQ(f::kStatUint64, Number<pb::XStat>("uint64_value"));
  EXPECT_EQ(f::kStatInt64, Number<pb::XStat>("int64_value"));
  EXPECT_EQ(f::kStatStr, Number<pb::XStat>("str_value"));
  EXPECT_EQ(f::kStatBytes, Number<pb::XStat>("bytes_value"));
  EXPECT_EQ(f::kStatRef, Number<pb::XStat>("ref_value"));

  EXPECT_EQ(f::kEventMetaId, Number<pb::XEventMetadata>("id"));
  EXPECT_EQ(f::kEventMetaName, Number<pb::XEventMetadata>("name"));
  EXPECT_EQ(f::kEventMetaDisplayName, Number<pb::XEventMetadata>("display_name"));
  EXPECT_EQ(f::kEventMetaMetadata, Number<pb::XEventMetadata>("metadata"));
  EXPECT_EQ(f::kEventMetaStats, Number<pb::XEventMetadata>("stats"));
  EXPECT_EQ(f::kEventMetaChildId, Number<pb::XEventMetadata>("child_id"));

  EXPECT_EQ(f::kStatMetaId, Number<pb::XStatMetadata>("id"));
  EXPECT_EQ(f::kStatMetaName, Number<pb::XStatMetadata>("name"));
  EXPECT_EQ(f::kStatMetaDescription, Number<pb::XStatMetadata>("description"));
}

TEST(XPlaneFields, MapEntriesUseKeyOneAndValueTwo) {
  const auto* entry = pb::XPlane::descriptor()->FindFieldByName("stat_metadata")->message_type();
  EXPECT_EQ(f::kMapKey, entry->FindFieldByName("key")->number());
  EXPECT_EQ(f::kMapValue, entry->FindFieldByName("value")->number());
}

}  // namespace
}  // namespace tbprof
