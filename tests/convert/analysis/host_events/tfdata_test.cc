// tf.data bottleneck analysis on hand-built host planes. Every expected value
// below is worked out by hand from the event times in the test (µs).
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "convert/analysis/host_events/xspace_to_tf_data_stats.h"
#include "convert/tools/tool_registry.h"
#include "convert/grouping/event_forest.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"
#include "tests/convert/analysis/host_events/golden_file.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

using tensorflow::profiler::XSpace;

constexpr int64_t kUs = 1000000;  // ps per µs

// An iterator GetNext TraceMe: id, and parent_id unless it is the root.
void Iter(XLineBuilder& line, const std::string& name, int64_t begin_us, int64_t dur_us, int64_t id,
          int64_t parent_id = 0) {
  auto e = line.AddEvent(name, begin_us * kUs, dur_us * kUs);
  e.Int("id", id);
  if (parent_id != 0) e.Int("parent_id", parent_id);
}

std::unique_ptr<XSpaceModel> Load(const XSpace& space) {
  auto m = ParseXSpace(space.SerializeAsString(), "test");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

TfDataStats Analyze(const std::vector<std::pair<std::string, const XSpaceModel*>>& hosts) {
  auto stats = ComputeTfDataStats(hosts);
  EXPECT_TRUE(stats.ok()) << stats.status().message();
  return std::move(*stats);
}

// One host's XSpace, loaded and analysed.
TfDataStats AnalyzeOneHost(const std::string& host, const XSpace& space) {
  auto model = Load(space);
  return Analyze({{host, model.get()}});
}

const TfDataIteratorStat* FindIterator(const TfDataPipelineCall& call, int64_t id) {
  for (const TfDataIteratorStat& s : call.iterators) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

// Root(1) -> Batch(2) -> Map(3) -> TFRecord(4), all on one thread.
// Call A: Root [0,100) Batch [1,99) Map [2,47) [50,95) TFRecord [3,8) [51,56).
// Call B: Root [200,230) Batch [201,229) Map [202,222) TFRecord [203,205).
XSpace SequentialMapUnderBatch() {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder line = plane.AddLine(1, "tf_data_iterator_get_next");
  Iter(line, "Iterator::Root", 0, 100, 1);
  Iter(line, "Iterator::Root::Batch", 1, 98, 2, 1);
  Iter(line, "Iterator::Root::Batch::Map", 2, 45, 3, 2);
  Iter(line, "Iterator::Root::Batch::Map::TFRecord", 3, 5, 4, 3);
  Iter(line, "Iterator::Root::Batch::Map", 50, 45, 3, 2);
  Iter(line, "Iterator::Root::Batch::Map::TFRecord", 51, 5, 4, 3);
  Iter(line, "Iterator::Root", 200, 30, 1);
  Iter(line, "Iterator::Root::Batch", 201, 28, 2, 1);
  Iter(line, "Iterator::Root::Batch::Map", 202, 20, 3, 2);
  Iter(line, "Iterator::Root::Batch::Map::TFRecord", 203, 2, 4, 3);
  return space;
}

TEST(TfDataStats, SlowSequentialMapUnderBatch) {
  XSpace space = SequentialMapUnderBatch();
  TfDataStats stats = AnalyzeOneHost("host0", space);
  ASSERT_EQ(stats.hosts.size(), 1u);
  ASSERT_EQ(stats.hosts[0].pipelines.size(), 1u);
  const TfDataPipeline& p = stats.hosts[0].pipelines[0];
  EXPECT_EQ(p.id, 1);
  EXPECT_EQ(p.name, "Host:0");
  EXPECT_FALSE(p.is_device);
  EXPECT_EQ(p.num_calls, 2);
  EXPECT_EQ(p.num_slow_calls, 1);  // 100 µs > 50; 30 µs is not
  EXPECT_EQ(p.min_latency_ps, 30 * kUs);
  EXPECT_EQ(p.max_latency_ps, 100 * kUs);
  EXPECT_EQ(p.avg_latency_ps, 65 * kUs);
  ASSERT_EQ(p.calls.size(), 2u);
  const TfDataPipelineCall& slow = p.calls[0];  // sorted by duration, descending
  EXPECT_EQ(slow.duration_ps, 100 * kUs);
  ASSERT_EQ(slow.iterators.size(), 4u);
  const TfDataIteratorStat* root = FindIterator(slow, 1);
  const TfDataIteratorStat* batch = FindIterator(slow, 2);
  const TfDataIteratorStat* map = FindIterator(slow, 3);
  const TfDataIteratorStat* source = FindIterator(slow, 4);
  ASSERT_TRUE(root && batch && map && source);
  EXPECT_EQ(root->self_time_ps, 2 * kUs);     // 100 - 98
  EXPECT_EQ(batch->self_time_ps, 8 * kUs);    // 98 - 45 - 45
  EXPECT_EQ(map->self_time_ps, 80 * kUs);     // (45 - 5) * 2
  EXPECT_EQ(map->duration_ps, 90 * kUs);
  EXPECT_EQ(map->num_calls, 2);
  EXPECT_EQ(map->start_time_ps, 2 * kUs);
  EXPECT_EQ(source->self_time_ps, 10 * kUs);
  EXPECT_EQ(map->parent_id, 2);
  EXPECT_EQ(root->parent_id, -1);
  EXPECT_EQ(map->name, "Map");
  EXPECT_EQ(map->long_name, "Iterator::Root::Batch::Map");
  EXPECT_FALSE(map->is_async);
  for (const TfDataIteratorStat& s : slow.iterators) EXPECT_TRUE(s.is_blocking) << s.name;
  EXPECT_EQ(slow.bottleneck_iterator_id, 3);
  EXPECT_EQ(slow.bottleneck_iterator_latency_ps, 80 * kUs);
  // Call B: Map 20 - 2 = 18 µs of self time is the largest.
  EXPECT_EQ(p.calls[1].bottleneck_iterator_id, 3);
  EXPECT_EQ(p.calls[1].bottleneck_iterator_latency_ps, 18 * kUs);

  ASSERT_EQ(stats.bottlenecks.size(), 1u);
  const TfDataBottleneck& b = stats.bottlenecks[0];
  EXPECT_EQ(b.host, "host0");
  EXPECT_EQ(b.input_pipeline, "Host:0");
  EXPECT_EQ(b.max_latency_ps, 100 * kUs);
  EXPECT_EQ(b.iterator_name, "Map");
  EXPECT_EQ(b.iterator_long_name, "Iterator::Root::Batch::Map");
  EXPECT_EQ(b.iterator_latency_ps, 80 * kUs);
  EXPECT_EQ(b.bottleneck_type, "kSlowTransformationWithParallelVersion");
  EXPECT_NE(b.suggestion.find("<code>num_parallel_calls=tf.data.experimental.AUTOTUNE</code>"), std::string::npos);
  EXPECT_TRUE(stats.is_input_bound);
  EXPECT_EQ(stats.summary.rfind("Your profile has a tf.data input pipeline slower than 50 us.", 0), 0u);
}

// Root(1) -> ParallelMap(2) -> TFRecord(3). The TFRecord runs on a worker
// thread inside ParallelMapProduce and is linked to the ParallelMap call
// that consumes the same element_id.
// Call A: Root [0,120) ParallelMap [1,119) Consume(7) [110,111);
//         worker: Produce(7) [5,115) TFRecord [6,16) map fn [20,114).
// Call B: Root [200,260) ParallelMap [201,259) Consume(8) [202,203);
//         worker: Produce(8) [130,150) TFRecord [131,141): ran ahead, no overlap.
XSpace ParallelMapOnWorker() {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder consumer = plane.AddLine(1, "tf_data_iterator_get_next");
  Iter(consumer, "Iterator::Root", 0, 120, 1);
  Iter(consumer, "Iterator::Root::ParallelMap", 1, 118, 2, 1);
  consumer.AddEvent("ParallelMapConsume", 110 * kUs, 1 * kUs).Int("element_id", 7);
  Iter(consumer, "Iterator::Root", 200, 60, 1);
  Iter(consumer, "Iterator::Root::ParallelMap", 201, 58, 2, 1);
  consumer.AddEvent("ParallelMapConsume", 202 * kUs, 1 * kUs).Int("element_id", 8);
  XLineBuilder worker = plane.AddLine(2, "tf_data_parallel_map");
  worker.AddEvent("ParallelMapProduce", 5 * kUs, 110 * kUs).Int("element_id", 7);
  Iter(worker, "Iterator::Root::ParallelMap::TFRecord", 6, 10, 3, 2);
  worker.AddEvent("InstantiatedCapturedFunction::Run", 20 * kUs, 94 * kUs).Int("id", 99);
  worker.AddEvent("ParallelMapProduce", 130 * kUs, 20 * kUs).Int("element_id", 8);
  Iter(worker, "Iterator::Root::ParallelMap::TFRecord", 131, 10, 3, 2);
  return space;
}

TEST(TfDataEventForest, LinksProducerIteratorUnderConsumingIterator) {
  XSpace space = ParallelMapOnWorker();
  auto model = Load(space);
  const XPlaneModel* plane = model->FindPlane("/host:CPU");
  ASSERT_NE(plane, nullptr);
  EventForest forest(*model, *plane);
  // File order: line 1 events 0..5, line 2 events 6..10.
  const uint32_t parallel_map_a = 1, consume_a = 2, produce_a = 6, tfrecord_a = 7, fn = 8;
  ASSERT_EQ(forest.Children(produce_a).size(), 2u);  // TFRecord and the map function
  EXPECT_EQ(forest.Children(produce_a)[0], tfrecord_a);
  EXPECT_EQ(forest.Children(produce_a)[1], fn);
  ASSERT_EQ(forest.Parents(consume_a).size(), 1u);
  EXPECT_EQ(forest.Parents(consume_a)[0], parallel_map_a);
  EXPECT_EQ(forest.Children(parallel_map_a).size(), 1u);  // only the Consume before linking
  forest.ConnectTfDataEvents();
  ASSERT_EQ(forest.Children(parallel_map_a).size(), 2u);
  EXPECT_EQ(forest.Children(parallel_map_a)[1], tfrecord_a);
  EXPECT_EQ(forest.Parents(tfrecord_a).size(), 2u);  // the Produce and the ParallelMap
  EXPECT_EQ(forest.Children(4).size(), 2u);          // call B's ParallelMap: Consume + TFRecord(8)
  EXPECT_EQ(forest.Children(4)[1], 10u);
}

TEST(TfDataEventForest, AsyncEventsAreNotNestedAndTypesFollowNames) {
  EXPECT_EQ(ClassifyTfDataEvent("Iterator::Root::Map"), TfDataEventType::kIterator);
  EXPECT_EQ(ClassifyTfDataEvent("Iterator"), TfDataEventType::kIterator);
  EXPECT_EQ(ClassifyTfDataEvent("Iterator::Prefetch::Generator"), TfDataEventType::kDeviceSecondIterator);
  EXPECT_EQ(ClassifyTfDataEvent("IteratorGetNextOp::DoCompute"), TfDataEventType::kOther);
  EXPECT_EQ(ClassifyTfDataEvent("PrefetchProduce"), TfDataEventType::kProduce);
  EXPECT_EQ(ClassifyTfDataEvent("MapAndBatchConsume"), TfDataEventType::kConsume);
  EXPECT_FALSE(IsTfDataEventName("IteratorGetNextOp::DoCompute"));
  EXPECT_TRUE(IsTfDataEventName("Iterator::Prefetch::Generator"));

  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder line = plane.AddLine(1, "t");
  line.AddEvent("outer", 0, 100);
  line.AddEvent("async", 10, 50).Int("_a", 1);
  line.AddEvent("inner", 20, 10);
  line.AddEvent("after", 200, 10);
  auto model = Load(space);
  EventForest forest(*model, *model->FindPlane("/host:CPU"));
  ASSERT_EQ(forest.Children(0).size(), 1u);
  EXPECT_EQ(forest.Children(0)[0], 2u);  // "inner", not the async event
  EXPECT_TRUE(forest.Parents(1).empty());
  EXPECT_TRUE(forest.Parents(3).empty());
}

// `_p`/`_c` context groups link producers to consumers across threads; a
// group with 64 or more events on both sides is ignored, as in xla.
TEST(TfDataEventForest, ContextGroupsLinkAcrossThreads) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder a = plane.AddLine(1, "a");
  XLineBuilder b = plane.AddLine(2, "b");
  a.AddEvent("producer", 0, 10).Int("_pt", 2).Uint("_p", 77);
  b.AddEvent("consumer", 20, 10).Int("_ct", 2).Uint("_c", 77);
  b.AddEvent("other_type", 40, 10).Int("_ct", 3).Uint("_c", 77);
  for (int i = 0; i < 64; ++i) {
    a.AddEvent("many_producers", 100 + 2 * i, 1).Int("_pt", 2).Int("_p", 5);
    b.AddEvent("many_consumers", 100 + 2 * i, 1).Int("_ct", 2).Int("_c", 5);
  }
  auto model = Load(space);
  EventForest forest(*model, *model->FindPlane("/host:CPU"));
  ASSERT_EQ(forest.Children(0).size(), 1u);
  EXPECT_EQ(forest.Children(0)[0], 65u);  // line b starts after line a's 65 events
  EXPECT_TRUE(forest.Parents(66).empty());  // context type 3 has no producer
  EXPECT_TRUE(forest.Children(1).empty());  // the 64 x 64 group is dropped
}

TEST(TfDataStats, SlowParallelMapOnAnotherThread) {
  XSpace space = ParallelMapOnWorker();
  TfDataStats stats = AnalyzeOneHost("host0", space);
  ASSERT_EQ(stats.hosts[0].pipelines.size(), 1u);
  const TfDataPipeline& p = stats.hosts[0].pipelines[0];
  EXPECT_EQ(p.num_calls, 2);
  EXPECT_EQ(p.num_slow_calls, 2);
  EXPECT_EQ(p.min_latency_ps, 60 * kUs);
  EXPECT_EQ(p.max_latency_ps, 120 * kUs);
  EXPECT_EQ(p.avg_latency_ps, 90 * kUs);

  const TfDataPipelineCall& a = p.calls[0];
  EXPECT_EQ(a.duration_ps, 120 * kUs);
  ASSERT_EQ(a.iterators.size(), 3u);
  EXPECT_EQ(FindIterator(a, 1)->self_time_ps, 2 * kUs);
  EXPECT_EQ(FindIterator(a, 2)->self_time_ps, 108 * kUs);  // 118 - 10 overlapped by the TFRecord
  EXPECT_TRUE(FindIterator(a, 2)->is_async);
  EXPECT_TRUE(FindIterator(a, 3)->is_blocking);  // [6,16) overlaps [1,119)
  EXPECT_EQ(FindIterator(a, 3)->self_time_ps, 10 * kUs);
  EXPECT_EQ(a.bottleneck_iterator_id, 2);
  EXPECT_EQ(a.bottleneck_iterator_latency_ps, 108 * kUs);

  const TfDataPipelineCall& b = p.calls[1];
  EXPECT_EQ(b.duration_ps, 60 * kUs);
  EXPECT_EQ(FindIterator(b, 2)->self_time_ps, 58 * kUs);  // nothing overlapped
  EXPECT_FALSE(FindIterator(b, 3)->is_blocking);           // produced ahead of time
  EXPECT_EQ(FindIterator(b, 3)->start_time_ps, 131 * kUs);
  EXPECT_EQ(b.bottleneck_iterator_id, 2);

  ASSERT_EQ(stats.bottlenecks.size(), 1u);
  EXPECT_EQ(stats.bottlenecks[0].iterator_name, "ParallelMap");
  EXPECT_EQ(stats.bottlenecks[0].iterator_latency_ps, 108 * kUs);
  EXPECT_EQ(stats.bottlenecks[0].bottleneck_type, "kOther");
  EXPECT_EQ(stats.bottlenecks[0].suggestion,
            "See <a href=\"https://www.tensorflow.org/guide/data_performance_analysis\" target=\"_blank\">this</a> "
            "for suggestions.");
  EXPECT_TRUE(stats.is_input_bound);
}

// Root(1) [0,80) -> Map(2) [1,79) -> TFRecord(3) [2,72): the source dominates.
TEST(TfDataStats, SlowSource) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder line = plane.AddLine(1, "t");
  Iter(line, "Iterator::Root", 0, 80, 1);
  Iter(line, "Iterator::Root::Map", 1, 78, 2, 1);
  Iter(line, "Iterator::Root::Map::TFRecord", 2, 70, 3, 2);
  TfDataStats stats = AnalyzeOneHost("h", space);
  const TfDataPipelineCall& call = stats.hosts[0].pipelines[0].calls[0];
  EXPECT_EQ(FindIterator(call, 1)->self_time_ps, 2 * kUs);
  EXPECT_EQ(FindIterator(call, 2)->self_time_ps, 8 * kUs);
  EXPECT_EQ(call.bottleneck_iterator_id, 3);
  EXPECT_EQ(call.bottleneck_iterator_latency_ps, 70 * kUs);
  ASSERT_EQ(stats.bottlenecks.size(), 1u);
  EXPECT_EQ(stats.bottlenecks[0].iterator_name, "TFRecord");
  EXPECT_EQ(stats.bottlenecks[0].bottleneck_type, "kSlowSource");
  EXPECT_EQ(stats.bottlenecks[0].suggestion.rfind("1. Check the locality of a host and input data.", 0), 0u);
  EXPECT_EQ(stats.hosts[0].pipelines[0].num_slow_calls, 1);
}

