// Profiles that cannot be read, as the server answers them: a file cut short
// or empty gets a client error (422) that says what is wrong with it and what
// to do, names it without the server's paths, and is marked in /hosts.
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>

#include "plugin/routes.h"
#include "tests/convert/kineto/kineto_trace_writer.h"
#include "tests/plugin/plugin_test_util.h"
#include "tests/testing/test_paths.h"

namespace tbprof {
namespace {

using namespace testing_plugin;

class HostListTest : public testing_plugin::ServiceTest {
 protected:
  // /hosts of `run`: each entry keeps xprof's "hostname"; a problem is an extra field.
  void ExpectHostList(const std::string& run, const json::array& want) {
    HttpResponse r = Get("/hosts?run=" + run + "&tag=trace_viewer");
    ASSERT_EQ(r.status, 200) << r.Body();
    EXPECT_EQ(json::parse(r.Body()), json::value(want)) << r.Body();
  }
};

class DamagedFiles : public HostListTest {
 protected:
  void SetUp() override {
    const fs::path run = base_ / "plugins/profile/run1";
    WriteSyntheticXPlane(run / "good.xplane.pb", 1);
    WriteSyntheticXPlane(base_ / "whole.xplane.pb", 2);
    std::string whole = ReadFile(base_ / "whole.xplane.pb");
    cut_bytes_ = whole.size() / 2;
    WriteFile(run / "cut.xplane.pb", whole.substr(0, cut_bytes_));
    WriteFile(run / "empty.xplane.pb", "");
    StartService(base_);
  }

