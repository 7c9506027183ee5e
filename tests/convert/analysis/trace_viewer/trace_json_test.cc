// trace_viewer (non-streaming) and the request forms of trace_viewer@ on tiny
// hand-built XSpaces; every expected value is worked out by hand below.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "convert/analysis/trace_viewer/xspace_to_trace_events.h"
#include "convert/tools/tool_registry.h"
#include "convert/tools/trace_viewer_tools.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"
#include "tests/convert/analysis/trace_viewer/trace_test_util.h"
#include "tests/testing/grouping_fixtures.h"

namespace tbprof {
namespace {

using trace_testing::Events;
using trace_testing::Num;
using trace_testing::ParseTraceDocument;

// Host line 10 starts at 1000 ns = 1,000,000 ps, so an offset of X ps is
// ts = (1e6 + X) / 1e6 µs. The GPU line starts at 0.
tensorflow::profiler::XSpace TinySpace() {
  tensorflow::profiler::XSpace space;
  {
    XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
    XLineBuilder line = host.AddLine(10, "python", 1000);
    line.AddEvent("train", 0, 5000000).Int("_r", 1).Str("note", "first step");
    line.AddEvent("cuLaunchKernel", 1000000, 2000000).Int("correlation_id", 7).Int("device_id", 0);
    line.AddEvent("marker", 3000000, 0);
    line.AddEvent("PrefetchProduce", 3500000, 100000).Int("element_id", 1);  // internal: hidden
    host.EventMetadata("model/dense/MatMul:MatMul")->set_display_name("MatMul");
    XLineBuilder ops = host.AddLine(11, "tf_Compute", 1000);
    ops.AddEvent("model/dense/MatMul:MatMul", 500000, 250000);
  }
  {
    XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 0);
    XLineBuilder stream = gpu.AddLine(5, "Stream #5(Compute)", 0);
    stream.AddEvent("gemm", 2500000, 1000000).Uint("correlation_id", 7).Ref("kernel_details", "regs:32");
    gpu.AddLine(0xdeadbeef + 21, "counters_hidden", 0).AddEvent("hidden", 0, 10);  // skipped line
    gpu.AddLine(6, "empty stream", 0);                                            // no events: no thread
  }
  XPlaneBuilder metadata = AddPlane(space, "/host:metadata", 0);
  metadata.AddLine(1, "hlo", 0).AddEvent("module", 0, 10);  // not shown
  return space;
}

std::unique_ptr<XSpaceModel> Load(const tensorflow::profiler::XSpace& space) {
  auto m = ParseXSpace(space.SerializeAsString(), "tiny");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

const boost::json::object* FindByName(const std::vector<boost::json::object>& events, std::string_view name,
                                      int64_t pid = -1) {
  for (const auto& e : events) {
    if (e.at("name").as_string() == name && (pid < 0 || e.at("pid").to_number<int64_t>() == pid)) return &e;
  }
  return nullptr;
}

TEST(TraceJson, AFlowNeedsBothEnds) {
  // A runtime call that starts nothing on the device carries a correlation id
  // too (cudaStreamSynchronize), as does a kernel whose launch fell before
  // the capture: neither is an arrow, which would lead nowhere.
  tensorflow::profiler::XSpace space;
  {
    XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
    XLineBuilder line = host.AddLine(10, "python", 1000);
    line.AddEvent("cuLaunchKernel", 1000000, 2000000).Int("correlation_id", 7);
    line.AddEvent("cudaStreamSynchronize", 4000000, 100000).Int("correlation_id", 8);
  }
  {
    XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 0);
    XLineBuilder stream = gpu.AddLine(5, "Stream #5(Compute)", 0);
    stream.AddEvent("early", 100000, 100000).Uint("correlation_id", 3);
    stream.AddEvent("gemm", 2500000, 1000000).Uint("correlation_id", 7);
  }
  auto model = Load(space);
  TraceJsonResult r = ConvertXSpacesToTraceJson({TraceHostInput{model.get(), "h"}}, TraceJsonOptions{});
  auto events = Events(ParseTraceDocument(r.json));
  for (const char* lonely : {"cudaStreamSynchronize", "early"}) {
    const auto* e = FindByName(events, lonely);
    ASSERT_NE(e, nullptr) << lonely;
    EXPECT_FALSE(e->contains("bind_id")) << lonely;
    EXPECT_FALSE(e->contains("flow_out") || e->contains("flow_in")) << lonely;
  }
  EXPECT_EQ(FindByName(events, "cuLaunchKernel")->at("bind_id"), 7);  // the pair keeps its flow
  EXPECT_EQ(FindByName(events, "gemm")->at("bind_id"), 7);
}

TEST(TraceJson, TinySpaceEventsAreExact) {
  auto model = Load(TinySpace());
  TraceJsonResult r = ConvertXSpacesToTraceJson({TraceHostInput{model.get(), "h"}}, TraceJsonOptions{});
  boost::json::object doc = ParseTraceDocument(r.json);
  EXPECT_EQ(doc.at("displayTimeUnit"), "ns");
  // train, cuLaunchKernel, marker, MatMul, gemm, and the GPU's derived step
  // (gemm is in train's group through its launch).
  EXPECT_EQ(r.total_events, 6);
  EXPECT_EQ(r.dropped_events, 0);
  EXPECT_EQ(doc.at("eventLimit").as_object().at("droppedEvents"), 0);
  auto events = Events(doc);
  ASSERT_EQ(events.size(), 6u);

  // The space is not grouped yet (no plane declares group_id): grouping, as
  // xprof's writes it into the events, numbers train's group 0 and names it
  // after the root and that number; the root shows that name.
  const auto* train = FindByName(events, "train 0", 701);
  ASSERT_NE(train, nullptr);
  EXPECT_EQ(train->at("tid"), 10);
  EXPECT_DOUBLE_EQ(Num(*train, "ts"), 1.0);
  EXPECT_DOUBLE_EQ(Num(*train, "dur"), 5.0);
  EXPECT_EQ(train->at("ph"), "X");
  // _r is internal; the others are args, then the grouping's.
  boost::json::object train_args{{"note", "first step"}, {"group_id", 0}, {"step_name", "train 0"}};
  EXPECT_EQ(train->at("args").as_object(), train_args);

  const auto* launch = FindByName(events, "cuLaunchKernel");
  ASSERT_NE(launch, nullptr);
  EXPECT_DOUBLE_EQ(Num(*launch, "ts"), 2.0);
  EXPECT_DOUBLE_EQ(Num(*launch, "dur"), 2.0);
  EXPECT_EQ(launch->at("bind_id"), 7);
  EXPECT_EQ(launch->at("flow_out"), true);
  EXPECT_EQ(launch->at("cat"), "gpu_launch");
  boost::json::object launch_args{{"correlation_id", 7}, {"device_id", 0}, {"group_id", 0}};
  EXPECT_EQ(launch->at("args").as_object(), launch_args);

  const auto* gemm = FindByName(events, "gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->at("pid"), 1);  // kFirstDeviceId + plane id 0
  EXPECT_EQ(gemm->at("tid"), 1);  // display id: the first (compute) stream of the GPU
  EXPECT_DOUBLE_EQ(Num(*gemm, "ts"), 2.5);
  EXPECT_DOUBLE_EQ(Num(*gemm, "dur"), 1.0);
  EXPECT_EQ(gemm->at("bind_id"), 7);  // same flow as its launch
  EXPECT_EQ(gemm->at("flow_in"), true);
  // kernel_details is internal; a launched kernel is marked eager or not.
  boost::json::object gemm_args{{"correlation_id", 7}, {"group_id", 0}, {"is_eager", 0}};
  EXPECT_EQ(gemm->at("args").as_object(), gemm_args);

  // The step as the GPU's Steps line shows it.
  const auto* step = FindByName(events, "train 0", 1);
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->at("pid"), 1);
  EXPECT_EQ(step->at("tid").to_number<int64_t>(), 0xdeadbeef);
  EXPECT_DOUBLE_EQ(Num(*step, "ts"), 2.5);
  EXPECT_DOUBLE_EQ(Num(*step, "dur"), 1.0);
  boost::json::object step_args{{"group_id", 0}, {"step_name", "train 0"}};
  EXPECT_EQ(step->at("args").as_object(), step_args);

  const auto* marker = FindByName(events, "marker");
  ASSERT_NE(marker, nullptr);
  EXPECT_EQ(marker->at("ph"), "i");
  EXPECT_DOUBLE_EQ(Num(*marker, "ts"), 4.0);
  EXPECT_FALSE(marker->contains("dur"));
  EXPECT_EQ(marker->at("args").as_object(), (boost::json::object{{"group_id", 0}}));  // inside train

  const auto* matmul = FindByName(events, "MatMul");  // display name shown
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(matmul->at("tid"), 11);
  EXPECT_DOUBLE_EQ(Num(*matmul, "ts"), 1.5);
  EXPECT_DOUBLE_EQ(Num(*matmul, "dur"), 0.25);
  // A TF op on a thread no step reaches: no group, marked not eager.
  boost::json::object matmul_args{{"long_name", "model/dense/MatMul:MatMul"}, {"is_eager", 0}};
  EXPECT_EQ(matmul->at("args").as_object(), matmul_args);

  // Metadata: two processes; host threads 10 and 11, GPU stream 5 (display id
  // 1) and the Steps line.
  std::vector<std::string> meta;
  for (const auto& v : doc.at("traceEvents").as_array()) {
    const auto& e = v.as_object();
    if (e.at("ph") != "M") continue;
    std::string s = std::string(e.at("name").as_string()) + ":" + std::to_string(e.at("pid").to_number<int>());
    if (e.contains("tid")) s += ":" + std::to_string(e.at("tid").to_number<int64_t>());
    if (e.at("args").as_object().contains("name")) s += "=" + std::string(e.at("args").at("name").as_string());
    meta.push_back(s);
  }
  std::vector<std::string> expected = {
      "process_name:1=/device:GPU:0",       "process_sort_index:1",
      "thread_name:1:1=Stream #5(Compute)", "thread_sort_index:1:1",
      "thread_name:1:3735928559=Steps",      "thread_sort_index:1:3735928559",
      "process_name:701=/host:CPU",         "process_sort_index:701",
      "thread_name:701:10=python",          "thread_sort_index:701:10",
      "thread_name:701:11=tf_Compute",      "thread_sort_index:701:11"};
  EXPECT_EQ(meta, expected);
}

TEST(TraceJson, CapKeepsEarliestEventsAndSaysSo) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder line = host.AddLine(1, "t", 0);
  // Begins 0, 10, 20, …, 90 ps, plus a second event at 30 ps (a tie).
  for (int i = 0; i < 10; ++i) line.AddEvent("e" + std::to_string(i), i * 10, 5);
  line.AddEvent("tie", 30, 2);
  auto model = Load(space);
  TraceJsonOptions options;
  options.max_events = 4;  // 4th earliest begin is 30 → keep e0..e3 and the tie
  TraceJsonResult r = ConvertXSpacesToTraceJson({TraceHostInput{model.get(), ""}}, options);
  EXPECT_EQ(r.total_events, 11);
  EXPECT_EQ(r.returned_events, 5);
  EXPECT_EQ(r.dropped_events, 6);
  boost::json::object doc = ParseTraceDocument(r.json);
  const auto& limit = doc.at("eventLimit").as_object();
  EXPECT_EQ(limit.at("maxEvents"), 4);
  EXPECT_EQ(limit.at("totalEvents"), 11);
  EXPECT_EQ(limit.at("droppedEvents"), 6);
  EXPECT_TRUE(limit.contains("message"));
  std::set<std::string> names;
  for (const auto& e : Events(doc)) names.insert(std::string(e.at("name").as_string()));
  EXPECT_EQ(names, (std::set<std::string>{"e0", "e1", "e2", "e3", "tie"}));
}