// Root calls of exactly `durations_us`, each with a Range child 10 µs shorter.
XSpace RootCalls(const std::vector<int64_t>& durations_us) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder line = plane.AddLine(1, "t");
  int64_t t = 0;
  for (int64_t d : durations_us) {
    Iter(line, "Iterator::Root", t, d, 1);
    Iter(line, "Iterator::Root::Range", t + 5, d - 10, 2, 1);
    t += 1000;
  }
  return space;
}

TEST(TfDataStats, ExactlyFiftyMicrosecondsIsNotSlow) {
  XSpace space = RootCalls({50});
  TfDataStats stats = AnalyzeOneHost("h", space);
  const TfDataPipeline& p = stats.hosts[0].pipelines[0];
  EXPECT_EQ(p.num_slow_calls, 0);
  EXPECT_EQ(p.max_latency_ps, 50 * kUs);
  EXPECT_FALSE(stats.is_input_bound);
  EXPECT_EQ(stats.summary,
            "Your profile does not have any tf.data input pipeline slower than 50 us. Your job could be still input "
            "bound if this profile didn't capture all workers.");
  ASSERT_EQ(stats.bottlenecks.size(), 1u);
  EXPECT_EQ(stats.bottlenecks[0].iterator_name, "Range");  // 40 µs self vs the root's 10
  EXPECT_EQ(stats.bottlenecks[0].iterator_latency_ps, 40 * kUs);
}

