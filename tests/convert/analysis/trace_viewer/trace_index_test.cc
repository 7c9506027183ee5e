// The streaming index against brute force: every answer is a subset of the
// events overlapping the window, a window with at most `resolution` events is
// returned whole, and zooming in reaches every event.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "convert/analysis/trace_viewer/trace_index.h"
#include "convert/tools/trace_viewer_tools.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"
#include "tests/convert/analysis/trace_viewer/trace_test_util.h"

namespace tbprof {
namespace {

// Rows of nested events: steps (depth 0) holding ops (depth 1) holding
// kernels (depth 2), with dense bursts of tiny events and a few instants.
std::shared_ptr<const XSpaceModel> DenseModel(uint64_t seed) {
  tensorflow::profiler::XSpace space;
  std::mt19937_64 rng(seed);
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 0);
  for (int row = 0; row < 6; ++row) {
    XPlaneBuilder& plane = row < 3 ? host : gpu;
    XLineBuilder line = plane.AddLine(100 + row, "row" + std::to_string(row), 0);
    int64_t t = static_cast<int64_t>(rng() % 1000);
    for (int step = 0; step < 20; ++step) {
      const int64_t step_begin = t;
      int64_t u = step_begin + 10;
      std::vector<std::tuple<std::string, int64_t, int64_t>> inner;
      const int ops = 20 + static_cast<int>(rng() % 40);
      for (int op = 0; op < ops; ++op) {
        const int64_t op_begin = u;
        int64_t k = op_begin + 1;
        const int kernels = static_cast<int>(rng() % 8);
        for (int j = 0; j < kernels; ++j) {
          const int64_t d = 1 + static_cast<int64_t>(rng() % 50);
          inner.emplace_back("kernel" + std::to_string(j), k, d);
          k += d + static_cast<int64_t>(rng() % 3);
        }
        inner.emplace_back("op" + std::to_string(op % 7), op_begin, k + 1 - op_begin);
        u = k + 2 + static_cast<int64_t>(rng() % 100);
        if (op % 9 == 0) inner.emplace_back("instant", u - 1, 0);
      }
      line.AddEvent("step", step_begin, u + 5 - step_begin).Int("step_num", step);
      std::sort(inner.begin(), inner.end(), [](const auto& a, const auto& b) {
        return std::get<1>(a) != std::get<1>(b) ? std::get<1>(a) < std::get<1>(b) : std::get<2>(a) > std::get<2>(b);
      });
      for (const auto& [name, b, d] : inner) line.AddEvent(name, b, d);
      t = u + 10 + static_cast<int64_t>(rng() % 5000);
    }
  }
  auto m = ParseXSpace(space.SerializeAsString(), "dense");
  EXPECT_TRUE(m.ok());
  return std::shared_ptr<const XSpaceModel>(std::move(*m));
}

struct Ref {
  uint32_t plane, event;
  bool operator==(const Ref& o) const = default;
  bool operator<(const Ref& o) const { return plane != o.plane ? plane < o.plane : event < o.event; }
};

// Every shown event overlapping [t0, t1], by brute force over the model.
std::set<Ref> Overlapping(const TraceIndex& index, int64_t t0, int64_t t1) {
  std::set<Ref> out;
  for (const TraceRow& row : index.layout().rows) {
    const XPlaneModel& p = index.space().planes[row.plane];
    const LineModel& line = p.lines[row.line];
    for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const Event& ev = p.events[e];
      if (ev.begin_ps <= t1 && ev.end_ps() >= t0) out.insert(Ref{row.plane, e});
    }
  }
  return out;
}

std::set<Ref> Hits(const TraceIndex& index, const TraceQueryResult& r) {
  std::set<Ref> out;
  for (const TraceHit& h : r.hits) out.insert(Ref{index.layout().rows[h.row].plane, h.event});
  EXPECT_EQ(out.size(), r.hits.size()) << "an event was returned twice";
  return out;
}

