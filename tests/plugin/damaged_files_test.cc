// Profiles that cannot be read, as the server answers them: a file cut short
// or empty gets a client error (422) that says what is wrong with it and what
// to do, names it without the server's paths, and is marked in /hosts.
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "plugin/routes.h"
#include "tests/convert/kineto/kineto_trace_writer.h"
#include "tests/plugin/plugin_test_util.h"

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
  // Combining hosts reads the damaged one too (overview_page always combines): the same client error.
  HttpResponse all = Get("/data?run=run1&host=ALL_HOSTS&tag=framework_op_stats");
  EXPECT_EQ(all.status, 422) << all.Body();
  EXPECT_EQ(Get("/data?run=run1&host=good&tag=overview_page").status, 422);
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

}  // namespace
}  // namespace tbprof