TEST(TfDataStats, FiftyOneMicrosecondsIsSlow) {
  XSpace space = RootCalls({50, 51});
  TfDataStats stats = AnalyzeOneHost("h", space);
  const TfDataPipeline& p = stats.hosts[0].pipelines[0];
  EXPECT_EQ(p.num_calls, 2);
  EXPECT_EQ(p.num_slow_calls, 1);
  EXPECT_EQ(p.calls[0].duration_ps, 51 * kUs);
  EXPECT_EQ(p.avg_latency_ps, 50 * kUs + kUs / 2);  // (50 + 51) / 2 in ps
  EXPECT_TRUE(stats.is_input_bound);
  EXPECT_EQ(stats.bottlenecks[0].iterator_latency_ps, 41 * kUs);
}

TEST(TfDataStats, PipelineWithoutSlowCalls) {
  XSpace space = RootCalls({10, 30, 20});
  TfDataStats stats = AnalyzeOneHost("h", space);
  const TfDataPipeline& p = stats.hosts[0].pipelines[0];
  EXPECT_EQ(p.num_calls, 3);
  EXPECT_EQ(p.num_slow_calls, 0);
  EXPECT_EQ(p.min_latency_ps, 10 * kUs);
  EXPECT_EQ(p.max_latency_ps, 30 * kUs);
  EXPECT_EQ(p.avg_latency_ps, 20 * kUs);
  EXPECT_EQ(p.calls[0].duration_ps, 30 * kUs);
  EXPECT_EQ(p.calls[2].duration_ps, 10 * kUs);
  EXPECT_FALSE(stats.is_input_bound);
  EXPECT_EQ(stats.bottlenecks.size(), 1u);
}