TraceQueryResult QueryAt(const TraceIndex& index, int64_t t0, int64_t t1, double resolution) {
  TraceQuery q;
  q.start_ps = t0;
  q.end_ps = t1;
  q.resolution = resolution;
  q.min_events_to_filter = 0;  // down-sample even this small trace
  return index.Query(q);
}

TEST(TraceIndex, CoarseAnswersAreSubsetsAndZoomingReturnsEverything) {
  auto model = DenseModel(7);
  auto index = TraceIndex::Build(model);
  const int64_t total = index->num_events();
  ASSERT_GT(total, 10000);
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t span = index->max_ps() - index->min_ps();
    int64_t t0 = index->min_ps() + static_cast<int64_t>(rng() % span);
    int64_t t1 = std::min(index->max_ps(), t0 + 1 + static_cast<int64_t>(rng() % (span / (1 + trial % 8))));
    const std::set<Ref> truth = Overlapping(*index, t0, t1);
    for (double resolution : {10.0, 100.0, 1000.0}) {
      TraceQueryResult r = QueryAt(*index, t0, t1, resolution);
      const std::set<Ref> got = Hits(*index, r);
      EXPECT_TRUE(std::includes(truth.begin(), truth.end(), got.begin(), got.end()))
          << "returned an event outside [" << t0 << "," << t1 << "]";
      if (!truth.empty()) {
        EXPECT_FALSE(got.empty());
      }
      EXPECT_TRUE(r.filtered_by_visibility);
    }
    // Resolution above the window's event count: the whole window.
    TraceQueryResult all = QueryAt(*index, t0, t1, static_cast<double>(truth.size() + 1));
    EXPECT_TRUE(Hits(*index, all) == truth) << "trial " << trial << ": window not returned whole";
    // Resolution 0: no down-sampling at all.
    EXPECT_TRUE(Hits(*index, QueryAt(*index, t0, t1, 0)) == truth) << "resolution 0 filtered";
  }
}

TEST(TraceIndex, CoarseResolutionBoundsTheAnswerAndKeepsEveryRowVisible) {
  auto model = DenseModel(11);
  auto index = TraceIndex::Build(model);
  TraceQueryResult r = QueryAt(*index, 0, 0, 50);
  // 6 rows, depth ≤ 3: visible events per row and depth are about 2·resolution.
  EXPECT_LT(static_cast<int64_t>(r.hits.size()), 6 * 3 * 2 * 50 + 6 * 3 * 4);
  EXPECT_LT(static_cast<int64_t>(r.hits.size()), index->num_events() / 10);
  std::set<uint32_t> rows;
  for (const TraceHit& h : r.hits) rows.insert(h.row);
  EXPECT_EQ(rows.size(), index->layout().rows.size()) << "a busy row vanished at coarse resolution";
  EXPECT_GT(r.resolution_ps, 0);
  // Every event at least twice the resolution long is shown (it represents
  // the bucket width 2^k >= res, and is wide enough for the visibility rule).
  std::set<Ref> got = Hits(*index, r);
  size_t long_events = 0;
  for (const Ref& ref : Overlapping(*index, index->min_ps(), index->max_ps())) {
    const Event& ev = index->space().planes[ref.plane].events[ref.event];
    if (ev.duration_ps < 2 * r.resolution_ps) continue;
    ++long_events;
    EXPECT_TRUE(got.count(ref)) << "a " << ev.duration_ps << " ps event is missing at res " << r.resolution_ps;
  }
  EXPECT_GT(long_events, 0u);
}

TEST(TraceIndex, EveryEventIsReachableByZoomingIn) {
  auto model = DenseModel(5);
  auto index = TraceIndex::Build(model);
  std::mt19937_64 rng(9);
  std::vector<Ref> all;
  for (const Ref& r : Overlapping(*index, index->min_ps(), index->max_ps())) all.push_back(r);
  ASSERT_EQ(static_cast<int64_t>(all.size()), index->num_events());
  for (int trial = 0; trial < 200; ++trial) {
    const Ref target = all[rng() % all.size()];
    const Event& ev = index->space().planes[target.plane].events[target.event];
    // Halve a window centred on the event until the event shows up.
    int64_t half = (index->max_ps() - index->min_ps()) / 2 + 1;
    const int64_t centre = ev.begin_ps + ev.duration_ps / 2;
    bool seen = false;
    for (int zoom = 0; zoom < 64 && !seen; ++zoom, half = std::max<int64_t>(half / 2, 0)) {
      TraceQueryResult r = QueryAt(*index, std::max<int64_t>(centre - half, 0), centre + half, 200);
      seen = Hits(*index, r).count(target) > 0;
    }
    EXPECT_TRUE(seen) << "event at " << ev.begin_ps << " never appeared";
  }
}