// xprof's grouping writes into the events what the trace then shows: worked
// out by hand from grouping_fixtures' eager space (one step, TraceContext
// with step_num 1, its group 0).
TEST(TraceJson, GroupingShowsAsXprofWritesIt) {
  auto model = Load(grouping_test::EagerAndFunctionSpace());
  TraceJsonResult r = ConvertXSpacesToTraceJson({TraceHostInput{model.get(), "h"}}, TraceJsonOptions{});
  auto events = Events(ParseTraceDocument(r.json));
  auto args_of = [&](std::string_view name, int64_t pid) {
    const auto* e = FindByName(events, name, pid);
    EXPECT_NE(e, nullptr) << name;
    return e == nullptr || !e->contains("args") ? boost::json::object() : e->at("args").as_object();
  };
  // The root shows its group's name: not an implicit root, so its own name and step_num.
  EXPECT_EQ(args_of("TraceContext 1", 701),
            (boost::json::object{{"step_num", 1}, {"group_id", 0}, {"step_name", "TraceContext 1"}}));
  EXPECT_EQ(FindByName(events, "TraceContext", 701), nullptr);
  EXPECT_EQ(args_of("a/add:AddV2", 701), (boost::json::object{{"group_id", 0}, {"is_eager", 1}}));
  EXPECT_EQ(args_of("b/mul:Mul", 701), (boost::json::object{{"group_id", 0}, {"is_eager", 0}}));
  EXPECT_EQ(args_of("EagerKernelExecute", 701), (boost::json::object{{"is_func", 0}, {"group_id", 0}}));
  EXPECT_EQ(args_of("add_kernel", 2),  // kFirstDeviceId + plane id 1
            (boost::json::object{{"correlation_id", 1}, {"tf_op", "a/add:AddV2"}, {"group_id", 0}, {"is_eager", 1}}));
  EXPECT_EQ(args_of("mul_kernel", 2),
            (boost::json::object{{"correlation_id", 2}, {"tf_op", "b/mul:Mul"}, {"group_id", 0}, {"is_eager", 0}}));

  // A file that comes grouped (a plane declares group_id) shows its own stats only.
  tensorflow::profiler::XSpace grouped = grouping_test::EagerAndFunctionSpace();
  XPlaneBuilder other = AddPlane(grouped, "/host:CPU [2]", 2);
  other.AddLine(0, "main").AddEvent("step", 0, 10).Int("group_id", 5);
  auto grouped_model = Load(grouped);
  TraceJsonResult g = ConvertXSpacesToTraceJson({TraceHostInput{grouped_model.get(), "h"}}, TraceJsonOptions{});
  events = Events(ParseTraceDocument(g.json));
  EXPECT_EQ(args_of("TraceContext", 701), (boost::json::object{{"step_num", 1}}));
  EXPECT_EQ(args_of("a/add:AddV2", 701), (boost::json::object{}));
}

