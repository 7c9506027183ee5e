// A large trace's events are read by two threads, split at a guessed element
// boundary near the middle. Whatever the guess, the model must be the one a
// single thread makes: the same strings under the same ids, lines, events
// and stats, and the same first error in file order.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "convert/kineto/json_scanner.h"
#include "convert/kineto/kineto_reader.h"
#include "convert/xplane/xspace_reader.h"
#include "tests/convert/kineto/kineto_trace_writer.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
using testing_kineto::TraceWriter;

LoadOptions OneThread() {
  LoadOptions o;
  o.parallel_min_bytes = UINT64_MAX;
  return o;
}

LoadOptions TwoThreads() {
  LoadOptions o;
  o.parallel_min_bytes = 0;  // split the events of even a small trace
  return o;
}

// Element by element, each of the given members equal.
template <typename Rows, typename... Field>
void ExpectSameRows(const Rows& a, const Rows& b, const char* what, Field... fields) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    auto same = [&](auto field) { EXPECT_EQ(a[i].*field, b[i].*field) << what << " " << i; };
    (same(fields), ...);
  }
}

// Field by field, ids included: the two-thread reader interns strings in the
// order one thread meets them, so even the ids agree.
void ExpectSameModel(const XSpaceModel& a, const XSpaceModel& b) {
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (StrId i = 0; i < a.strings.size(); ++i) ASSERT_EQ(a.Str(i), b.Str(i)) << "string " << i;
  ASSERT_EQ(a.planes.size(), b.planes.size());
  for (size_t p = 0; p < a.planes.size(); ++p) {
    const XPlaneModel& x = a.planes[p];
    const XPlaneModel& y = b.planes[p];
    SCOPED_TRACE(std::string(a.Str(x.name)));
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.name, y.name);
    ExpectSameRows(x.lines, y.lines, "line", &LineModel::id, &LineModel::display_id, &LineModel::name,
                   &LineModel::first_event, &LineModel::num_events);
    ASSERT_EQ(x.events.size(), y.events.size());
    for (size_t e = 0; e < x.events.size(); ++e) {
      ASSERT_EQ(x.events[e].begin_ps, y.events[e].begin_ps) << e;
      ASSERT_EQ(x.events[e].duration_ps, y.events[e].duration_ps) << e;
      ASSERT_EQ(x.events[e].metadata, y.events[e].metadata) << e;
      ASSERT_EQ(x.events[e].first_stat, y.events[e].first_stat) << e;
    }
    ExpectSameRows(x.event_metadata, y.event_metadata, "event metadata", &EventMetadata::id,
                   &EventMetadata::name, &EventMetadata::first_stat, &EventMetadata::num_stats);
    ExpectSameRows(x.event_stats, y.event_stats, "event stat", &Stat::name, &Stat::kind, &Stat::u64);
    ExpectSameRows(x.metadata_stats, y.metadata_stats, "metadata stat", &Stat::name, &Stat::kind, &Stat::u64);
    ExpectSameRows(x.plane_stats, y.plane_stats, "plane stat", &Stat::name, &Stat::kind, &Stat::u64);
  }
}

std::string Status(const StatusOr<std::unique_ptr<XSpaceModel>>& m) { return m.ok() ? "<loaded>" : m.status().message(); }

void ExpectSameEitherWay(std::string_view json) {
  auto one = ParseKinetoTrace(json, "t.pt.trace.json", OneThread());
  auto two = ParseKinetoTrace(json, "t.pt.trace.json", TwoThreads());
  ASSERT_EQ(Status(one), Status(two));
  if (one.ok()) ExpectSameModel(**one, **two);
}

// The offsets at which the elements of the top-level traceEvents array start.
std::vector<size_t> EventOffsets(std::string_view json);

// Whether the reader's guess at the middle is a real element, so that the
// second thread's events are the ones kept (not a fallback to one thread).
bool GuessIsAnEvent(std::string_view json) {
  const std::vector<size_t> starts = EventOffsets(json);
  const size_t begin = starts.front();
  const size_t guess = FindLikelyObjectElement(json, begin + (json.size() - begin) / 2, json.size());
  return guess != std::string_view::npos && std::binary_search(starts.begin(), starts.end(), guess);
}

// The offsets at which the elements of the top-level traceEvents array start.
std::vector<size_t> EventOffsets(std::string_view json) {
  std::vector<size_t> out;
  JsonScanner js(json);
  ForEachElementOfMember(js, "traceEvents", [&] {
    out.push_back(js.offset());
    js.SkipValue();
  });
  return out;
}

const char* const kRealTraces[] = {
    "kineto_nvidia/h100_bert_small.pt.trace.json.gz",
    "kineto_nvidia/h100_qwen1.5_0.5b.pt.trace.json.gz",
    "kineto_nvidia/b200_vllm_eager.pt.trace.json.gz",
    "kineto_hta/amd/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "kineto_hta/triton/triton_example.json.gz",
    "kineto_hta/trace_compare/base.json.gz",
    "kineto_torch_tb_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
};

TEST(KinetoTwoThreads, RealTracesGiveTheSameModel) {
  for (const char* name : kRealTraces) {
    SCOPED_TRACE(name);
    const fs::path f = fs::path(TBPROF_TESTDATA) / name;
    if (!fs::exists(f)) GTEST_FAIL() << "required: no testdata at " << f;
    auto json = ReadFileMaybeGzip(f.string());
    ASSERT_TRUE(json.ok()) << json.status().message();
    EXPECT_TRUE(GuessIsAnEvent(*json));
    ExpectSameEitherWay(*json);
  }
}