TEST(TfDataStats, NoTfDataActivity) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  plane.AddLine(1, "t").AddEvent("IteratorGetNextOp::DoCompute", 0, 100 * kUs).Int("id", 5);
  TfDataStats stats = AnalyzeOneHost("h", space);
  EXPECT_TRUE(stats.hosts[0].pipelines.empty());
  EXPECT_TRUE(stats.bottlenecks.empty());
  EXPECT_FALSE(stats.is_input_bound);
  EXPECT_EQ(stats.summary,
            "No tf.data activity captured in your profile. If your job uses tf.data, try to capture a longer profile.");
}

// A device pipeline (its root is the parent of Iterator::Prefetch::Generator)
// is listed but never chosen as a bottleneck; hosts are ranked by max latency.
TEST(TfDataStats, DevicePipelineAndHostRanking) {
  XSpace space_a;
  {
    XPlaneBuilder plane = AddPlane(space_a, "/host:CPU");
    XLineBuilder line = plane.AddLine(1, "t");
    Iter(line, "Iterator::Root", 0, 40, 1);
    Iter(line, "Iterator::Root::Filter", 1, 30, 2, 1);
    Iter(line, "Iterator::Prefetch", 100, 500, 7);
    Iter(line, "Iterator::Prefetch::Generator", 101, 400, 8, 7);
  }
  XSpace space_b = RootCalls({70});
  auto a = Load(space_a);
  auto b = Load(space_b);
  TfDataStats stats = Analyze({{"a", a.get()}, {"b", b.get()}});
  ASSERT_EQ(stats.hosts[0].pipelines.size(), 2u);
  EXPECT_EQ(stats.hosts[0].pipelines[0].name, "Host:0");
  EXPECT_EQ(stats.hosts[0].pipelines[1].name, "Device:0");
  EXPECT_TRUE(stats.hosts[0].pipelines[1].is_device);
  EXPECT_EQ(stats.hosts[0].pipelines[1].num_slow_calls, 1);
  ASSERT_EQ(stats.bottlenecks.size(), 2u);
  EXPECT_EQ(stats.bottlenecks[0].host, "b");  // 70 µs before 40 µs
  EXPECT_EQ(stats.bottlenecks[1].host, "a");
  EXPECT_EQ(stats.bottlenecks[1].iterator_name, "Filter");
  EXPECT_EQ(stats.bottlenecks[1].bottleneck_type, "kSlowTransformationWithoutParallelVersion");
  EXPECT_EQ(stats.bottlenecks[1].iterator_latency_ps, 30 * kUs);  // Filter has no child: all self time
}