// A TPU step line as xprof's grouping rewrites it (grouping_fixtures'
// MergeHostStepsSpace: one host step "train" with step_num 1, whose four
// programs ran as four steps of the TensorCore and of its SparseCore): one
// step each, from the first step's begin to the last one's end (1000 to
// 1205 ps), named by the group; the file's four steps are not shown.
TEST(TraceJson, TpuStepsShowMergedAndNamed) {
  auto model = Load(grouping_test::MergeHostStepsSpace());
  TraceJsonResult r = ConvertXSpacesToTraceJson({TraceHostInput{model.get(), "h"}}, TraceJsonOptions{});
  boost::json::object doc = ParseTraceDocument(r.json);
  std::map<int64_t, std::string> thread_names;  // of the TPU process
  for (const auto& v : doc.at("traceEvents").as_array()) {
    const auto& e = v.as_object();
    if (e.at("ph") == "M" && e.at("name") == "thread_name" && e.at("pid") != 701) {
      thread_names[e.at("tid").to_number<int64_t>()] = std::string(e.at("args").at("name").as_string());
    }
  }
  std::vector<boost::json::object> steps;
  for (const auto& e : Events(doc)) {
    const std::string& line = thread_names[e.at("tid").to_number<int64_t>()];
    if (e.at("pid") != 701 && (line == "Steps" || line == "Sparse Core Steps")) steps.push_back(e);
  }
  ASSERT_EQ(steps.size(), 2u);
  for (const auto& step : steps) {
    EXPECT_EQ(step.at("name"), "train 1");
    EXPECT_DOUBLE_EQ(Num(step, "ts"), 1000e-6);
    EXPECT_DOUBLE_EQ(Num(step, "dur"), 205e-6);
    const auto& args = step.at("args").as_object();
    EXPECT_EQ(args.at("group_id"), 0);
    EXPECT_EQ(args.at("step_name"), "train 1");
    EXPECT_EQ(args.at("step_idle_time_ps"), 0);
  }
  // The TensorCore's steps carry device time: merged over the four.
  const auto& tc_args = steps[0].at("args").as_object().contains("device_offset_ps") ? steps[0].at("args").as_object()
                                                                                       : steps[1].at("args").as_object();
  EXPECT_EQ(tc_args.at("device_offset_ps"), 1000);
  EXPECT_EQ(tc_args.at("device_duration_ps"), 205);
}

class TraceToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tbprof_trace_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const tensorflow::profiler::XSpace& space) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << space.SerializeAsString();
    return path;
  }
  StatusOr<ToolOutput> Run(const std::string& tool, std::vector<std::string> paths, ToolParams params) {
    ToolInput in;
    for (size_t i = 0; i < paths.size(); ++i) in.hosts.push_back("host" + std::to_string(i));
    in.profile_paths = std::move(paths);
    in.params = std::move(params);
    in.cache = &cache_;
    const ToolSpec* spec = FindProfileTool(tool);
    EXPECT_NE(spec, nullptr) << tool;
    return spec->run(in);
  }
  std::filesystem::path dir_;
  ArtifactCache cache_{size_t{1} << 30};
};

TEST_F(TraceToolTest, MultiHostShiftsPidsAndNamesProcesses) {
  std::string a = Write("a.xplane.pb", TinySpace());
  std::string b = Write("b.xplane.pb", TinySpace());
  auto out = Run("trace_viewer", {a, b}, {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  boost::json::object doc = ParseTraceDocument(out->body);
  std::set<int> pids;
  std::set<std::string> process_names;
  for (const auto& v : doc.at("traceEvents").as_array()) {
    const auto& e = v.as_object();
    pids.insert(e.at("pid").to_number<int>());
    if (e.at("name") == "process_name") process_names.insert(std::string(e.at("args").at("name").as_string()));
  }
  EXPECT_EQ(pids, (std::set<int>{1001, 1701, 2001, 2701}));
  EXPECT_TRUE(process_names.count("host1 /device:GPU:0"));
  EXPECT_EQ(Events(doc).size(), 12u);  // 6 per host, the GPU's derived step included
  // Flows of different hosts never share an id.
  std::set<int64_t> flow_ids;
  for (const auto& e : Events(doc)) {
    if (e.contains("bind_id")) flow_ids.insert(e.at("bind_id").to_number<int64_t>());
  }
  EXPECT_EQ(flow_ids.size(), 2u);
}

TEST_F(TraceToolTest, StreamingResponseFields) {
  std::string a = Write("a.xplane.pb", TinySpace());
  auto out = Run("trace_viewer@", {a}, {{"resolution", "8000"}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->content_type, "application/json");
  boost::json::object doc = ParseTraceDocument(out->body);
  EXPECT_EQ(doc.at("returnedEventsSize"), 6);  // the 5 of the file and the GPU's derived step
  EXPECT_EQ(doc.at("filteredByVisibility"), false);  // below 500,000 events
  EXPECT_EQ(doc.at("showCounterMessage"), "");
  // Earliest begin: gemm's line starts at 0 → 2.5 µs; host events start at 1 µs.
  // Latest end: train ends at 6 µs. In ms:
  const auto& span = doc.at("fullTimespan").as_array();
  EXPECT_DOUBLE_EQ(span.at(0).to_number<double>(), 0.001);
  EXPECT_DOUBLE_EQ(span.at(1).to_number<double>(), 0.006);
  auto events = Events(doc);
  ASSERT_EQ(events.size(), 6u);
  std::set<int64_t> serials;
  for (const auto& e : events) {
    EXPECT_EQ(e.at("ph"), "X");  // the streaming form has no instants
    EXPECT_TRUE(e.at("args").as_object().contains("uid"));
    EXPECT_EQ(e.at("z"), e.at("args").at("uid"));
    serials.insert(e.at("z").to_number<int64_t>());
    EXPECT_GE(e.at("pid").to_number<int>(), 1000);  // host 0 → +1000
  }
  EXPECT_EQ(serials.size(), events.size());
  const auto* marker = FindByName(events, "marker");
  ASSERT_NE(marker, nullptr);
  EXPECT_DOUBLE_EQ(Num(*marker, "dur"), 1e-6);  // 1 ps

  // A window [1.9 µs, 2.6 µs] in ms holds cuLaunchKernel, gemm, train (shown
  // by its step name) and the GPU's derived step (2.5 to 3.5 µs).
  out = Run("trace_viewer@", {a}, {{"start_time_ms", "0.0019"}, {"end_time_ms", "0.0026"}});
  ASSERT_TRUE(out.ok());
  std::set<std::string> names;
  for (const auto& e : Events(ParseTraceDocument(out->body))) names.insert(std::string(e.at("name").as_string()));
  EXPECT_EQ(names, (std::set<std::string>{"cuLaunchKernel", "gemm", "train 0"}));
}

TEST_F(TraceToolTest, SearchByPrefixOverTheWholeTrace) {
  std::string a = Write("a.xplane.pb", TinySpace());
  auto names_of = [&](ToolParams p) {
    auto out = Run("trace_viewer@", {a}, std::move(p));
    EXPECT_TRUE(out.ok()) << out.status().message();
    std::set<std::string> names;
    if (!out.ok()) return names;
    for (const auto& e : Events(ParseTraceDocument(out->body))) names.insert(std::string(e.at("name").as_string()));
    return names;
  };
  EXPECT_EQ(names_of({{"search_prefix", "cuLaunch"}, {"resolution", "0"}}), (std::set<std::string>{"cuLaunchKernel"}));
  EXPECT_EQ(names_of({{"search_prefix", "GEM"}}), (std::set<std::string>{"gemm"}));         // case ignored
  EXPECT_EQ(names_of({{"search_prefix", "matm"}}), (std::set<std::string>{"MatMul"}));      // display name
  EXPECT_EQ(names_of({{"search_prefix", "model/dense"}}), (std::set<std::string>{"MatMul"}));  // full name
  EXPECT_EQ(names_of({{"search_prefix", "first"}}), (std::set<std::string>{}));
  EXPECT_EQ(names_of({{"search_prefix", "first"}, {"search_metadata", "true"}}), (std::set<std::string>{"train 0"}));
  // The root by the step name it shows, with the GPU's derived step.
  EXPECT_EQ(names_of({{"search_prefix", "train 0"}}), (std::set<std::string>{"train 0"}));
  auto out = Run("trace_viewer@", {a}, {{"search_prefix", "train 0"}});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Events(ParseTraceDocument(out->body)).size(), 2u);
  EXPECT_EQ(names_of({{"search_prefix", "Prefetch"}}), (std::set<std::string>{}));  // hidden events stay hidden
}

TEST_F(TraceToolTest, EventDetailsByNameAndTime) {
  std::string a = Write("a.xplane.pb", TinySpace());
  // gemm: ts 2.5 µs = 0.0025 ms, dur 1 µs = 0.001 ms.
  auto out = Run("trace_viewer@", {a}, {{"event_name", "gemm"}, {"start_time_ms", "0.0025"}, {"duration_ms", "0.001"}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  auto events = Events(ParseTraceDocument(out->body));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].at("name"), "gemm");
  EXPECT_EQ(events[0].at("args").as_object().at("correlation_id"), 7);
  const int64_t uid = events[0].at("args").as_object().at("uid").to_number<int64_t>();

  // By uid, even with an imprecise time.
  out = Run("trace_viewer@", {a}, {{"event_name", "gemm"}, {"start_time_ms", "0"}, {"unique_id", std::to_string(uid)}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  events = Events(ParseTraceDocument(out->body));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_DOUBLE_EQ(Num(events[0], "ts"), 2.5);

  out = Run("trace_viewer@", {a}, {{"event_name", "gemm"}, {"start_time_ms", "0.003"}});
  EXPECT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), ErrorCode::kNotFound);
  out = Run("trace_viewer@", {a}, {{"event_name", "gemm"}, {"start_time_ms", "0.0025"}, {"duration_ms", "0.002"}});
  EXPECT_EQ(out.status().code(), ErrorCode::kNotFound);  // wrong duration
}

TEST_F(TraceToolTest, MalformedParametersAreRejectedOrDefaulted) {
  std::string a = Write("a.xplane.pb", TinySpace());
  EXPECT_EQ(Run("trace_viewer@", {a}, {{"resolution", "lots"}}).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(Run("trace_viewer@", {a}, {{"resolution", "-5"}}).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(Run("trace_viewer@", {a}, {{"start_time_ms", "1e999"}}).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(Run("trace_viewer@", {a}, {{"start_time_ms", "2"}, {"end_time_ms", "1"}}).status().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(Run("trace_viewer@", {a}, {{"format", "pb"}}).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(Run("trace_viewer@", {a}, {{"resolution", "1000.7"}, {"unknown", "x"}}).ok());
  auto out = Run("trace_viewer", {a}, {{"max_events", "many"}});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(ParseTraceDocument(out->body).at("eventLimit").at("maxEvents"), 1000000);
  out = Run("trace_viewer", {a}, {{"max_events", "2"}});
  ASSERT_TRUE(out.ok());
  // Begins 1, 1.5, 2, 2.5 (gemm and its derived step), 4 µs: the two earliest stay.
  EXPECT_EQ(ParseTraceDocument(out->body).at("eventLimit").at("droppedEvents"), 4);
  // A file that is not an XSpace is an error, not a crash.
  std::string bad = (dir_ / "bad.xplane.pb").string();
  std::ofstream(bad, std::ios::binary) << "\x0a\xff\xff\xff\xff\x0f garbage";
  EXPECT_FALSE(Run("trace_viewer@", {bad}, {}).ok());
  EXPECT_FALSE(Run("trace_viewer", {bad}, {}).ok());
}

TEST_F(TraceToolTest, IndexIsCachedPerFile) {
  std::string a = Write("a.xplane.pb", TinySpace());
  ASSERT_TRUE(Run("trace_viewer@", {a}, {}).ok());
  const uint64_t misses = cache_.misses();
  ASSERT_TRUE(Run("trace_viewer@", {a}, {{"resolution", "10"}}).ok());
  EXPECT_EQ(cache_.misses(), misses);  // second request reuses model and index
  auto key = FileIdentityKey(a);
  ASSERT_TRUE(key.ok());
  bool built_again = false;
  auto again = cache_.Get<TraceIndex>("trace_index|" + *key, [&]() -> StatusOr<std::pair<std::shared_ptr<const TraceIndex>, size_t>> {
    built_again = true;
    return Internal("should be cached");
  });
  EXPECT_TRUE(again.ok());
  EXPECT_FALSE(built_again);
  // Nothing was written next to the profile.
  size_t files = 0;
  for (auto& entry : std::filesystem::directory_iterator(dir_)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1u);
}

}  // namespace
}  // namespace tbprof

namespace tbprof {
namespace {

// A TPU plane with an "Async XLA Ops" line (shown, as xprof's trace container
// shows it) and a `_counters_` line whose events are counter samples.
TEST(TraceJson, AsyncXlaOpsShownAndCountersAreCounterEvents) {
  tensorflow::profiler::XSpace space;
  XPlaneBuilder tpu = AddPlane(space, "/device:TPU:0", 0);
  tpu.AddLine(1, "XLA Ops", 0).AddEvent("fusion.1", 1000000, 2000000);
  tpu.AddLine(2, "Async XLA Ops", 0).AddEvent("all-reduce-start.1", 1500000, 4000000);
  XLineBuilder counters = tpu.AddLine(3, "_counters_", 0);
  counters.AddEvent("HBM used", 2000000, 0).Int("bytes", 1024).Str("unit", "bytes");
  counters.AddEvent("HBM used", 3000000, 0).Int("bytes", 4096);
  auto model = Load(space);
  TraceJsonResult r = ConvertXSpacesToTraceJson({TraceHostInput{model.get(), "h"}}, TraceJsonOptions{});
  auto events = Events(ParseTraceDocument(r.json));
  ASSERT_EQ(events.size(), 4u);
  const auto* async = FindByName(events, "all-reduce-start.1");
  ASSERT_NE(async, nullptr);
  EXPECT_EQ(async->at("tid"), 2);
  EXPECT_EQ(async->at("ph"), "X");
  std::vector<const boost::json::object*> samples;
  for (const auto& e : events) {
    if (e.at("name") == "HBM used") samples.push_back(&e);
  }
  ASSERT_EQ(samples.size(), 2u);
  for (const auto* c : samples) {
    EXPECT_EQ(c->at("ph"), "C");
    EXPECT_EQ(c->at("pid"), 1);
    EXPECT_FALSE(c->contains("tid"));
    EXPECT_FALSE(c->at("args").as_object().contains("unit"));  // a series is a number
  }
  EXPECT_DOUBLE_EQ(Num(*samples[0], "ts"), 2.0);
  EXPECT_DOUBLE_EQ(samples[0]->at("args").at("bytes").to_number<double>(), 1024);
  EXPECT_DOUBLE_EQ(samples[1]->at("args").at("bytes").to_number<double>(), 4096);
}

}  // namespace
}  // namespace tbprof
