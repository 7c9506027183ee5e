// framework_op_stats of a PyTorch run speaks PyTorch: no "Execution mode"
// column (PyTorch runs every op eagerly; TensorFlow's Eager / Function split
// called each of them a Function), and the table says framework "PyTorch" so
// the page explains the task by PyTorch's rule. A TensorFlow profile keeps
// the column.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <string>

#include "convert/tools/tool_registry.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;

std::string OpStatsBody(const std::string& path, bool csv) {
  ToolInput in = test_files::OneHostInput(path);
  in.csv = csv;
  StatusOr<ToolOutput> out = FindProfileTool("framework_op_stats")->run(in);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? out->body : "";
}

bool HasColumn(const boost::json::object& table, const char* id) {
  for (const auto& c : table.at("cols").as_array()) {
    if (c.as_object().at("id") == id) return true;
  }
  return false;
}

TEST(TfStatsPyTorch, NoExecutionModeColumnAndFrameworkSaid) {
  const fs::path trace = fs::path(TBPROF_TESTDATA) / "kineto_nvidia" / "h100_bert_small.pt.trace.json.gz";
  ASSERT_TRUE(fs::exists(trace)) << "required: " << trace;
  const boost::json::value doc = boost::json::parse(OpStatsBody(trace.string(), false));
  ASSERT_EQ(doc.as_array().size(), 2u);
  for (const auto& t : doc.as_array()) {
    const boost::json::object& table = t.as_object();
    EXPECT_TRUE(HasColumn(table, "operation"));
    EXPECT_FALSE(HasColumn(table, "eager"));
    EXPECT_EQ(table.at("p").as_object().at("framework"), "PyTorch");
    for (const auto& row : table.at("rows").as_array()) {
      EXPECT_EQ(row.as_object().at("c").as_array().size(), table.at("cols").as_array().size());
    }
  }
  const std::string csv = OpStatsBody(trace.string(), true);
  EXPECT_EQ(csv.find("Execution mode"), std::string::npos);
  EXPECT_NE(csv.find("Operation Name"), std::string::npos);
}

TEST(TfStatsPyTorch, TensorFlowProfileKeepsExecutionMode) {
  const auto files = test_files::RealXPlaneFiles();
  ASSERT_FALSE(files.empty());
  const boost::json::value doc = boost::json::parse(OpStatsBody(files.front(), false));
  const boost::json::object& table = doc.as_array()[0].as_object();
  EXPECT_TRUE(HasColumn(table, "eager"));
  EXPECT_FALSE(table.at("p").as_object().contains("framework"));
  EXPECT_NE(OpStatsBody(files.front(), true).find("Execution mode"), std::string::npos);
}

}  // namespace
}  // namespace tbprof