// Crafted links that make iterators their own producers: the walk must end.
TEST(TfDataStats, CyclicLinksTerminate) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder worker = plane.AddLine(1, "w");
  worker.AddEvent("PrefetchProduce", 0, 200 * kUs).Int("element_id", 1);
  Iter(worker, "Iterator::Root", 1, 100, 1, 1);  // its own parent
  worker.AddEvent("PrefetchConsume", 10 * kUs, kUs).Int("element_id", 1);
  XLineBuilder other = plane.AddLine(2, "w2");
  for (int i = 0; i < 3; ++i) {
    other.AddEvent("PrefetchProduce", i * 300 * kUs, 200 * kUs).Int("element_id", 2);
    Iter(other, "Iterator::Root", i * 300 + 1, 100, 5, 5);
    other.AddEvent("PrefetchConsume", (i * 300 + 10) * kUs, kUs).Int("element_id", 2);
  }
  TfDataStats stats = AnalyzeOneHost("h", space);
  ASSERT_EQ(stats.hosts[0].pipelines.size(), 2u);
  const TfDataIteratorStat& self_loop = stats.hosts[0].pipelines[0].calls[0].iterators[0];
  EXPECT_EQ(self_loop.num_calls, 101);  // levels 0..100: deeper than 100 is not walked
  // Three mutually linked calls: bounded by the visit budget, not 3^100.
  EXPECT_LE(stats.hosts[0].pipelines[1].calls[0].iterators[0].num_calls, int64_t{1} << 20);
}