TEST(TraceIndex, StreamingJsonCarriesTheVisibilityFields) {
  auto model = DenseModel(13);
  std::shared_ptr<const TraceIndex> index = TraceIndex::Build(model);
  auto json = StreamingTraceJson({StreamingTraceHost{index, "h"}}, {{"resolution", "50"}}, /*min_events_to_filter=*/0);
  ASSERT_TRUE(json.ok());
  boost::json::object doc = trace_testing::ParseTraceDocument(*json);
  EXPECT_EQ(doc.at("filteredByVisibility"), true);
  const auto events = trace_testing::Events(doc);
  EXPECT_EQ(doc.at("returnedEventsSize").to_number<size_t>(), events.size());
  EXPECT_LT(static_cast<int64_t>(events.size()), index->num_events());
  const auto& span = doc.at("fullTimespan").as_array();
  EXPECT_DOUBLE_EQ(span.at(0).to_number<double>(), static_cast<double>(index->min_ps()) / 1e9);
  EXPECT_DOUBLE_EQ(span.at(1).to_number<double>(), static_cast<double>(index->max_ps()) / 1e9);
  // Under the streaming threshold nothing is filtered and the UI stops streaming.
  json = StreamingTraceJson({StreamingTraceHost{index, "h"}}, {{"resolution", "50"}});
  ASSERT_TRUE(json.ok());
  doc = trace_testing::ParseTraceDocument(*json);
  EXPECT_EQ(doc.at("filteredByVisibility"), false);
  EXPECT_EQ(doc.at("returnedEventsSize").to_number<int64_t>(), index->num_events());
}

TEST(TraceIndex, UnsortedLinesAreIndexedCorrectly) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder line = host.AddLine(1, "t", 0);
  // File order is not begin order; the child is written before its parent.
  line.AddEvent("late", 900, 10);
  line.AddEvent("child", 110, 20);
  line.AddEvent("parent", 100, 100);
  line.AddEvent("early", 0, 5);
  auto m = ParseXSpace(space.SerializeAsString(), "unsorted");
  ASSERT_TRUE(m.ok());
  auto index = TraceIndex::Build(std::shared_ptr<const XSpaceModel>(std::move(*m)));
  EXPECT_EQ(index->min_ps(), 0);
  EXPECT_EQ(index->max_ps(), 910);
  TraceQueryResult r = QueryAt(*index, 105, 115, 0);
  std::set<std::string> names;
  for (const TraceHit& h : r.hits) names.insert(std::string(index->renderer().Name(index->layout().rows[h.row], h.event)));
  EXPECT_EQ(names, (std::set<std::string>{"parent", "child"}));
}

TEST(TraceIndex, EmptySpaceAnswersEmpty) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  host.AddLine(1, "idle", 0);
  auto m = ParseXSpace(space.SerializeAsString(), "empty");
  ASSERT_TRUE(m.ok());
  std::shared_ptr<const TraceIndex> index = TraceIndex::Build(std::shared_ptr<const XSpaceModel>(std::move(*m)));
  EXPECT_EQ(index->num_events(), 0);
  EXPECT_TRUE(QueryAt(*index, 0, 0, 8000).hits.empty());
  auto json = StreamingTraceJson({StreamingTraceHost{index, ""}}, {});
  ASSERT_TRUE(json.ok());
  boost::json::object doc = trace_testing::ParseTraceDocument(*json);
  EXPECT_EQ(doc.at("returnedEventsSize"), 0);
}

}  // namespace
}  // namespace tbprof
