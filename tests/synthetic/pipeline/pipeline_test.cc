// Semantics of each pipeline transformation, checked against hand-computed
// sequences, and the trace events the pipelines emit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>

#include "tracer/host_tracer.h"
#include "synthetic/pipeline/pipeline_dataset.h"
#include "synthetic/pipeline/pipeline_work.h"

namespace tbprof::pipeline {
namespace {

std::vector<int64_t> Values(const Dataset& ds, int64_t max = -1) {
  auto it = ds.MakeIterator();
  std::vector<int64_t> out;
  for (const Element& e : Collect(*it, max)) out.insert(out.end(), e.values.begin(), e.values.end());
  return out;
}

std::vector<std::vector<int64_t>> Batches(const Dataset& ds) {
  auto it = ds.MakeIterator();
  std::vector<std::vector<int64_t>> out;
  for (const Element& e : Collect(*it)) out.push_back(e.values);
  return out;
}

std::vector<int64_t> Iota(int64_t a, int64_t b) {
  std::vector<int64_t> v;
  for (int64_t i = a; i < b; ++i) v.push_back(i);
  return v;
}

MapFn Times(int64_t k) {
  return [k](Element& e) {
    for (auto& v : e.values) v *= k;
  };
}

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("tbprof-pipeline-test-" + std::to_string(::getpid()) + "-" + std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

TEST(HarnessPipeline, RangeAndEndOfSequence) {
  EXPECT_EQ(Values(Range(0, 5)), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Values(Range(10, 0, -3)), (std::vector<int64_t>{10, 7, 4, 1}));
  EXPECT_TRUE(Values(Range(3, 3)).empty());
  auto it = Range(0, 2).MakeIterator();
  Element e;
  EXPECT_TRUE(it->GetNext(e));
  EXPECT_TRUE(it->GetNext(e));
  EXPECT_FALSE(it->GetNext(e));
  EXPECT_FALSE(it->GetNext(e)) << "end of sequence is sticky";
}

TEST(HarnessPipeline, GeneratorMapFilter) {
  Dataset gen = Generator([](int64_t i, Element& out) {
    if (i >= 6) return false;
    out.values = {i * i};
    return true;
  });
  EXPECT_EQ(Values(gen), (std::vector<int64_t>{0, 1, 4, 9, 16, 25}));
  EXPECT_EQ(Values(gen.Map(Times(2))), (std::vector<int64_t>{0, 2, 8, 18, 32, 50}));
  EXPECT_EQ(Values(gen.Filter([](const Element& e) { return e.values[0] % 2 == 1; })),
            (std::vector<int64_t>{1, 9, 25}));
}

TEST(HarnessPipeline, BatchKeepsOrTakesRemainder) {
  EXPECT_EQ(Batches(Range(0, 7).Batch(3)), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6}}));
  EXPECT_EQ(Batches(Range(0, 7).Batch(3, /*drop_remainder=*/true)),
            (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}}));
}

TEST(HarnessPipeline, RepeatFiniteForeverAndEmpty) {
  EXPECT_EQ(Values(Range(0, 3).Repeat(2)), (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(Values(Range(0, 2).Repeat(), 5), (std::vector<int64_t>{0, 1, 0, 1, 0}));
  EXPECT_TRUE(Values(Range(0, 3).Repeat(0)).empty());
  EXPECT_TRUE(Values(Range(0, 0).Repeat()).empty()) << "repeating an empty dataset ends";
}

TEST(HarnessPipeline, ShuffleIsAPermutationAndDeterministicPerSeed) {
  std::vector<int64_t> a = Values(Range(0, 100).Shuffle(16, 42));
  std::vector<int64_t> b = Values(Range(0, 100).Shuffle(16, 42));
  std::vector<int64_t> c = Values(Range(0, 100).Shuffle(16, 7));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, Iota(0, 100));
  std::vector<int64_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Iota(0, 100));
  // A buffer of 16 can only move an element forward by at most 15 positions.
  for (size_t i = 0; i < a.size(); ++i) EXPECT_LE(a[i], int64_t(i) + 15);
  EXPECT_EQ(Values(Range(0, 10).Shuffle(1, 3)), Iota(0, 10)) << "buffer 1 keeps the order";
}