// range(8).prefetch(2): the consumer blocks on the first element (its
// producer [0,80) overlaps the call [0,100)) but not on the second (produced
// at [100,180), consumed in the call [200,220)).
TEST(TfDataStats, PrefetchBlockingAndNonBlockingProducers) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder consumer = plane.AddLine(0, "consumer");
  Iter(consumer, "Iterator::Prefetch", 0, 100, 123);
  consumer.AddEvent("PrefetchConsume", 80 * kUs, 20 * kUs).Int("element_id", 100);
  Iter(consumer, "Iterator::Prefetch", 200, 20, 123);
  consumer.AddEvent("PrefetchConsume", 210 * kUs, 10 * kUs).Int("element_id", 200);
  XLineBuilder producer = plane.AddLine(1, "producer");
  producer.AddEvent("PrefetchProduce", 0, 80 * kUs).Int("element_id", 100);
  Iter(producer, "Iterator::Prefetch::Range", 0, 80, 456, 123);  // same span as its Produce
  producer.AddEvent("PrefetchProduce", 100 * kUs, 80 * kUs).Int("element_id", 200);
  Iter(producer, "Iterator::Prefetch::Range", 100, 80, 456, 123);
  TfDataStats stats = AnalyzeOneHost("host1", space);
  const TfDataPipeline& p = stats.hosts[0].pipelines[0];
  EXPECT_EQ(p.name, "Host:0");
  EXPECT_EQ(p.avg_latency_ps, 60 * kUs);
  EXPECT_EQ(p.num_slow_calls, 1);
  const TfDataPipelineCall& first = p.calls[0];
  EXPECT_EQ(FindIterator(first, 123)->self_time_ps, 20 * kUs);  // 100 - 80
  EXPECT_TRUE(FindIterator(first, 123)->is_async);
  EXPECT_TRUE(FindIterator(first, 456)->is_blocking);
  EXPECT_EQ(first.bottleneck_iterator_id, 456);
  EXPECT_EQ(first.bottleneck_iterator_latency_ps, 80 * kUs);
  const TfDataPipelineCall& second = p.calls[1];
  EXPECT_EQ(FindIterator(second, 123)->start_time_ps, 200 * kUs);
  EXPECT_EQ(FindIterator(second, 123)->self_time_ps, 20 * kUs);
  EXPECT_FALSE(FindIterator(second, 456)->is_blocking);
  EXPECT_EQ(FindIterator(second, 456)->start_time_ps, 100 * kUs);
  EXPECT_EQ(second.bottleneck_iterator_id, 123);
  ASSERT_EQ(stats.bottlenecks.size(), 1u);
  EXPECT_EQ(stats.bottlenecks[0].iterator_long_name, "Iterator::Prefetch::Range");
  EXPECT_EQ(stats.bottlenecks[0].iterator_latency_ps, 80 * kUs);
}

// Only a device pipeline: listed with its stats, but nothing to analyse.
TEST(TfDataStats, DeviceOnlyPipelineIsNotAnalysed) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder consumer = plane.AddLine(0, "consumer");
  Iter(consumer, "Iterator::Prefetch", 0, 30, 123);
  Iter(consumer, "Iterator::Prefetch", 100, 100, 123);
  consumer.AddEvent("PrefetchConsume", 180 * kUs, 20 * kUs).Int("element_id", 100);
  XLineBuilder producer = plane.AddLine(1, "producer");
  producer.AddEvent("PrefetchProduce", 100 * kUs, 80 * kUs).Int("element_id", 100);
  Iter(producer, "Iterator::Prefetch::Generator", 100, 80, 456, 123);
  TfDataStats stats = AnalyzeOneHost("host1", space);
  const TfDataPipeline& p = stats.hosts[0].pipelines[0];
  EXPECT_EQ(p.name, "Device:0");
  EXPECT_EQ(p.avg_latency_ps, 65 * kUs);
  EXPECT_EQ(p.calls[0].bottleneck_iterator_id, 456);  // the Generator, linked as a producer
  EXPECT_EQ(p.calls[0].bottleneck_iterator_latency_ps, 80 * kUs);
  EXPECT_EQ(FindIterator(p.calls[0], 456)->name, "Generator");
  EXPECT_EQ(p.calls[1].bottleneck_iterator_latency_ps, 30 * kUs);
  EXPECT_TRUE(stats.bottlenecks.empty());
  EXPECT_FALSE(stats.is_input_bound);
  // Not "no tf.data activity" (xprof's words here) above a table of this pipeline's calls, nor a "No" verdict:
  // the page says why it has none and where the verdict is.
  EXPECT_TRUE(stats.only_device_pipelines);
  EXPECT_EQ(stats.summary.rfind("Only device input pipelines were captured", 0), 0u) << stats.summary;
  EXPECT_NE(stats.summary.find("input pipeline analyzer"), std::string::npos) << stats.summary;
  boost::json::value json = boost::json::parse(TfDataStatsToJson(stats));
  EXPECT_EQ(json.as_array()[2].at("p").at("is_input_bound").as_string(), "");
}

// map + batch fused: two producers of the same element both run inside the call.
TEST(TfDataStats, MapAndBatchTwoProducersOfOneElement) {
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  XLineBuilder consumer = plane.AddLine(0, "consumer");
  Iter(consumer, "Iterator::MapAndBatch", 0, 100, 123);
  consumer.AddEvent("MapAndBatchConsume", 80 * kUs, 20 * kUs).Int("element_id", 100);
  XLineBuilder producer = plane.AddLine(1, "producer");
  for (int64_t start : {0, 40}) {
    producer.AddEvent("MapAndBatchProduce", start * kUs, 30 * kUs).Int("element_id", 100);
    Iter(producer, "Iterator::MapAndBatch::Range", start, 30, 456, 123);
  }
  TfDataStats stats = AnalyzeOneHost("host1", space);
  const TfDataPipelineCall& call = stats.hosts[0].pipelines[0].calls[0];
  EXPECT_EQ(FindIterator(call, 123)->self_time_ps, 40 * kUs);  // 100 - 30 - 30
  EXPECT_EQ(FindIterator(call, 456)->num_calls, 2);
  EXPECT_EQ(FindIterator(call, 456)->duration_ps, 60 * kUs);
  EXPECT_EQ(call.bottleneck_iterator_id, 456);
  EXPECT_EQ(stats.bottlenecks[0].iterator_latency_ps, 60 * kUs);
  EXPECT_EQ(stats.bottlenecks[0].bottleneck_type, "kOther");
}

