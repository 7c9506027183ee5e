// graph_viewer through the tool registry on the real profiles: which program a
// link means. The ROCm run compiled `jit_dot` six times (programs 5, 21, 34,
// 49, 64, 79 in its /host:metadata names); five of them are a cuBLAS
// `custom-call.1`, program 5 is a Triton `gemm_fusion_dot_general.1` (read from
// the module texts), so a trace event naming module jit_dot and op
// custom-call.1 has five candidates and no single answer.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "convert/tools/tool_registry.h"

namespace tbprof {
namespace {

namespace json = boost::json;

const std::string kRocm = std::string(TBPROF_TESTDATA) + "/xplane/jax_rocm_mi300_gemm/tw003.xplane.pb";
const std::string kTpu = std::string(TBPROF_TESTDATA) + "/xplane/jax_tpu_v6e/tpu_inference_2.xplane.pb";

StatusOr<ToolOutput> RunGraphTool(const std::string& tool, const std::string& path, const std::string& query) {
  const ToolSpec* spec = FindProfileTool(tool);
  if (spec == nullptr) return NotFound("no tool " + tool);
  ToolInput in;
  in.profile_paths = {path};
  auto params = ParseQuery(query);
  if (!params.ok()) return params.status();
  in.params = *params;
  return spec->run(in);
}

std::vector<std::string> ProgramIds(const std::string& query) {
  auto out = RunGraphTool("graph_viewer", kRocm, query);
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return {};
  std::vector<std::string> ids;
  json::value answer = json::parse(out->body);
  for (const json::value& p : answer.as_array()) {
    std::string name(p.at("moduleName").as_string()), id(p.at("programId").as_string());
    EXPECT_EQ(name, "jit_dot(" + id + ")");
    ids.push_back(id);
  }
  return ids;
}

class GraphViewerTool : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(kRocm)) << "testdata missing: " << kRocm;
    ASSERT_TRUE(std::filesystem::exists(kTpu)) << "testdata missing: " << kTpu;
  }
};

TEST_F(GraphViewerTool, ProgramsListsEveryProgramAModuleNameAndNodeCanMean) {
  EXPECT_EQ(ProgramIds("type=programs&module_name=jit_dot&node_name=custom-call.1"),
            (std::vector<std::string>{"21", "34", "49", "64", "79"}));
  EXPECT_EQ(ProgramIds("type=programs&module_name=jit_dot"), (std::vector<std::string>{"21", "34", "49", "5", "64", "79"}));
  EXPECT_EQ(ProgramIds("type=programs&module_name=jit_dot&node_name=gemm_fusion_dot_general.1"),
            (std::vector<std::string>{"5"}));
  // The name module_list gives (and xprof's "<module>(<id>)") means one program.
  EXPECT_EQ(ProgramIds("type=programs&module_name=jit_dot(49)&node_name=custom-call.1"), (std::vector<std::string>{"49"}));
  EXPECT_TRUE(ProgramIds("type=programs&module_name=jit_dot(5)&node_name=custom-call.1").empty());
  EXPECT_TRUE(ProgramIds("type=programs&module_name=jit_dot&node_name=no-such-op").empty());
}

TEST_F(GraphViewerTool, GraphNamesItsProgramAndRefusesANodeOutsideIt) {
  auto out = RunGraphTool("graph_viewer", kRocm, "type=graph&format=json&program_id=49&node_name=custom-call.1&graph_width=1");
  ASSERT_TRUE(out.ok()) << out.status().message();
  json::value g = json::parse(out->body);
  EXPECT_EQ(g.at("moduleName").as_string(), "jit_dot(49)");
  EXPECT_EQ(g.at("programId").as_string(), "49");
  EXPECT_EQ(g.at("center").as_string(), "custom-call.1");
  // Program 49's entry: parameters a.1 and b.1 feed custom-call.1, whose only user is get-tuple-element.1.
  std::vector<std::string> names;
  for (const json::value& n : g.at("nodes").as_array()) names.emplace_back(n.at("name").as_string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a.1", "b.1", "custom-call.1", "get-tuple-element.1"}));
  auto missing = RunGraphTool("graph_viewer", kRocm, "type=graph&format=json&program_id=5&node_name=custom-call.1");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("custom-call.1"), std::string::npos);
  EXPECT_NE(missing.status().message().find("jit_dot(5)"), std::string::npos);
}

// TPU program ids pass 2^63: a link by id must reach that program, not fall
// back to the first module holding the node.
TEST_F(GraphViewerTool, ProgramIdsAboveInt64Select) {
  auto out = RunGraphTool("graph_viewer", kTpu, "type=graph&format=json&program_id=12190760917235803885&node_name=copy-done.4&graph_width=0");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(json::parse(out->body).at("programId").as_string(), "12190760917235803885");
  // jit__psum (program 9646411105960254074) has no copy-done.4: the link is refused with both names in the message.
  auto wrong = RunGraphTool("graph_viewer", kTpu, "type=graph&format=json&program_id=9646411105960254074&node_name=copy-done.4");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("jit__psum"), std::string::npos) << wrong.status().message();
  EXPECT_FALSE(RunGraphTool("graph_viewer", kTpu, "type=graph&format=json&program_id=12x&node_name=copy-done.4").ok());
  EXPECT_FALSE(RunGraphTool("graph_viewer", kTpu, "type=graph&format=json&program_id=1&node_name=copy-done.4").ok());
}

// op_profile names a program as xprof does, "<HLO module name>(<program id>)",
// also where the profile's metadata name already ends in the id (the TPU run's
// XLA Modules line names the program jit_f(12190760917235803885)).
TEST_F(GraphViewerTool, OpProfileProgramNodesAreModuleNameAndId) {
  auto out = RunGraphTool("op_profile", kTpu, "");
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<std::string> names;
  json::value profile = json::parse(out->body);
  for (const json::value& c : profile.at("byProgram").at("children").as_array()) {
    names.emplace_back(c.at("name").as_string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"IDLE", "jit__psum(9646411105960254074)", "jit_broadcast_in_dim(11287434908481120160)",
                                             "jit_f(12190760917235803885)"}));
}

}  // namespace
}  // namespace tbprof
