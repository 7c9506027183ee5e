// Checks that our decoded model holds exactly what libprotobuf's generated
// classes decode from the same bytes. Names are resolved through the proto's
// metadata maps here, independently of the reader.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "convert/model/xspace_model.h"
#include "proto/xplane.pb.h"

namespace tbprof::testing {

struct ProtoCounts {
  size_t planes = 0, lines = 0, events = 0, event_stats = 0, event_metadata = 0, stat_metadata = 0,
         plane_stats = 0;
};

inline ProtoCounts CountProto(const tensorflow::profiler::XSpace& space) {
  ProtoCounts c;
  c.planes = static_cast<size_t>(space.planes_size());
  for (const auto& p : space.planes()) {
    c.lines += static_cast<size_t>(p.lines_size());
    c.event_metadata += p.event_metadata_size();
    c.stat_metadata += p.stat_metadata_size();
    c.plane_stats += static_cast<size_t>(p.stats_size());
    for (const auto& l : p.lines()) {
      c.events += static_cast<size_t>(l.events_size());
      for (const auto& e : l.events()) c.event_stats += static_cast<size_t>(e.stats_size());
    }
  }
  return c;
}

// Compares one stat; `where` locates it in failure messages.
inline void ExpectSameStat(const XSpaceModel& m, const tensorflow::profiler::XPlane& pp,
                           const tensorflow::profiler::XStat& ps, const Stat& ms, const std::string& where) {
  auto name_it = pp.stat_metadata().find(ps.metadata_id());
  std::string want_name = name_it == pp.stat_metadata().end() ? "" : name_it->second.name();
  ASSERT_EQ(m.Str(ms.name), want_name) << where;
  // The model's kind and value against the proto's.
  auto same = [&](StatKind kind, const auto& ours, const auto& want) {
    ASSERT_EQ(ms.kind, kind) << where;
    ASSERT_EQ(ours, want) << where;
  };
  using S = tensorflow::profiler::XStat;
  switch (ps.value_case()) {
    case S::kDoubleValue: return same(StatKind::kDouble, ms.f64, ps.double_value());
    case S::kUint64Value: return same(StatKind::kUint64, ms.u64, ps.uint64_value());
    case S::kInt64Value: return same(StatKind::kInt64, ms.i64, ps.int64_value());
    case S::kStrValue: return same(StatKind::kStr, m.Str(ms.str), ps.str_value());
    case S::kBytesValue: return same(StatKind::kBytes, m.Blob(ms.blob), ps.bytes_value());
    case S::kRefValue: {  // a string: the name of the stat metadata it refers to
      auto ref = pp.stat_metadata().find(static_cast<int64_t>(ps.ref_value()));
      return same(StatKind::kStr, m.Str(ms.str), ref == pp.stat_metadata().end() ? "" : ref->second.name());
    }
    default:
      ASSERT_EQ(ms.kind, StatKind::kNone) << where;
  }
}

// Every plane, line, event (name, begin, duration, stats), plane stat and
// metadata entry of `space` must be in `m`, in file order.
inline void ExpectSameSpace(const tensorflow::profiler::XSpace& space, const XSpaceModel& m) {
  ASSERT_EQ(m.planes.size(), static_cast<size_t>(space.planes_size()));
  ASSERT_EQ(m.hostnames.size(), static_cast<size_t>(space.hostnames_size()));
  for (int h = 0; h < space.hostnames_size(); ++h) EXPECT_EQ(m.hostnames[h], space.hostnames(h));
  for (int pi = 0; pi < space.planes_size(); ++pi) {
    const auto& pp = space.planes(pi);
    const XPlaneModel& mp = m.planes[static_cast<size_t>(pi)];
    const std::string pw = "plane " + std::to_string(pi) + " " + pp.name();
    ASSERT_EQ(m.Str(mp.name), pp.name());
    ASSERT_EQ(mp.id, pp.id()) << pw;
    ASSERT_EQ(mp.lines.size(), static_cast<size_t>(pp.lines_size())) << pw;
    ASSERT_EQ(mp.stat_metadata.size(), pp.stat_metadata_size()) << pw;
    // Metadata entries named by events that are not in the map are added by the reader.
    ASSERT_GE(mp.event_metadata.size(), pp.event_metadata_size()) << pw;
    size_t named = 0;
    for (const EventMetadata& md : mp.event_metadata) {
      auto it = pp.event_metadata().find(md.id);
      if (it == pp.event_metadata().end()) continue;
      ++named;
      ASSERT_EQ(m.Str(md.name), it->second.name()) << pw;
      ASSERT_EQ(m.Str(md.display_name), it->second.display_name()) << pw;
      ASSERT_EQ(md.num_stats, static_cast<uint32_t>(it->second.stats_size())) << pw;
      for (int k = 0; k < it->second.stats_size(); ++k) {
        ExpectSameStat(m, pp, it->second.stats(k), mp.metadata_stats[md.first_stat + k], pw + " metadata");
      }
    }
    ASSERT_EQ(named, pp.event_metadata_size()) << pw;
    ASSERT_EQ(mp.plane_stats.size(), static_cast<size_t>(pp.stats_size())) << pw;
    for (int k = 0; k < pp.stats_size(); ++k) ExpectSameStat(m, pp, pp.stats(k), mp.plane_stats[k], pw + " stat");
    for (int li = 0; li < pp.lines_size(); ++li) {
      const auto& pl = pp.lines(li);
      const LineModel& ml = mp.lines[static_cast<size_t>(li)];
      const std::string lw = pw + " line " + std::to_string(li);
      ASSERT_EQ(ml.id, pl.id()) << lw;
      ASSERT_EQ(ml.display_id, pl.display_id()) << lw;
      ASSERT_EQ(m.Str(ml.name), pl.name()) << lw;
      ASSERT_EQ(m.Str(ml.display_name), pl.display_name()) << lw;
      ASSERT_EQ(ml.timestamp_ns, pl.timestamp_ns()) << lw;
      ASSERT_EQ(ml.duration_ps, pl.duration_ps()) << lw;
      ASSERT_EQ(ml.num_events, static_cast<uint32_t>(pl.events_size())) << lw;
      for (int ei = 0; ei < pl.events_size(); ++ei) {
        const auto& pe = pl.events(ei);
        const uint32_t e = ml.first_event + static_cast<uint32_t>(ei);
        const std::string ew = lw + " event " + std::to_string(ei);
        auto md = pp.event_metadata().find(pe.metadata_id());
        ASSERT_EQ(m.Str(mp.EventName(e)), md == pp.event_metadata().end() ? "" : md->second.name()) << ew;
        if (pe.data_case() == tensorflow::profiler::XEvent::kNumOccurrences) {
          ASSERT_EQ(mp.NumOccurrences(e), pe.num_occurrences()) << ew;
        } else {
          ASSERT_EQ(mp.NumOccurrences(e), 0) << ew;
          ASSERT_EQ(mp.events[e].begin_ps, pl.timestamp_ns() * 1000 + pe.offset_ps()) << ew;
        }
        ASSERT_EQ(mp.events[e].duration_ps, pe.duration_ps()) << ew;
        auto [sb, se] = mp.StatsOf(e);
        ASSERT_EQ(se - sb, pe.stats_size()) << ew;
        for (int k = 0; k < pe.stats_size(); ++k) ExpectSameStat(m, pp, pe.stats(k), sb[k], ew);
      }
    }
  }
}

}  // namespace tbprof::testing