TEST(TfDataStats, MissingHostPlaneIsAnError) {
  XSpace space;
  AddPlane(space, "/device:GPU:0");
  auto model = Load(space);
  auto stats = ComputeTfDataStats({{"gpu-only", model.get()}});
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().message(), "Could not find host XPlane for tf data stats: gpu-only");
}

TEST(TfDataJson, ThreeTablesWithXprofColumns) {
  XSpace space = ParallelMapOnWorker();
  TfDataStats stats = AnalyzeOneHost("host0", space);
  std::string json = TfDataStatsToJson(stats);
  boost::json::value v = boost::json::parse(json);
  const boost::json::array& tables = v.as_array();
  ASSERT_EQ(tables.size(), 3u);
  // Graph: 3 iterators x 2 calls.
  const auto& graph = tables[0].as_object();
  EXPECT_EQ(graph.at("cols").as_array().size(), 6u);
  EXPECT_EQ(graph.at("cols").as_array()[3].as_object().at("id").as_string(), "name");
  const auto& rows = graph.at("rows").as_array();
  ASSERT_EQ(rows.size(), 6u);
  // Rank 0, iterator 2 (ParallelMap): the bottleneck (type 2), parent "1".
  const auto& pm = rows[1].as_object().at("c").as_array();
  EXPECT_EQ(pm[2].as_object().at("v").as_int64(), 0);
  EXPECT_EQ(pm[3].as_object().at("v").as_string(), "2");
  EXPECT_EQ(pm[3].as_object().at("f").as_string(),
            "<div style='padding: 1px;'><b>ParallelMap</b><br/><div style='text-align: left;'>Start Time: 1 us<br/>"
            "Total Duration: 118 us<br/>Self Duration: 108 us<br/># Calls: 1</div></div>");
  EXPECT_EQ(pm[4].as_object().at("v").as_string(), "1");
  EXPECT_EQ(pm[5].as_object().at("v").as_int64(), 2);
  EXPECT_EQ(rows[0].as_object().at("c").as_array()[4].as_object().at("v").as_string(), "");  // root: no parent
  EXPECT_EQ(rows[0].as_object().at("c").as_array()[5].as_object().at("v").as_int64(), 1);  // blocking
  EXPECT_EQ(rows[5].as_object().at("c").as_array()[5].as_object().at("v").as_int64(), 0);  // ran ahead
  // Summary: min 60, avg 90, max 120, 2 calls, 2 slow.
  const auto& summary = tables[1].as_object().at("rows").as_array()[0].as_object().at("c").as_array();
  std::vector<int64_t> numbers;
  for (size_t i = 2; i < summary.size(); ++i) numbers.push_back(summary[i].as_object().at("v").as_int64());
  EXPECT_EQ(numbers, (std::vector<int64_t>{60, 90, 120, 2, 2}));
  // Bottleneck table with the custom properties.
  const auto& bt = tables[2].as_object();
  EXPECT_EQ(bt.at("p").as_object().at("is_input_bound").as_string(), "true");
  const auto& brow = bt.at("rows").as_array()[0].as_object().at("c").as_array();
  EXPECT_EQ(brow[2].as_object().at("v").as_int64(), 120);
  EXPECT_EQ(brow[3].as_object().at("v").as_string(),
            "<u>Iterator Type</u>: <b>ParallelMap</b><br/><u>Long Name</u>: Iterator::Root::ParallelMap<br/>"
            "<u>Latency</u>: 108 us");
  EXPECT_FALSE(tables[0].as_object().contains("p"));
}

TEST(TfDataJson, LatencyUsesThousandsSeparator) {
  XSpace space = RootCalls({1234567});
  auto model = Load(space);
  std::string json = TfDataStatsToJson(Analyze({{"h", model.get()}}));
  EXPECT_NE(json.find("<u>Latency</u>: 1,234,557 us"), std::string::npos) << json;
}

TEST(TfDataJson, EscapesStrings) {
  XSpace space = RootCalls({10});
  auto model = Load(space);
  const std::string host = "h\"\\\n\t\x01\xc3\xa9/x";
  boost::json::value v = boost::json::parse(TfDataStatsToJson(Analyze({{host, model.get()}})));
  EXPECT_EQ(v.as_array()[1].as_object().at("rows").as_array()[0].as_object().at("c").as_array()[0].as_object().at("v").as_string(),
            host);
}

