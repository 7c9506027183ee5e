// xprof's tf.data bottleneck tests (openxla/xprof), rebuilt with our XSpace
// builder; the expected values are those of xprof's test (its expected
// CombinedTfDataStats proto), read in our TfDataStats.
//
// Ported scenarios (file :: test — status — result):
// xprof/convert/xplane_to_tf_data_stats_test.cc
//   HostInputPipeline    ported   pass (Prefetch ← Range on a producer thread; 2 calls,
//                                 bottleneck Range 80 µs, input bound)
//   DeviceInputPipeline  ported   pass (Prefetch ← Generator: "Device:0", no bottleneck row,
//                                 the "No tf.data activity" summary)
//   MapAndBatch          ported   pass (MapAndBatch ← Range called twice in one call)
// Differences of setup, not of answer: xprof's test hands the analysis a bare
// host plane; ours reads the space's /host:CPU plane, so the plane is named so.
// The iterator metadata xprof keeps per host (name, long name, parent, async)
// is checked on the iterator rows of each call, where tbprof keeps it.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "convert/analysis/xspace_to_tf_data_stats.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"

namespace tbprof {
namespace {

using tensorflow::profiler::XSpace;

constexpr int64_t kUs = 1000000;  // ps per µs
constexpr int64_t kRootId = 123, kChildId = 456;

// One timed event of xprof's scenario: a name, [begin, begin + dur) in µs, and
// either an iterator id (with its parent for the child) or an element id.
struct Ev {
  int line;
  const char* name;
  int64_t begin_us, dur_us;
  int64_t id = 0, parent_id = 0, element_id = 0;
};

XSpace HostSpace(const std::vector<Ev>& events) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  std::vector<XLineBuilder> lines = {plane.AddLine(0, "consumer"), plane.AddLine(1, "producer")};
  for (const Ev& ev : events) {
    XEventBuilder e = lines[ev.line].AddEvent(ev.name, ev.begin_us * kUs, ev.dur_us * kUs);
    if (ev.id != 0) e.Int("id", ev.id);
    if (ev.parent_id != 0) e.Int("parent_id", ev.parent_id);
    if (ev.element_id != 0) e.Int("element_id", ev.element_id);
  }
  return space;
}

TfDataStats Analyze(const XSpace& space) {
  auto model = ParseXSpace(space.SerializeAsString(), "host1");
  EXPECT_TRUE(model.ok()) << model.status().message();
  auto stats = ComputeTfDataStats({{"host1", model->get()}});
  EXPECT_TRUE(stats.ok()) << stats.status().message();
  return std::move(*stats);
}

// xprof's IteratorStats of one iterator in one call, in µs.
struct Expected {
  int64_t id, start_us, duration_us, self_us;
  bool is_blocking;
  int64_t num_calls;
};

void ExpectCall(const TfDataPipelineCall& call, int64_t bottleneck_id, int64_t bottleneck_us,
                const std::vector<Expected>& iterators) {
  EXPECT_EQ(call.bottleneck_iterator_id, bottleneck_id);
  EXPECT_EQ(call.bottleneck_iterator_latency_ps, bottleneck_us * kUs);
  ASSERT_EQ(call.iterators.size(), iterators.size());
  for (const Expected& want : iterators) {
    SCOPED_TRACE(want.id);
    const TfDataIteratorStat* got = nullptr;
    for (const TfDataIteratorStat& s : call.iterators) {
      if (s.id == want.id) got = &s;
    }
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->start_time_ps, want.start_us * kUs);
    EXPECT_EQ(got->duration_ps, want.duration_us * kUs);
    EXPECT_EQ(got->self_time_ps, want.self_us * kUs);
    EXPECT_EQ(got->is_blocking, want.is_blocking);
    EXPECT_EQ(got->num_calls, want.num_calls);
  }
}

// xprof's iterator metadata: the root is async and has no parent, the child
// names the root as its parent.
void ExpectMetadata(const TfDataPipelineCall& call, const std::string& root, const std::string& child) {
  for (const TfDataIteratorStat& s : call.iterators) {
    bool is_root = s.id == kRootId;
    EXPECT_EQ(s.name, is_root ? root : child);
    EXPECT_EQ(s.long_name, is_root ? "Iterator::" + root : "Iterator::" + root + "::" + child);
    EXPECT_EQ(s.parent_id, is_root ? -1 : kRootId);
    EXPECT_EQ(s.is_async, is_root);
  }
}

void ExpectPipeline(const TfDataPipeline& p, const std::string& name, int64_t avg_us, int64_t min_us,
                    int64_t max_us) {
  EXPECT_EQ(p.id, kRootId);
  EXPECT_EQ(p.name, name);
  EXPECT_EQ(p.avg_latency_ps, avg_us * kUs);
  EXPECT_EQ(p.min_latency_ps, min_us * kUs);
  EXPECT_EQ(p.max_latency_ps, max_us * kUs);
  EXPECT_EQ(p.num_slow_calls, 1);
}

constexpr char kInputBoundSummary[] =
    "Your profile has a tf.data input pipeline slower than 50 us. For each slow input pipeline, below shows a "
    "bottleneck in the input pipeline and a suggestion on how to fix it.";
constexpr char kGenericSuggestion[] =
    "See <a href=\"https://www.tensorflow.org/guide/data_performance_analysis\" target=\"_blank\">this</a> for "
    "suggestions.";