  size_t cut_bytes_ = 0;
};

TEST_F(DamagedFiles, CutShortFileIsAClientErrorThatSaysSo) {
  for (const char* tool : {"overview_page", "trace_viewer", "framework_op_stats"}) {
    HttpResponse r = Get(std::string("/data?run=run1&host=cut&tag=") + tool);
    EXPECT_EQ(r.status, 422) << tool << ": " << r.Body();
    const std::string body = r.Body();
    EXPECT_EQ(body.rfind("cut.xplane.pb: this profile file is damaged or incomplete (" + std::to_string(cut_bytes_) +
                             " bytes; it ends inside ",
                         0),
              0u)
        << body;
    EXPECT_NE(body.find("re-capture it"), std::string::npos) << body;
    EXPECT_EQ(body.find(base_.string()), std::string::npos) << "names a server path: " << body;
    EXPECT_EQ(body.find("exceeds"), std::string::npos) << "decoder internals: " << body;
  }
  // Combining hosts leaves the unreadable ones out and names them, each with its file's error.
  json::value all = GetJson("/data?run=run1&host=ALL_HOSTS&tag=framework_op_stats");
  const json::array& left = all.at(0).at("hosts_left_out").as_array();
  ASSERT_EQ(left.size(), 2u) << all;
  EXPECT_EQ(left[0].at("host"), "cut");
  EXPECT_EQ(json::value_to<std::string>(left[0].at("reason")), Get("/data?run=run1&host=cut&tag=framework_op_stats").Body());
  EXPECT_EQ(left[1].at("host"), "empty");
  EXPECT_EQ(json::value_to<std::string>(left[1].at("reason")), Get("/data?run=run1&host=empty&tag=framework_op_stats").Body());
  EXPECT_EQ(Get("/data?run=run1&host=good&tag=overview_page").status, 200);
  EXPECT_EQ(Get("/data?run=run1&host=good&tag=framework_op_stats").status, 200);
}

TEST_F(DamagedFiles, EmptyFileIsNamedEmpty) {
  HttpResponse r = Get("/data?run=run1&host=empty&tag=trace_viewer");
  EXPECT_EQ(r.status, 422) << r.Body();
  EXPECT_EQ(r.Body(),
            "empty.xplane.pb: this profile file is empty (0 bytes): the profiler wrote nothing into it; re-capture it");
}

TEST_F(DamagedFiles, HostListMarksEmptyAndCutFiles) {
  ExpectHostList("run1", {json::object{{"hostname", "cut"}, {"problem", "damaged"}},
                          json::object{{"hostname", "empty"}, {"problem", "empty"}}, json::object{{"hostname", "good"}}});
}

// PyTorch traces: one that is no JSON at all (binary bytes) and an empty one
// are marked in /hosts as an xplane would be, and each is answered with what
// is wrong with it.
class DamagedTorchTraces : public HostListTest {
 protected:
  void SetUp() override {
    const fs::path run = base_ / "plugins/profile/torch";
    testing_kineto::TraceWriter w;
    w.Host("user_annotation", "ProfilerStep#1", 0, 100'000);
    WriteFile(run / "good.pt.trace.json", w.Json());
    WriteFile(run / "binary.pt.trace.json", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe", 18));
    WriteFile(run / "empty.pt.trace.json", "");
    StartService(base_);
  }
};

TEST_F(DamagedTorchTraces, HostListMarksBinaryAndEmptyTraces) {
  ExpectHostList("torch", {json::object{{"hostname", "binary"}, {"problem", "damaged"}},
                           json::object{{"hostname", "empty"}, {"problem", "empty"}}, json::object{{"hostname", "good"}}});
}

TEST_F(DamagedTorchTraces, EmptyTraceIsNamedEmptyAndBinaryOneIsNoJson) {
  HttpResponse empty = Get("/data?run=torch&host=empty&tag=trace_viewer");
  EXPECT_EQ(empty.status, 422) << empty.Body();
  EXPECT_EQ(empty.Body(),
            "empty.pt.trace.json: this profile file is empty (0 bytes): the profiler wrote nothing into it; "
            "re-capture it");
  HttpResponse binary = Get("/data?run=torch&host=binary&tag=trace_viewer");
  EXPECT_EQ(binary.status, 422) << binary.Body();
  EXPECT_NE(binary.Body().find("binary.pt.trace.json"), std::string::npos) << binary.Body();
  EXPECT_NE(binary.Body().find("not a JSON object"), std::string::npos) << binary.Body();
  EXPECT_EQ(binary.Body().find(base_.string()), std::string::npos) << "names a server path: " << binary.Body();
  EXPECT_EQ(Get("/data?run=torch&host=good&tag=trace_viewer").status, 200);
}

// A real GPU profile beside a copy of it cut short, named to sort first (xprof lists a run's tools by its
// first file): run "alone" holds the good file only, so its answers are what the good host's must be.
class DamagedHostBesideGood : public testing_plugin::ServiceTest {
 protected:
  void SetUp() override {
    const std::string real = ReadFile(fs::path(TBPROF_TESTDATA) / "xplane/jax_rocm_mi300_gemm/tw003.xplane.pb");
    ASSERT_FALSE(real.empty());
    cut_bytes_ = 20000;  // inside its first plane: a summary of what is left finds no GPU plane, no programs
    WriteFile(base_ / "plugins/profile/mixed/a_cut.xplane.pb", real.substr(0, cut_bytes_));
    WriteFile(base_ / "plugins/profile/mixed/good.xplane.pb", real);
    WriteFile(base_ / "plugins/profile/alone/good.xplane.pb", real);
    StartService(base_);
  }

  // `body` without its "hosts_left_out" member (the object's, or its first table's), which it must have.
  static json::value WithoutLeftOut(const std::string& body, json::array* left_out) {
    json::value v = json::parse(body);
    json::object& holder = v.is_array() ? v.as_array().at(0).as_object() : v.as_object();
    EXPECT_TRUE(holder.contains("hosts_left_out")) << body.substr(0, 200);
    if (holder.contains("hosts_left_out")) *left_out = holder.at("hosts_left_out").as_array();
    holder.erase("hosts_left_out");
    return v;
  }

  size_t cut_bytes_ = 0;
};

TEST_F(DamagedHostBesideGood, TheMenuIsTheGoodHosts) {
  json::value alone = GetJson("/run_tools?run=alone");
  EXPECT_EQ(GetJson("/run_tools?run=mixed"), alone);
  for (const char* tool : {"kernel_stats", "hlo_stats", "op_profile", "roofline_model"}) {
    EXPECT_NE(std::find(alone.as_array().begin(), alone.as_array().end(), json::value(tool)), alone.as_array().end())
        << tool << " " << alone;
  }
}

TEST_F(DamagedHostBesideGood, EachHostAnswersOnItsOwn) {
  for (const char* tool : {"overview_page", "kernel_stats", "framework_op_stats", "hlo_stats", "pod_viewer"}) {
    SCOPED_TRACE(tool);
    HttpResponse good = Get(std::string("/data?run=mixed&host=good&tag=") + tool);
    EXPECT_EQ(good.status, 200) << good.Body().substr(0, 300);
    EXPECT_EQ(good.Body(), Get(std::string("/data?run=alone&host=good&tag=") + tool).Body());
    HttpResponse cut = Get(std::string("/data?run=mixed&host=a_cut&tag=") + tool);
    EXPECT_EQ(cut.status, 422);
    EXPECT_EQ(cut.Body().rfind("a_cut.xplane.pb: this profile file is damaged or incomplete (" +
                                   std::to_string(cut_bytes_) + " bytes; it ends inside ",
                               0),
              0u)
        << cut.Body();
  }
}

// The run's programs are the good host's: module_list passes over the host whose file cannot be read.
TEST_F(DamagedHostBesideGood, TheModuleListIsTheGoodHosts) {
  HttpResponse alone = Get("/module_list?run=alone");
  ASSERT_EQ(alone.status, 200);
  EXPECT_FALSE(alone.Body().empty());
  EXPECT_EQ(Get("/module_list?run=mixed").Body(), alone.Body());
}

// ALL_HOSTS of every tool that combines hosts: the good host's answer, plus the host left out and why.
TEST_F(DamagedHostBesideGood, AllHostsCombinesTheGoodHostsAndNamesTheOneLeftOut) {
  for (const char* tool : {"overview_page", "input_pipeline_analyzer", "framework_op_stats", "kernel_stats",
                           "pod_viewer", "tf_data_bottleneck_analysis", "hlo_stats", "op_profile", "roofline_model",
                           "tfprof"}) {
    SCOPED_TRACE(tool);
    HttpResponse all = Get(std::string("/data?run=mixed&host=ALL_HOSTS&tag=") + tool);
    ASSERT_EQ(all.status, 200) << all.Body().substr(0, 300);
    json::array left;
    json::value rest = WithoutLeftOut(all.Body(), &left);
    EXPECT_EQ(rest, json::parse(Get(std::string("/data?run=alone&host=ALL_HOSTS&tag=") + tool).Body()));
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].at("host"), "a_cut");
    EXPECT_EQ(json::value_to<std::string>(left[0].at("reason")), Get(std::string("/data?run=mixed&host=a_cut&tag=") + tool).Body());
  }
}

}  // namespace
}  // namespace tbprof