TEST(TfDataJson, GoldenWholeOutputs) {
  XSpace seq = SequentialMapUnderBatch();
  XSpace par = ParallelMapOnWorker();
  auto a = Load(seq);
  auto b = Load(par);
  testing_golden::ExpectMatchesGolden("tfdata/two_hosts.json",
                                      TfDataStatsToJson(Analyze({{"seq", a.get()}, {"par", b.get()}})));
  XSpace empty;
  AddPlane(empty, "/host:CPU");
  auto e = Load(empty);
  testing_golden::ExpectMatchesGolden("tfdata/no_activity.json", TfDataStatsToJson(Analyze({{"h", e.get()}})));
}

// A real TensorFlow 2.3 run: its trace viewer JSON (the legacy logdir keeps no
// xplane) rebuilt as a host plane, one line per thread, args as stats.
// Read off the trace: the consumer thread holds Iterator::Model [209656,
// +51503 µs) and Iterator::Model::ParallelMap [210357, +50701 µs) with no
// same-thread tf.data child (TF 2.3 wrote no Produce/Consume events).
TEST(TfDataStats, RealTensorFlowTrace) {
  std::filesystem::path dir = std::filesystem::path(TBPROF_TESTDATA) / "legacy_logdir_tf23_cpu";
  if (!std::filesystem::exists(dir)) GTEST_FAIL() << "required: no testdata at " << dir;
  std::string trace_path;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().string().ends_with(".trace.json.gz")) trace_path = entry.path().string();
  }
  ASSERT_FALSE(trace_path.empty());
  auto text = ReadFileMaybeGzip(trace_path);
  ASSERT_TRUE(text.ok()) << text.status().message();
  boost::json::value trace = boost::json::parse(*text);
  XSpace space;
  XPlaneBuilder plane = AddPlane(space, "/host:CPU");
  std::map<int64_t, XLineBuilder> lines;
  for (const auto& v : trace.at("traceEvents").as_array()) {
    const auto& e = v.as_object();
    if (!e.contains("ph") || e.at("ph").as_string() != "X") continue;
    int64_t tid = e.at("tid").to_number<int64_t>();
    auto it = lines.find(tid);
    if (it == lines.end()) it = lines.emplace(tid, plane.AddLine(tid, std::to_string(tid))).first;
    // ts/dur are µs, some with a fractional part.
    auto ps = [&](const char* key) { return std::llround(e.at(key).to_number<double>() * kUs); };
    auto event = it->second.AddEvent(std::string(e.at("name").as_string()), ps("ts"), ps("dur"));
    if (!e.contains("args")) continue;
    for (const auto& [key, arg] : e.at("args").as_object()) {
      std::string value(arg.as_string());
      char* end = nullptr;
      long long number = std::strtoll(value.c_str(), &end, 10);
      if (!value.empty() && *end == '\0') {
        event.Int(key, number);
      } else {
        event.Str(key, value);
      }
    }
  }
  TfDataStats stats = AnalyzeOneHost("8c859046be41", space);
  ASSERT_EQ(stats.hosts[0].pipelines.size(), 1u);
  const TfDataPipeline& p = stats.hosts[0].pipelines[0];
  EXPECT_EQ(p.name, "Host:0");
  EXPECT_EQ(p.id, 8657332241325920452LL);
  EXPECT_EQ(p.num_calls, 1);
  EXPECT_EQ(p.num_slow_calls, 1);
  EXPECT_EQ(p.max_latency_ps, 51503 * kUs);
  const TfDataPipelineCall& call = p.calls[0];
  EXPECT_EQ(FindIterator(call, 8657332241325920452LL)->self_time_ps, 802 * kUs);  // 51503 - 50701
  EXPECT_EQ(call.bottleneck_iterator_id, 4057087162746704081LL);
  EXPECT_EQ(call.bottleneck_iterator_latency_ps, 50701 * kUs);
  ASSERT_EQ(stats.bottlenecks.size(), 1u);
  EXPECT_EQ(stats.bottlenecks[0].iterator_name, "ParallelMap");
  EXPECT_EQ(stats.bottlenecks[0].iterator_long_name, "Iterator::Model::ParallelMap");
  EXPECT_EQ(stats.bottlenecks[0].bottleneck_type, "kOther");
  EXPECT_TRUE(stats.is_input_bound);
  // Iterators on other threads are not linked without Produce/Consume events.
  EXPECT_EQ(call.iterators.size(), 2u);
}

TEST(TfDataTool, RegisteredAndRunsOnRealProfiles) {
  const ToolSpec* tool = FindProfileTool("tf_data_bottleneck_analysis");
  ASSERT_NE(tool, nullptr);
  EXPECT_TRUE(tool->all_hosts);
  int checked = test_files::CheckToolOnRealProfiles(*tool, [](const std::string& path, const ToolOutput& out) {
    boost::json::value v = boost::json::parse(out.body);
    ASSERT_EQ(v.as_array().size(), 3u) << path;
    // These JAX profiles have no Iterator:: events (checked with `strings`).
    EXPECT_TRUE(v.as_array()[2].as_object().at("rows").as_array().empty()) << path;
  });
  EXPECT_GE(checked, 4);
}

}  // namespace
}  // namespace tbprof