void ExpectBottleneck(const TfDataStats& stats, int64_t max_us, const std::string& long_name, int64_t latency_us) {
  ASSERT_EQ(stats.bottlenecks.size(), 1u);
  const TfDataBottleneck& b = stats.bottlenecks[0];
  EXPECT_EQ(b.host, "host1");
  EXPECT_EQ(b.input_pipeline, "Host:0");
  EXPECT_EQ(b.max_latency_ps, max_us * kUs);
  EXPECT_EQ(b.iterator_name, "Range");
  EXPECT_EQ(b.iterator_long_name, long_name);
  EXPECT_EQ(b.iterator_latency_ps, latency_us * kUs);
  EXPECT_EQ(b.suggestion, kGenericSuggestion);
  EXPECT_TRUE(stats.is_input_bound);
  EXPECT_EQ(stats.summary, kInputBoundSummary);
}

const TfDataPipeline& OnlyPipeline(const TfDataStats& stats) {
  EXPECT_EQ(stats.hosts.size(), 1u);
  EXPECT_EQ(stats.hosts.at(0).host, "host1");
  EXPECT_EQ(stats.hosts.at(0).pipelines.size(), 1u);
  return stats.hosts.at(0).pipelines.at(0);
}

// range(8).prefetch(2): the first element is produced while the consumer
// waits (blocking), the second ahead of time (not blocking).
TEST(XprofTfDataStatsPorts, HostInputPipeline) {
  TfDataStats stats = Analyze(HostSpace({
      {0, "Iterator::Prefetch", 0, 100, kRootId},
      {0, "PrefetchConsume", 80, 20, 0, 0, 100},
      {0, "Iterator::Prefetch", 200, 20, kRootId},
      {0, "PrefetchConsume", 210, 10, 0, 0, 200},
      {1, "PrefetchProduce", 0, 80, 0, 0, 100},
      {1, "Iterator::Prefetch::Range", 0, 80, kChildId, kRootId},
      {1, "PrefetchProduce", 100, 80, 0, 0, 200},
      {1, "Iterator::Prefetch::Range", 100, 80, kChildId, kRootId},
  }));
  const TfDataPipeline& p = OnlyPipeline(stats);
  ExpectPipeline(p, "Host:0", 60, 20, 100);
  ASSERT_EQ(p.calls.size(), 2u);
  ExpectCall(p.calls[0], kChildId, 80, {{kRootId, 0, 100, 20, true, 1}, {kChildId, 0, 80, 80, true, 1}});
  ExpectCall(p.calls[1], kRootId, 20, {{kRootId, 200, 20, 20, true, 1}, {kChildId, 100, 80, 80, false, 1}});
  ExpectMetadata(p.calls[0], "Prefetch", "Range");
  ExpectBottleneck(stats, 100, "Iterator::Prefetch::Range", 80);
}

// A Prefetch whose child is a Generator is a device input pipeline: analysed,
// but left out of the bottleneck analysis.
TEST(XprofTfDataStatsPorts, DeviceInputPipeline) {
  TfDataStats stats = Analyze(HostSpace({
      {0, "Iterator::Prefetch", 0, 30, kRootId},
      {0, "Iterator::Prefetch", 100, 100, kRootId},
      {0, "PrefetchConsume", 180, 20, 0, 0, 100},
      {1, "PrefetchProduce", 100, 80, 0, 0, 100},
      {1, "Iterator::Prefetch::Generator", 100, 80, kChildId, kRootId},
  }));
  const TfDataPipeline& p = OnlyPipeline(stats);
  ExpectPipeline(p, "Device:0", 65, 30, 100);
  EXPECT_TRUE(p.is_device);
  ASSERT_EQ(p.calls.size(), 2u);
  ExpectCall(p.calls[0], kChildId, 80, {{kRootId, 100, 100, 20, true, 1}, {kChildId, 100, 80, 80, true, 1}});
  ExpectCall(p.calls[1], kRootId, 30, {{kRootId, 0, 30, 30, true, 1}});
  ExpectMetadata(p.calls[0], "Prefetch", "Generator");
  EXPECT_TRUE(stats.bottlenecks.empty());
  EXPECT_FALSE(stats.is_input_bound);
  EXPECT_EQ(stats.summary,
            "No tf.data activity captured in your profile. If your job uses tf.data, try to capture a longer "
            "profile.");
}

// range(8).map(f).batch(2) fused into MapAndBatch: one call during which the
// Range child runs twice (30 µs each) on the producer thread.
TEST(XprofTfDataStatsPorts, MapAndBatch) {
  TfDataStats stats = Analyze(HostSpace({
      {0, "Iterator::MapAndBatch", 0, 100, kRootId},
      {0, "MapAndBatchConsume", 80, 20, 0, 0, 100},
      {1, "MapAndBatchProduce", 0, 30, 0, 0, 100},
      {1, "Iterator::MapAndBatch::Range", 0, 30, kChildId, kRootId},
      {1, "MapAndBatchProduce", 40, 30, 0, 0, 100},
      {1, "Iterator::MapAndBatch::Range", 40, 30, kChildId, kRootId},
  }));
  const TfDataPipeline& p = OnlyPipeline(stats);
  ExpectPipeline(p, "Host:0", 100, 100, 100);
  ASSERT_EQ(p.calls.size(), 1u);
  ExpectCall(p.calls[0], kChildId, 60, {{kRootId, 0, 100, 40, true, 1}, {kChildId, 0, 60, 60, true, 2}});
  ExpectMetadata(p.calls[0], "MapAndBatch", "Range");
  ExpectBottleneck(stats, 100, "Iterator::MapAndBatch::Range", 60);
}

}  // namespace
}  // namespace tbprof
