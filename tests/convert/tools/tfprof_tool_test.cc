// The tfprof tool on the real xplane profiles: the scope view's root totals
// equal framework_op_stats' totals and the op view's rows equal
// framework_op_stats' rows grouped by type (the figures are whole
// microseconds in tfprof, so each row may differ by its rounding, at most
// half a microsecond per framework op); and the `/data` entry's JSON.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <map>

#include "convert/analysis/op_stats_pages/op_stats_to_tf_stats.h"
#include "convert/analysis/tfprof/xspace_to_tfprof.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/tfprof_tools.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace json = boost::json;

struct TypeSums {
  double device_us = 0, host_us = 0;
  int records = 0;
};

TEST(TfprofTool, ViewsAgreeWithFrameworkOpStatsOnRealProfiles) {
  auto files = test_files::RealXPlaneFiles();
  ASSERT_FALSE(files.empty()) << "no profiles under " << test_files::RealXPlaneDir();
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    auto stats = OpStatsForPaths({path}, nullptr);
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    const auto table = ConvertOpStatsToTfStats(**stats).without_idle();
    std::map<std::string, TypeSums> by_type;
    double device_us = 0, host_us = 0;
    for (const auto& r : table.tf_stats_record()) {
      TypeSums& t = by_type[r.op_type()];
      (r.host_or_device() == "Device" ? t.device_us : t.host_us) += r.total_self_time_in_us();
      (r.host_or_device() == "Device" ? device_us : host_us) += r.total_self_time_in_us();
      ++t.records;
    }
    // framework_op_stats lists at most 500 ops per side: compare while it lists them all.
    ASSERT_LT(table.tf_stats_record_size(), 500) << "framework_op_stats truncated this profile";
    const double tolerance = 0.5 * table.tf_stats_record_size() + 1e-6;

    tfprof::Model model = tfprof::ModelFromOpStats(**stats);
    tfprof::Options o;
    auto scope = tfprof::ShowView(model, "scope", o);
    ASSERT_TRUE(scope.ok()) << scope.status().message();
    EXPECT_NEAR(scope->graph.total_accelerator_exec_micros(), device_us, tolerance);
    EXPECT_NEAR(scope->graph.total_cpu_exec_micros(), host_us, tolerance);
    EXPECT_NEAR(scope->graph.total_exec_micros(), device_us + host_us, tolerance);
    EXPECT_NE(scope->text.find("--"), std::string::npos) << "bytes/params of an xplane are unknown";

    auto op = tfprof::ShowView(model, "op", o);
    ASSERT_TRUE(op.ok()) << op.status().message();
    std::map<std::string, const tensorflow::tfprof::MultiGraphNodeProto*> rows;
    for (const auto* row = &op->multi_graph; row->children_size() > 0;) {
      row = &row->children(0);
      rows[row->name()] = row;
    }
    EXPECT_EQ(rows.size(), by_type.size());
    for (const auto& [type, sums] : by_type) {
      SCOPED_TRACE(type);
      ASSERT_TRUE(rows.count(type));
      EXPECT_NEAR(rows[type]->accelerator_exec_micros(), sums.device_us, 0.5 * sums.records + 1e-6);
      EXPECT_NEAR(rows[type]->cpu_exec_micros(), sums.host_us, 0.5 * sums.records + 1e-6);
    }
  }
}

TEST(TfprofTool, DataEntryAnswersJsonTree) {
  auto files = test_files::RealXPlaneFiles();
  ASSERT_FALSE(files.empty());
  const ToolSpec* tool = FindProfileTool("tfprof");
  ASSERT_NE(tool, nullptr);
  ToolInput in = test_files::OneHostInput(files[0]);
  in.params = {{"view", "scope"}, {"max_depth", "2"}, {"select", "micros,bytes"}};
  auto out = tool->run(in);
  ASSERT_TRUE(out.ok()) << out.status().message();
  json::value v = json::parse(out->body);
  EXPECT_EQ(v.at("view"), "scope");
  const json::object& root = v.at("root").as_object();
  EXPECT_EQ(root.at("name"), "_TFProfRoot");
  EXPECT_TRUE(root.at("total_requested_bytes").is_null());  // unknown, not 0
  EXPECT_TRUE(root.at("total_parameters").is_null());
  EXPECT_TRUE(root.at("total_exec_micros").is_int64());
  EXPECT_FALSE(root.at("children").as_array().empty());
  for (const auto& child : root.at("children").as_array()) {
    EXPECT_TRUE(child.at("children").as_array().empty()) << "max_depth 2: the root (depth 1) and depth 2";
  }
  in.params = {{"view", "op"}, {"max_depth", "x"}};
  auto bad = tool->run(in);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("Invalid option '-max_depth' value: 'x'"), std::string::npos);
  in.params = {{"view", "advise"}};
  auto advice = tool->run(in);
  ASSERT_TRUE(advice.ok()) << advice.status().message();
  EXPECT_TRUE(json::parse(advice->body).at("checkers").as_object().contains("ExpensiveOperationChecker"));
}

}  // namespace
}  // namespace tbprof
