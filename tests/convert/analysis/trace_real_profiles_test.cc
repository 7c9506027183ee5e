// The real profiles in $TBPROF_TESTDATA/xplane: the trace holds exactly the
// events of the file that the trace viewer shows, counted independently with
// libprotobuf's generated XSpace classes, minus what the cap says it dropped.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "convert/tools/tool_registry.h"
#include "proto/xplane.pb.h"
#include "tests/convert/analysis/trace_test_util.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
using trace_testing::Events;
using trace_testing::ParseTraceDocument;

std::vector<std::string> RealProfiles() {
  std::vector<std::string> out;
  fs::path dir = fs::path(TBPROF_TESTDATA) / "xplane";
  if (!fs::exists(dir)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    std::string p = entry.path().string();
    if (p.find("/corrupt/") == std::string::npos && p.size() > 10 && p.ends_with(".xplane.pb")) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// Begin times (ps) of the events the trace viewer shows, read with libprotobuf:
// planes /host:CPU, /device:GPU:* (or /device:TPU:* without GPUs) and
// /device:CUSTOM:*; lines not named "counters_…"; events other than the
// tf.data producer/consumer and allocator markers.
std::vector<int64_t> ShownEventBegins(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  tensorflow::profiler::XSpace space;
  EXPECT_TRUE(space.ParseFromString(buf.str())) << path;
  static const std::set<std::string> kHidden = {
      "MemoryAllocation",   "MemoryDeallocation", "PrefetchProduce",           "PrefetchConsume",
      "ParallelInterleaveProduce", "ParallelInterleaveConsume", "ParallelInterleaveInitializeInput",
      "ParallelMapProduce", "ParallelMapConsume", "MapAndBatchProduce",        "MapAndBatchConsume",
      "ParseExampleProduce", "ParseExampleConsume"};
  bool has_gpu = false;
  for (const auto& plane : space.planes()) has_gpu |= StartsWith(plane.name(), "/device:GPU:");
  std::vector<int64_t> begins;
  for (const auto& plane : space.planes()) {
    const std::string& n = plane.name();
    bool shown = n == "/host:CPU" || StartsWith(n, has_gpu ? "/device:GPU:" : "/device:TPU:") ||
                 StartsWith(n, "/device:CUSTOM:");
    if (!shown) continue;
    for (const auto& line : plane.lines()) {
      const std::string& line_name = line.display_name().empty() ? line.name() : line.display_name();
      if (StartsWith(line_name, "counters_")) continue;
      for (const auto& ev : line.events()) {
        auto md = plane.event_metadata().find(ev.metadata_id());
        std::string name = md == plane.event_metadata().end() ? "" : md->second.name();
        if (kHidden.count(name)) continue;
        begins.push_back(line.timestamp_ns() * 1000 + ev.offset_ps());
      }
    }
  }
  return begins;
}

// Correlation ids that appear both on a host event and on a shown device
// event (each such pair is one launch → kernel flow), read with libprotobuf.
size_t LinkedCorrelationIds(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  tensorflow::profiler::XSpace space;
  EXPECT_TRUE(space.ParseFromString(buf.str()));
  std::set<uint64_t> host, device;
  for (const auto& plane : space.planes()) {
    const bool is_host = plane.name() == "/host:CPU";
    const bool is_device = StartsWith(plane.name(), "/device:");
    if (!is_host && !is_device) continue;
    int64_t corr_md = -1;
    for (const auto& [id, md] : plane.stat_metadata()) {
      if (md.name() == "correlation_id") corr_md = id;
    }
    for (const auto& line : plane.lines()) {
      for (const auto& ev : line.events()) {
        for (const auto& st : ev.stats()) {
          if (st.metadata_id() != corr_md) continue;
          uint64_t v = st.value_case() == tensorflow::profiler::XStat::kUint64Value
                           ? st.uint64_value()
                           : static_cast<uint64_t>(st.int64_value());
          (is_host ? host : device).insert(v);
        }
      }
    }
  }
  size_t linked = 0;
  for (uint64_t c : host) linked += device.count(c);
  return linked;
}

StatusOr<ToolOutput> RunTool(const std::string& tool, const std::string& path, ToolParams params,
                             ArtifactCache* cache) {
  ToolInput in;
  in.hosts = {fs::path(path).filename().string()};
  in.xplane_paths = {path};
  in.params = std::move(params);
  in.cache = cache;
  return FindXPlaneTool(tool)->run(in);
}

TEST(TraceRealProfiles, EventCountsMatchTheFile) {
  auto profiles = RealProfiles();
  if (profiles.empty()) GTEST_FAIL() << "required: no real profiles under " << TBPROF_TESTDATA << "/xplane";
  ArtifactCache cache(size_t{1} << 30);
  for (const std::string& path : profiles) {
    SCOPED_TRACE(path);
    const std::vector<int64_t> begins = ShownEventBegins(path);
    ASSERT_FALSE(begins.empty());

    auto out = RunTool("trace_viewer", path, {}, &cache);
    ASSERT_TRUE(out.ok()) << out.status().message();
    boost::json::object doc = ParseTraceDocument(out->body);
    EXPECT_EQ(Events(doc).size(), begins.size());
    EXPECT_EQ(doc.at("eventLimit").at("totalEvents").to_number<size_t>(), begins.size());
    EXPECT_EQ(doc.at("eventLimit").at("droppedEvents"), 0);
    // Flows: every launch/kernel pair sharing a correlation id is linked.
    std::set<int64_t> flow_out, flow_in;
    for (const auto& e : Events(doc)) {
      if (e.contains("flow_out")) flow_out.insert(e.at("bind_id").to_number<int64_t>());
      if (e.contains("flow_in")) flow_in.insert(e.at("bind_id").to_number<int64_t>());
    }
    size_t linked = 0;
    for (int64_t id : flow_out) linked += flow_in.count(id);
    EXPECT_EQ(linked, LinkedCorrelationIds(path));

    // Streaming, everything at once (resolution 0) and at the default resolution
    // (these files are below the 500,000-event streaming threshold).
    for (const char* resolution : {"0", "8000"}) {
      out = RunTool("trace_viewer@", path, {{"resolution", resolution}}, &cache);
      ASSERT_TRUE(out.ok()) << out.status().message();
      doc = ParseTraceDocument(out->body);
      EXPECT_EQ(doc.at("returnedEventsSize").to_number<size_t>(), begins.size());
      EXPECT_EQ(Events(doc).size(), begins.size());
      EXPECT_EQ(doc.at("filteredByVisibility"), false);
    }
  }
}

TEST(TraceRealProfiles, SmallCapKeepsTheEarliestEvents) {
  auto profiles = RealProfiles();
  if (profiles.empty()) GTEST_FAIL() << "required: no real profiles under " << TBPROF_TESTDATA << "/xplane";
  for (const std::string& path : profiles) {
    SCOPED_TRACE(path);
    std::vector<int64_t> begins = ShownEventBegins(path);
    const size_t cap = 500;
    ASSERT_GT(begins.size(), cap);
    std::sort(begins.begin(), begins.end());
    const int64_t cutoff = begins[cap - 1];
    const size_t kept = std::upper_bound(begins.begin(), begins.end(), cutoff) - begins.begin();

    auto out = RunTool("trace_viewer", path, {{"max_events", std::to_string(cap)}}, nullptr);
    ASSERT_TRUE(out.ok()) << out.status().message();
    boost::json::object doc = ParseTraceDocument(out->body);
    const auto events = Events(doc);
    const auto& limit = doc.at("eventLimit").as_object();
    EXPECT_EQ(events.size(), kept);
    EXPECT_EQ(limit.at("returnedEvents").to_number<size_t>(), kept);
    EXPECT_EQ(limit.at("droppedEvents").to_number<size_t>(), begins.size() - kept);
    EXPECT_EQ(events.size() + limit.at("droppedEvents").to_number<size_t>(), begins.size());
    EXPECT_TRUE(limit.contains("message"));
    for (const auto& e : events) EXPECT_LE(e.at("ts").to_number<double>(), static_cast<double>(cutoff) / 1e6 + 1e-9);
  }
}

TEST(TraceRealProfiles, CorruptProfileIsAnError) {
  fs::path corrupt = fs::path(TBPROF_TESTDATA) / "xplane" / "corrupt" / "utf8_mangled.xplane.pb";
  if (!fs::exists(corrupt)) GTEST_FAIL() << "required: missing " << corrupt;
  EXPECT_FALSE(RunTool("trace_viewer", corrupt.string(), {}, nullptr).ok());
  EXPECT_FALSE(RunTool("trace_viewer@", corrupt.string(), {}, nullptr).ok());
}

}  // namespace
}  // namespace tbprof
