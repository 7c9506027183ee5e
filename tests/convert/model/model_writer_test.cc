// The writer keeps the model's offsets: an event's stats, a line's events and
// a metadata's stats are what was added between Begin and End, whatever order
// the fields came in; line timestamps shift their events; aggregated events
// carry no time.
#include "convert/model/model_writer.h"

#include <gtest/gtest.h>

namespace tbprof {
namespace {

Stat IntStat(StrId name, int64_t v) {
  Stat s;
  s.name = name, s.kind = StatKind::kInt64, s.i64 = v;
  return s;
}

TEST(PlaneWriter, OffsetsFollowTheBrackets) {
  XSpaceModel space;
  const StrId a = space.strings.Intern("a"), b = space.strings.Intern("b");
  PlaneWriter w = PlaneWriter::AddTo(space, 7, space.strings.Intern("/host:CPU"));
  w.BeginEventMetadata();
  w.AddMetadataStat(IntStat(a, 1));
  w.AddMetadataStat(IntStat(b, 2));
  EventMetadata md;
  md.name = a;
  EXPECT_EQ(w.EndEventMetadata(std::move(md)), 0u);
  EXPECT_EQ(w.AddEventMetadata({}), 1u);

  w.BeginLine();
  w.BeginEvent();
  w.AddEventStat(IntStat(a, 10));
  w.AddEventStat(IntStat(b, 11));
  EXPECT_EQ(w.EndEvent(5, 3, 0), 0u);
  w.BeginEvent();  // no stats
  w.EndEvent(9, 1, 1);
  LineModel first;
  first.id = 1;
  first.timestamp_ns = 2;  // + 2000 ps to each begin
  w.EndLine(first);

  w.BeginLine();
  w.BeginEvent();
  w.AddEventStat(IntStat(a, 12));
  w.EndAggregatedEvent(/*occurrences=*/4, /*duration_ps=*/8, 1);
  LineModel second;
  second.id = 2;
  second.timestamp_ns = 100;
  w.EndLine(second);
  w.AddPlaneStat(IntStat(b, 3));

  ASSERT_EQ(space.planes.size(), 1u);
  const XPlaneModel& p = space.planes[0];
  EXPECT_EQ(p.id, 7);
  EXPECT_EQ(space.Str(p.name), "/host:CPU");
  ASSERT_EQ(p.event_metadata.size(), 2u);
  EXPECT_EQ(p.event_metadata[0].first_stat, 0u);
  EXPECT_EQ(p.event_metadata[0].num_stats, 2u);
  EXPECT_EQ(p.event_metadata[1].first_stat, 2u);
  EXPECT_EQ(p.event_metadata[1].num_stats, 0u);
  ASSERT_EQ(p.lines.size(), 2u);
  EXPECT_EQ(p.lines[0].first_event, 0u);
  EXPECT_EQ(p.lines[0].num_events, 2u);
  EXPECT_EQ(p.lines[1].first_event, 2u);
  EXPECT_EQ(p.lines[1].num_events, 1u);
  ASSERT_EQ(p.events.size(), 3u);
  EXPECT_EQ(p.events[0].begin_ps, 2005);
  EXPECT_EQ(p.events[1].begin_ps, 2009);
  EXPECT_EQ(p.events[2].begin_ps, 0);  // aggregated: no time of its own
  EXPECT_EQ(p.NumOccurrences(2), 4);
  auto [b0, e0] = p.StatsOf(0);
  ASSERT_EQ(e0 - b0, 2);
  EXPECT_EQ(b0[0].i64, 10);
  EXPECT_EQ(b0[1].i64, 11);
  auto [b1, e1] = p.StatsOf(1);
  EXPECT_EQ(e1 - b1, 0);
  auto [b2, e2] = p.StatsOf(2);
  ASSERT_EQ(e2 - b2, 1);
  EXPECT_EQ(b2[0].i64, 12);
  ASSERT_EQ(p.plane_stats.size(), 1u);
  EXPECT_EQ(p.plane_stats[0].i64, 3);
}

}  // namespace
}  // namespace tbprof