TEST(KinetoTwoThreads, AMappedFileWhosePagesAreReleasedGivesTheSameModel) {
  auto json = ReadFileMaybeGzip(
      (fs::path(TBPROF_TESTDATA) / "kineto_torch_tb_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz")
          .string());
  ASSERT_TRUE(json.ok());
  const fs::path path = fs::temp_directory_path() / ("tbprof_two_threads_" + std::to_string(getpid()) + ".pt.trace.json");
  std::ofstream(path, std::ios::binary) << *json;
  LoadOptions releasing = TwoThreads();
  releasing.release_decoded_pages = true;
  auto one = LoadKinetoFile(path.string(), OneThread());
  auto two = LoadKinetoFile(path.string(), releasing);
  fs::remove(path);
  ASSERT_TRUE(one.ok() && two.ok()) << Status(one) << Status(two);
  ExpectSameModel(**one, **two);
}

// Host threads named by strings (their line ids follow the order lines are
// first met), thread names and the profiling span written last, and a device
// stream first seen in the second half.
TraceWriter ManyEvents(int n, const std::string& middle_args = "") {
  TraceWriter w;
  for (int i = 0; i < n; ++i) {
    const int64_t t = int64_t{i} * 10'000;
    w.Host("cpu_op", "aten::op" + std::to_string(i % 7), t, 5'000,
           "\"External id\": " + std::to_string(i + 1) + (i == n / 2 && !middle_args.empty() ? ", " + middle_args : ""),
           100 + (i * 3 / n));
    if (i % 5 == 0) w.Launch(t + 100, 200, t + 1'000, 2'000, "kernel_" + std::to_string(i % 3), i + 1, i + 1);
    if (i > n / 2 && i % 11 == 0) w.Device("gpu_memcpy", "Memcpy HtoD", t + 3'000, 500, "\"device\": 0, \"stream\": 21");
  }
  w.Instant("[memory]", 7'000, "\"Addr\": 4096, \"Bytes\": 512, \"Total Allocated\": 512, \"Total Reserved\": 4096, "
            "\"Device Type\": 1, \"Device Id\": 0");
  w.Host("Trace", "PyTorch Profiler (0)", 0, int64_t{n} * 10'000);
  return w;
}

std::string WithThreadNamesAtTheEnd(std::string json) {
  const size_t end = json.rfind("\n]}");
  json.insert(end, ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1234, \"tid\": 102, \"args\": {\"name\": \"late\"}}"
                   ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::by_name\", \"pid\": 1234, \"tid\": \"worker\", "
                   "\"ts\": 5.5, \"dur\": 1.25, \"args\": {\"External id\": 999999}}");
  return json;
}

TEST(KinetoTwoThreads, LinesNamesAndSpansOfTheSecondHalfAreMerged) {
  for (bool relative : {true, false}) {
    const std::string json = WithThreadNamesAtTheEnd(ManyEvents(400).Json(1'600'000'000'000'000'000, relative));
    EXPECT_TRUE(GuessIsAnEvent(json));
    ExpectSameEitherWay(json);
  }
}

TEST(KinetoTwoThreads, AGuessThatIsNoElementFallsBackToOneThread) {
  // The bytes `}, {"` inside a string, and objects in an array inside args:
  // both look like an element boundary at the middle and are not.
  const std::string in_string = "\"Call stack\": \"" + std::string(20, 'x');
  std::string looks_like = in_string;
  for (int i = 0; i < 2000; ++i) looks_like += "}, {";
  looks_like += "\"";
  std::string nested = "\"Inputs\": [";
  for (int i = 0; i < 1000; ++i) nested += std::string(i ? ", " : "") + "{\"shape\": [" + std::to_string(i) + "]}";
  nested += "]";
  for (const std::string& middle : {looks_like, nested}) {
    const std::string json = ManyEvents(50, middle).Json();
    EXPECT_FALSE(GuessIsAnEvent(json)) << "the test's middle is not a trap";
    ExpectSameEitherWay(json);
  }
}

TEST(KinetoTwoThreads, TheFirstErrorInFileOrderIsReported) {
  const std::string good = ManyEvents(300).Json();
  for (size_t cut : {good.size() / 4, good.size() / 2 + 7, good.size() * 3 / 4, good.size() - 4}) {
    SCOPED_TRACE(cut);
    ExpectSameEitherWay(good.substr(0, cut));
  }
  // A bad event in each half: the first half's is the one named.
  std::string two_bad = good;
  const std::vector<size_t> starts = EventOffsets(two_bad);
  auto break_event = [&](size_t at) { two_bad.replace(two_bad.find("\"dur\"", at), 5, "\"dux\""); };
  break_event(starts[starts.size() * 3 / 4]);
  ExpectSameEitherWay(two_bad);
  break_event(starts[starts.size() / 4]);
  ExpectSameEitherWay(two_bad);
  EXPECT_NE(Status(ParseKinetoTrace(two_bad, "t", TwoThreads())).find("has no \"dur\""), std::string::npos);
}

TEST(KinetoTwoThreads, TheBoundaryGuessNeedsAnObjectAfterAnObject) {
  EXPECT_EQ(FindLikelyObjectElement("[{\"a\": 1}, {\"b\": 2}]", 0, 100), 11u);
  EXPECT_EQ(FindLikelyObjectElement("[{\"a\": 1} ,\n\t{ \"b\": 2}]", 0, 100), 13u);
  EXPECT_EQ(FindLikelyObjectElement("[{\"a\": 1}, 3, {\"b\": 2}]", 0, 100), std::string::npos);
  EXPECT_EQ(FindLikelyObjectElement("[{\"a\": 1}, {}]", 0, 100), std::string::npos);
  EXPECT_EQ(FindLikelyObjectElement("[{\"a\": 1}, {\"b\": 2}]", 0, 12), std::string::npos);  // past the limit
}

}  // namespace
}  // namespace tbprof
