// tfprof's own files in a logdir: a directory holding profile_<N> files
// (ProfileContext's profile_dir, anywhere in the logdir, or a run under
// plugins/profile/) is a run whose only tool is tfprof, each file a host;
// the tfprof page's views (graph included) answer from the file, and a
// damaged one gets an error naming the file's problem.
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "plugin/routes.h"
#include "tests/plugin/plugin_test_util.h"
#include "tests/testing/tfprof_fixtures.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using testing_plugin::WriteFile;

class TfprofLogdir : public testing_plugin::ServiceTest {
 protected:
  void SetUp() override {
    const std::string show = tfprof_fixtures::TfTestModelWriter(tfprof_fixtures::TfTestModel::kShow).Serialize();
    WriteFile(base_ / "tf1/profile_dir/profile_100", show);
    WriteFile(base_ / "tf1/profile_dir/profile_200", show.substr(0, show.size() / 2));  // cut short
    WriteFile(base_ / "tf1/profile_dir/notes.txt", "not a profile");
    WriteFile(base_ / "plugins/profile/run2/profile_5", show);
    StartService(base_);
  }
};

TEST_F(TfprofLogdir, ProfileDirectoriesAreRunsWithTheTfprofToolOnly) {
  json::array runs = GetJson("/runs").as_array();
  std::vector<std::string> names;
  for (const auto& r : runs) names.emplace_back(r.as_string());
  EXPECT_NE(std::find(names.begin(), names.end(), "tf1/profile_dir"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "run2"), names.end());
  EXPECT_EQ(GetJson("/run_tools?run=tf1/profile_dir"), json::parse(R"(["tfprof"])"));
  EXPECT_EQ(GetJson("/run_tools?run=run2"), json::parse(R"(["tfprof"])"));
  EXPECT_EQ(GetJson("/hosts?run=tf1/profile_dir&tag=tfprof").as_array().size(), 2u);
}

// TensorFlow's test model (tfprof_show_test.cc): 451 parameters in the
// VariableV2 nodes DW (162), DW2 (288) and ScalarW (1).
TEST_F(TfprofLogdir, ViewsAnswerFromTheProfile) {
  json::value v = GetJson("/data?run=tf1/profile_dir&host=profile_100&tag=tfprof&view=scope&select=params"
                          "&account_type_regexes=VariableV2");
  EXPECT_EQ(v.at("root").at("total_parameters"), 451);
  v = GetJson("/data?run=run2&tag=tfprof&view=graph&select=params&account_type_regexes=VariableV2");
  EXPECT_EQ(v.at("view"), "graph");
  EXPECT_EQ(v.at("root").at("total_parameters"), 451);
  v = GetJson("/data?run=run2&tag=tfprof&view=op&select=params");
  EXPECT_EQ(v.at("root").at("children").as_array().at(0).at("name"), "Add");  // name order
}

TEST_F(TfprofLogdir, DamagedProfileAndUnknownHostAreNamed) {
  HttpResponse r = Get("/data?run=tf1/profile_dir&host=profile_200&tag=tfprof&view=scope");
  EXPECT_GE(r.status, 400);
  EXPECT_LT(r.status, 500);
  EXPECT_NE(r.Body().find("profile_200"), std::string::npos) << r.Body();
  r = Get("/data?run=tf1/profile_dir&host=profile_300&tag=tfprof");
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.Body().find("profile_300"), std::string::npos) << r.Body();
  // Other tools have nothing to read in such a run.
  EXPECT_EQ(Get("/data?run=run2&tag=overview_page").status, 404);
}

// Hostile requests and files: a pattern nested 400 deep is a 400 naming the
// option, a backtracking-catastrophic one answers, and a profile whose code
// view would be 200,000 levels deep is a 422 saying so (each crashed or hung
// a worker with a recursive engine and recursive tree walks).
class TfprofHostileLogdir : public testing_plugin::ServiceTest {
 protected:
  void SetUp() override {
    tfprof_fixtures::ProfileWriter w;
    std::vector<tfprof_fixtures::ProfileWriter::Frame> frames;
    for (int i = 0; i < 200000; ++i) frames.push_back({"model.py", "f", i + 1});
    w.Node("deep", "MatMul").Trace("deep", frames).Node("ab", "Add");
    w.Run("deep", 0, tfprof_fixtures::ProfileWriter::Exec{"/job:w/replica:0/task:0/device:gpu:0", 1, {10}, {}, 0, 0, 0, 0});
    WriteFile(base_ / "plugins/profile/deep/profile_1", w.Serialize());
    StartService(base_);
  }
};

TEST_F(TfprofHostileLogdir, PatternsAndDeepTreesGetClearErrors) {
  std::string nested = std::string(400, '(') + "." + std::string(400, ')') + "*";
  HttpResponse r = Get("/data?run=deep&tag=tfprof&view=scope&show_name_regexes=" + nested);
  EXPECT_EQ(r.status, 400) << r.Body();
  EXPECT_NE(r.Body().find("-show_name_regexes"), std::string::npos) << r.Body();
  EXPECT_NE(r.Body().find("groups nested 400 deep"), std::string::npos) << r.Body();
  json::value v = GetJson("/data?run=deep&tag=tfprof&view=scope&show_name_regexes=(.*)*x");
  EXPECT_EQ(v.at("root").at("children").as_array().size(), 0u);
  for (const char* view : {"code", "advise"}) {
    r = Get(std::string("/data?run=deep&tag=tfprof&view=") + view);
    EXPECT_EQ(r.status, 422) << view << ": " << r.Body();
    EXPECT_NE(r.Body().find("a call stack of 200000 frames"), std::string::npos) << r.Body();
  }
  EXPECT_EQ(Get("/data?run=deep&tag=tfprof&view=scope").status, 200);  // the rest of the profile still answers
}

}  // namespace
}  // namespace tbprof
