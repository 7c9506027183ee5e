// The real profiles in $TBPROF_TESTDATA/xplane: the trace holds exactly the
// events of the file that the trace viewer shows, counted independently with
// libprotobuf's generated XSpace classes, minus what the cap says it dropped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <filesystem>
#include <set>

#include "convert/tools/tool_registry.h"
#include "proto/xplane.pb.h"
#include "tests/convert/analysis/trace_viewer/trace_test_util.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
using trace_testing::Events;
using trace_testing::ParseTraceDocument;

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// Begin times (ps) of the events the trace viewer shows, read with libprotobuf:
// planes /host:CPU, /device:GPU:* (or /device:TPU:* without GPUs) and
// /device:CUSTOM:*; lines not named "counters_…"; events other than the
// tf.data producer/consumer and allocator markers.
std::vector<int64_t> ShownEventBegins(const std::string& path) {
  const tensorflow::profiler::XSpace space = test_files::ParseWithLibprotobuf(path);
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

// Begin times (ps) of the thread pool regions xprof's preprocessing adds to
// the host plane, read with libprotobuf: on each line, in stored order, a
// "ThreadpoolListener::StartRegion" carrying a `_c` stat opens a region at its
// time; every later "ThreadpoolListener::StopRegion" closes one from there.
std::vector<int64_t> ThreadpoolRegionBegins(const std::string& path) {
  const tensorflow::profiler::XSpace space = test_files::ParseWithLibprotobuf(path);
  std::vector<int64_t> begins;
  for (const auto& plane : space.planes()) {
    if (plane.name() != "/host:CPU") continue;
    int64_t start_md = -1, stop_md = -1;
    for (const auto& [id, md] : plane.event_metadata()) {
      if (md.name() == "ThreadpoolListener::StartRegion") start_md = id;
      if (md.name() == "ThreadpoolListener::StopRegion") stop_md = id;
    }
    const int64_t consumer_md = test_files::StatMetadataId(plane, "_c");
    if (start_md < 0 || stop_md < 0) continue;
    for (const auto& line : plane.lines()) {
      int64_t open_at = 0;
      for (const auto& ev : line.events()) {
        const int64_t at = line.timestamp_ns() * 1000 + ev.offset_ps();
        if (static_cast<int64_t>(ev.metadata_id()) == start_md) {
          const bool has_consumer = std::any_of(ev.stats().begin(), ev.stats().end(),
                                                [&](const auto& st) { return static_cast<int64_t>(st.metadata_id()) == consumer_md; });
          if (has_consumer) open_at = at;
        } else if (static_cast<int64_t>(ev.metadata_id()) == stop_md && open_at != 0) {
          begins.push_back(open_at);
        }
      }
    }
  }
  return begins;
}

size_t CountNamed(const std::vector<boost::json::object>& events, const char* name) {
  return std::count_if(events.begin(), events.end(), [&](const boost::json::object& e) { return e.at("name") == name; });
}

// Correlation ids that appear both on a host event and on a shown device
// event (each such pair is one launch → kernel flow), read with libprotobuf.
size_t LinkedCorrelationIds(const std::string& path) {
  const tensorflow::profiler::XSpace space = test_files::ParseWithLibprotobuf(path);
  std::set<uint64_t> host, device;
  for (const auto& plane : space.planes()) {
    const bool is_host = plane.name() == "/host:CPU";
    const bool is_device = StartsWith(plane.name(), "/device:");
    if (!is_host && !is_device) continue;
    const int64_t corr_md = test_files::StatMetadataId(plane, "correlation_id");
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

// XLA Ops events the GPU planes' derived lines should hold, read with
// libprotobuf: per stream (compute streams first, then larger ones), the
// kernels (kernel_details set) in time order; a kernel's hlo_op names one
// event per "::" level, "<program_id or module>/<op>"; a kernel repeating the
// previous op extends its event, unless a different module ("module(program
// id)") came in between, which starts every level anew.
size_t DerivedXlaOpEvents(const std::string& path) {
  const tensorflow::profiler::XSpace space = test_files::ParseWithLibprotobuf(path);
  size_t count = 0;
  for (const auto& plane : space.planes()) {
    if (!StartsWith(plane.name(), "/device:GPU:")) continue;
    std::map<int64_t, std::string> stat_name;
    for (const auto& [id, md] : plane.stat_metadata()) stat_name[id] = md.name();
    auto text = [&](const tensorflow::profiler::XStat& st) {
      if (st.value_case() == tensorflow::profiler::XStat::kRefValue) return stat_name[st.ref_value()];
      return st.value_case() == tensorflow::profiler::XStat::kStrValue ? st.str_value() : std::string();
    };
    const int64_t derived_min = 0xdeadbeef, derived_max = derived_min + 389;
    std::vector<const tensorflow::profiler::XLine*> streams;
    for (const auto& line : plane.lines()) {
      if (line.id() < derived_min || line.id() > derived_max) streams.push_back(&line);
    }
    EXPECT_LE(streams.size(), 16u) << "more streams than xprof derives lines for";
    for (const auto* line : streams) {
      std::vector<const tensorflow::profiler::XEvent*> events;
      for (const auto& ev : line->events()) events.push_back(&ev);
      std::stable_sort(events.begin(), events.end(), [](const auto* a, const auto* b) {
        return a->offset_ps() != b->offset_ps() ? a->offset_ps() < b->offset_ps() : a->duration_ps() > b->duration_ps();
      });
      std::string last_module;
      std::vector<std::string> last_ops;
      for (const auto* ev : events) {
        std::string details, module, op, program_id;
        for (const auto& st : ev->stats()) {
          const std::string& name = stat_name[st.metadata_id()];
          if (name == "kernel_details") details = text(st);
          if (name == "hlo_module") module = text(st);
          if (name == "hlo_op") op = text(st);
          if (name == "program_id") {
            EXPECT_NE(st.value_case(), tensorflow::profiler::XStat::kDoubleValue);
            program_id = st.value_case() == tensorflow::profiler::XStat::kUint64Value
                             ? std::to_string(st.uint64_value())
                             : std::to_string(st.int64_value());
          }
          EXPECT_NE(name, "group_id") << "this reading assumes ungrouped kernels";
        }
        if (details.empty()) continue;
        if (!module.empty()) {
          const std::string key = program_id.empty() ? module : module + "(" + program_id + ")";
          if (key != last_module) last_ops.clear();
          last_module = key;
        }
        if (op.empty()) continue;
        const std::string prefix = (program_id.empty() ? module : program_id) + "/";
        std::vector<std::string> levels;
        for (size_t start = 0;;) {
          const size_t at = op.find("::", start);
          levels.push_back(prefix + op.substr(start, at == std::string::npos ? std::string::npos : at - start));
          if (at == std::string::npos) break;
          start = at + 2;
        }
        for (size_t i = 0; i < levels.size(); ++i) {
          if (i < last_ops.size() && last_ops[i] == levels[i]) continue;
          ++count;
          last_ops.resize(i);
          last_ops.push_back(levels[i]);
        }
        last_ops.resize(levels.size());
      }
    }
  }
  return count;
}

// The events of a trace document on derived lines ("Steps", "… - from #<stream>",
// and a TPU core's framework, source and host-offload lines).
std::vector<boost::json::object> DerivedLineEvents(const boost::json::object& doc, std::string_view line_kind = "") {
  std::set<std::pair<int64_t, int64_t>> derived;
  for (const auto& v : doc.at("traceEvents").as_array()) {
    const auto& e = v.as_object();
    if (e.at("name") != "thread_name") continue;
    const std::string name(e.at("args").at("name").as_string());
    const bool tpu_line = name == "Framework Ops" || name == "Framework Name Scope" || name == "Source code" ||
                          StartsWith(name, "Host Offload Ops row ");
    const bool is_derived = name == "Steps" || name.find(" - from #") != std::string::npos || tpu_line;
    if (is_derived && (line_kind.empty() || StartsWith(name, std::string(line_kind) + " - from #"))) {
      derived.emplace(e.at("pid").to_number<int64_t>(), e.at("tid").to_number<int64_t>());
    }
  }
  std::vector<boost::json::object> out;
  for (const auto& e : Events(doc)) {
    if (e.contains("tid") && derived.count({e.at("pid").to_number<int64_t>(), e.at("tid").to_number<int64_t>()})) {
      out.push_back(e);
    }
  }
  return out;
}

StatusOr<ToolOutput> RunTool(const std::string& tool, const std::string& path, ToolParams params,
                             ArtifactCache* cache) {
  ToolInput in = test_files::OneHostInput(path);
  in.params = std::move(params);
  in.cache = cache;
  return FindProfileTool(tool)->run(in);
}

TEST(TraceRealProfiles, EventCountsMatchTheFile) {
  auto profiles = test_files::RealXPlaneFiles();
  if (profiles.empty()) GTEST_FAIL() << "required: no real profiles under " << TBPROF_TESTDATA << "/xplane";
  ArtifactCache cache(size_t{1} << 30);
  for (const std::string& path : profiles) {
    SCOPED_TRACE(path);
    std::vector<int64_t> begins = ShownEventBegins(path);
    ASSERT_FALSE(begins.empty());
    // The thread pool regions count as the host's own events.
    const std::vector<int64_t> regions = ThreadpoolRegionBegins(path);
    begins.insert(begins.end(), regions.begin(), regions.end());

    auto out = RunTool("trace_viewer", path, {}, &cache);
    ASSERT_TRUE(out.ok()) << out.status().message();
    boost::json::object doc = ParseTraceDocument(out->body);
    EXPECT_EQ(CountNamed(Events(doc), "ThreadpoolListener::Region"), regions.size());
    // The file's events, plus the device planes' derived lines.
    const size_t derived = DerivedLineEvents(doc).size();
    EXPECT_EQ(Events(doc).size(), begins.size() + derived);
    EXPECT_EQ(doc.at("eventLimit").at("totalEvents").to_number<size_t>(), begins.size() + derived);
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
    EXPECT_EQ(flow_out, flow_in) << "a flow with one end";

    // Streaming, everything at once (resolution 0) and at the default resolution
    // (these files are below the 500,000-event streaming threshold).
    for (const char* resolution : {"0", "8000"}) {
      out = RunTool("trace_viewer@", path, {{"resolution", resolution}}, &cache);
      ASSERT_TRUE(out.ok()) << out.status().message();
      doc = ParseTraceDocument(out->body);
      EXPECT_EQ(DerivedLineEvents(doc).size(), derived);
      EXPECT_EQ(doc.at("returnedEventsSize").to_number<size_t>(), begins.size() + derived);
      EXPECT_EQ(Events(doc).size(), begins.size() + derived);
      EXPECT_EQ(doc.at("filteredByVisibility"), false);
    }
  }
}

TEST(TraceRealProfiles, SmallCapKeepsTheEarliestEvents) {
  auto profiles = test_files::RealXPlaneFiles();
  if (profiles.empty()) GTEST_FAIL() << "required: no real profiles under " << TBPROF_TESTDATA << "/xplane";
  for (const std::string& path : profiles) {
    SCOPED_TRACE(path);
    std::vector<int64_t> begins = ShownEventBegins(path);
    const std::vector<int64_t> regions = ThreadpoolRegionBegins(path);
    begins.insert(begins.end(), regions.begin(), regions.end());
    // The derived lines' events count towards the cap like the file's.
    auto full = RunTool("trace_viewer", path, {}, nullptr);
    ASSERT_TRUE(full.ok()) << full.status().message();
    for (const auto& e : DerivedLineEvents(ParseTraceDocument(full->body))) {
      begins.push_back(std::llround(e.at("ts").to_number<double>() * 1e6));
    }
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

// Every GPU kernel's XLA op shows on its stream's "XLA Ops" line, consecutive
// kernels of one op as one event: as many events as a second reading finds.
TEST(TraceRealProfiles, DerivedXlaOpsMatchASecondReading) {
  auto profiles = test_files::RealXPlaneFiles();
  if (profiles.empty()) GTEST_FAIL() << "required: no real profiles under " << TBPROF_TESTDATA << "/xplane";
  size_t total = 0;
  for (const std::string& path : profiles) {
    SCOPED_TRACE(path);
    const size_t expected = DerivedXlaOpEvents(path);
    total += expected;
    auto out = RunTool("trace_viewer", path, {}, nullptr);
    ASSERT_TRUE(out.ok()) << out.status().message();
    boost::json::object doc = ParseTraceDocument(out->body);
    const auto xla_ops = DerivedLineEvents(doc, "XLA Ops");
    EXPECT_EQ(xla_ops.size(), expected);
    for (const auto& e : xla_ops) EXPECT_TRUE(e.at("args").as_object().contains("long_name"));
    // The streaming form shows the same lines.
    out = RunTool("trace_viewer@", path, {{"resolution", "0"}}, nullptr);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(DerivedLineEvents(ParseTraceDocument(out->body), "XLA Ops").size(), expected);
  }
  EXPECT_GT(total, 0u) << "no real profile has XLA kernels on a GPU";
}

TEST(TraceRealProfiles, CorruptProfileIsAnError) {
  fs::path corrupt = fs::path(TBPROF_TESTDATA) / "xplane" / "corrupt" / "utf8_mangled.xplane.pb";
  if (!fs::exists(corrupt)) GTEST_FAIL() << "required: missing " << corrupt;
  EXPECT_FALSE(RunTool("trace_viewer", corrupt.string(), {}, nullptr).ok());
  EXPECT_FALSE(RunTool("trace_viewer@", corrupt.string(), {}, nullptr).ok());
}

}  // namespace
}  // namespace tbprof