TEST(HarnessPipeline, InterleaveRoundRobin) {
  // Element i expands to {10i, 10i+1, ..} with i+1 values.
  InterleaveFn expand = [](const Element& e) {
    int64_t i = e.values[0];
    return Range(10 * i, 10 * i + i + 1);
  };
  // cycle 2, block 1, tf.data's rule: an exhausted slot passes the turn to
  // the next slot and takes a new input element on its own next turn.
  std::vector<int64_t> expected = {0, 10, 11, 20, 21, 30, 22, 31, 32, 33};
  EXPECT_EQ(Values(Range(0, 4).Interleave(expand, 2, 1)), expected);
  EXPECT_EQ(Values(Range(0, 3).Interleave(expand, 1, 1)), (std::vector<int64_t>{0, 10, 11, 20, 21, 22}));
  EXPECT_EQ(Values(Range(0, 3).Interleave(expand, 3, 2)), (std::vector<int64_t>{0, 10, 11, 20, 21, 22}));
  EXPECT_EQ(Values(Range(2, 4).Interleave(expand, 2, 2)), (std::vector<int64_t>{20, 21, 30, 31, 22, 32, 33}));
}

TEST(HarnessPipeline, ParallelInterleaveMatchesInterleaveOrder) {
  InterleaveFn expand = [](const Element& e) {
    int64_t i = e.values[0];
    return Range(100 * i, 100 * i + (i % 5) + 1).Map([](Element&) { CpuWork("x", 5); });
  };
  std::vector<int64_t> sequential = Values(Range(0, 20).Interleave(expand, 3, 1));
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(Values(Range(0, 20).ParallelInterleave(expand, 3, 2)), sequential) << round;
  }
  EXPECT_TRUE(Values(Range(0, 0).ParallelInterleave(expand, 3)).empty());
}

TEST(HarnessPipeline, ParallelMapAndPrefetchKeepOrder) {
  MapFn slow_square = [](Element& e) {
    // Uneven costs so workers finish out of order.
    CpuWork("w", double((e.values[0] * 37) % 11) * 10);
    e.values[0] = e.values[0] * e.values[0];
  };
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 60; ++i) expected.push_back(i * i);
  EXPECT_EQ(Values(Range(0, 60).ParallelMap(slow_square, 4)), expected);
  EXPECT_EQ(Values(Range(0, 60).ParallelMap(slow_square, kAutotune)), expected);
  EXPECT_EQ(Values(Range(0, 60).ParallelMap(slow_square, 1)), expected);
  EXPECT_EQ(Values(Range(0, 60).Prefetch(3)), Iota(0, 60));
  EXPECT_EQ(Values(Range(0, 60).Prefetch(kAutotune).Batch(7).Prefetch(1)), Iota(0, 60));
  EXPECT_TRUE(Values(Range(0, 0).ParallelMap(slow_square, 3)).empty());
  EXPECT_TRUE(Values(Range(0, 0).Prefetch(2)).empty());
  // Destroying iterators mid-stream must stop their threads.
  for (int i = 0; i < 5; ++i) {
    auto it = Range(0, 1000000).ParallelMap(slow_square, 3).Prefetch(4).MakeIterator();
    Element e;
    ASSERT_TRUE(it->GetNext(e));
  }
}

TEST(HarnessPipeline, CacheServesLaterEpochsFromMemory) {
  int calls = 0;
  Dataset ds = Range(0, 5).Map([&calls](Element& e) {
    ++calls;
    e.values[0] += 100;
  });
  EXPECT_EQ(Values(ds.Cache().Repeat(3)), (std::vector<int64_t>{100, 101, 102, 103, 104, 100, 101, 102, 103, 104, 100,
                                                                 101, 102, 103, 104}));
  EXPECT_EQ(calls, 5) << "only the first epoch runs the map";
  // A partial pass does not complete the cache.
  calls = 0;
  Dataset cached = ds.Cache();
  EXPECT_EQ(Values(cached, 2), (std::vector<int64_t>{100, 101}));
  EXPECT_EQ(Values(cached), (std::vector<int64_t>{100, 101, 102, 103, 104}));
  EXPECT_EQ(Values(cached), (std::vector<int64_t>{100, 101, 102, 103, 104}));
  EXPECT_EQ(calls, 2 + 5);
}

TEST(HarnessPipeline, RecordFilesRoundTrip) {
  TempDir dir;
  ASSERT_TRUE(WriteRecordFile(dir.File("a.rec"), 0, 5, 64));
  ASSERT_TRUE(WriteRecordFile(dir.File("b.rec"), 5, 3, 16));
  auto it = Records({dir.File("a.rec"), dir.File("b.rec")}, 0).MakeIterator();
  std::vector<Element> all = Collect(*it);
  ASSERT_EQ(all.size(), 8u);
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].values, (std::vector<int64_t>{int64_t(i)}));
    EXPECT_EQ(all[i].bytes.size(), i < 5 ? 64u : 16u);
  }
  // A missing file is skipped with a message, the rest still read.
  auto it2 = Records({dir.File("missing.rec"), dir.File("b.rec")}, 0).MakeIterator();
  EXPECT_EQ(Collect(*it2).size(), 3u);
  // A truncated file yields its intact records only.
  std::filesystem::resize_file(dir.File("a.rec"), std::filesystem::file_size(dir.File("a.rec")) - 10);
  auto it3 = Records({dir.File("a.rec")}, 0).MakeIterator();
  EXPECT_EQ(Collect(*it3).size(), 4u);
}

TEST(HarnessPipeline, WorkIsDeterministic) {
  EXPECT_EQ(HashBytes("abc"), HashBytes("abc"));
  EXPECT_NE(HashBytes("abc"), HashBytes("abd"));
  EXPECT_EQ(DecodeRecord("record", 32, 0), DecodeRecord("record", 32, 0));
  EXPECT_EQ(DecodeRecord("record", 32, 0).size(), 32u);
}

// The events tf.data would write: iterator GetNext with id/parent_id forming
// the pipeline tree, Produce/Consume pairs with matching element ids on
// tf_data_iterator_resource threads.
TEST(HarnessPipeline, EmitsTfDataEvents) {
  using harness::ParseTraceName;
  // Tracing starts first: producers begin working as soon as the iterator exists.
  ASSERT_TRUE(harness::StartTracing());
  auto it = Range(0, 40).Map(Times(3)).ParallelMap(Times(1), 2).Batch(4).Prefetch(2).MakeIterator();
  std::vector<Element> got = Collect(*it);
  harness::TraceSession s = harness::StopTracing();
  it.reset();
  ASSERT_EQ(got.size(), 10u);

  std::map<std::string, std::set<int64_t>> ids;           // iterator name -> ids
  std::map<int64_t, int64_t> parent_of;                   // id -> parent_id
  std::map<std::string, std::multiset<int64_t>> markers;  // Produce/Consume -> element ids
  std::map<std::string, std::string> thread_of;           // marker -> thread name
  for (const harness::TracedThread& t : s.threads) {
    for (const harness::TracedEvent& e : t.events) {
      auto p = ParseTraceName(e.name);
      std::map<std::string_view, int64_t> stats;
      for (auto [k, v] : p.stats) {
        if (k == "id" || k == "parent_id" || k == "element_id") stats[k] = std::stoll(std::string(v));
      }
      if (p.name.starts_with("Iterator::")) {
        ASSERT_TRUE(stats.count("id")) << e.name;
        ids[std::string(p.name)].insert(stats["id"]);
        if (stats.count("parent_id")) parent_of[stats["id"]] = stats["parent_id"];
      } else if (p.name.ends_with("Produce") || p.name.ends_with("Consume")) {
        ASSERT_TRUE(stats.count("element_id")) << e.name;
        markers[std::string(p.name)].insert(stats["element_id"]);
        thread_of[std::string(p.name)] = t.name;
      }
    }
  }
  const std::string root = "Iterator::Root";
  const std::vector<std::string> chain = {root, root + "::Prefetch", root + "::Prefetch::BatchV2",
                                          root + "::Prefetch::BatchV2::ParallelMapV2",
                                          root + "::Prefetch::BatchV2::ParallelMapV2::Map",
                                          root + "::Prefetch::BatchV2::ParallelMapV2::Map::Range"};
  for (size_t i = 0; i < chain.size(); ++i) {
    ASSERT_EQ(ids[chain[i]].size(), 1u) << chain[i];
    int64_t id = *ids[chain[i]].begin();
    if (i == 0) {
      EXPECT_EQ(parent_of.count(id), 0u) << "the root has no parent_id";
    } else {
      EXPECT_EQ(parent_of[id], *ids[chain[i - 1]].begin()) << chain[i];
    }
  }
  EXPECT_EQ(ids[root].size(), 1u);
  // Every consumed element was produced; producers run on tf.data threads.
  for (const char* kind : {"Prefetch", "ParallelMap"}) {
    const auto& produced = markers[std::string(kind) + "Produce"];
    const auto& consumed = markers[std::string(kind) + "Consume"];
    EXPECT_FALSE(consumed.empty()) << kind;
    for (int64_t id : consumed) EXPECT_EQ(produced.count(id), 1u) << kind << " element " << id;
    EXPECT_EQ(thread_of[std::string(kind) + "Produce"], "tf_data_iterator_resource");
  }
  EXPECT_EQ(markers["PrefetchConsume"].size(), 10u);
  EXPECT_EQ(markers["ParallelMapConsume"].size(), 40u);
}

}  // namespace
}  // namespace tbprof::pipeline
