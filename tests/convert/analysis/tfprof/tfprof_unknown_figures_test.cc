// Unknown is not zero, figure by figure, on xplane-made models: float ops of
// an op the cost model did not count, accelerator time of a host-only
// profile, bytes and parameters of any xplane profile print "--" and are
// null in the JSON, while a sum over some known nodes is still shown.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <functional>
#include <map>
#include <set>

#include "convert/analysis/tfprof/tfprof_show.h"
#include "convert/analysis/tfprof/xspace_to_tfprof.h"
#include "convert/tools/tfprof_tools.h"

namespace tbprof {
namespace {

namespace json = boost::json;

OpMetrics Op(const std::string& name, const std::string& type, uint64_t self_us, double flops) {
  OpMetrics m;
  m.name = name;
  m.category = type;
  m.occurrences = 1;
  m.self_time_ps = m.time_ps = self_us * 1000000;
  m.flops = flops;
  return m;
}

// A GPU profile: model/dense/MatMul counted 2000 flops, model/copy none.
OpStats GpuOpStats() {
  OpStats s;
  s.run_environment.hardware_type = "GPU";
  s.run_environment.device_type = "GPU";
  s.device_tf_op_metrics_db.ops["a"] = Op("model/dense/MatMul", "MatMul", 30, 2000);
  s.device_tf_op_metrics_db.ops["b"] = Op("model/copy", "Copy", 10, 0);
  s.host_op_metrics_db.ops["c"] = Op("model/input", "Iterator", 5, 0);
  return s;
}

tfprof::Options Select(std::set<std::string> fields) {
  tfprof::Options o;
  o.select = std::move(fields);
  o.order_by = "name";
  return o;
}

TEST(TfprofUnknownFigures, FloatOpsUnknownPerNodeInText) {
  tfprof::Model model = tfprof::ModelFromOpStats(GpuOpStats());
  auto scope = tfprof::ShowView(model, "scope", Select({"float_ops"}));
  ASSERT_TRUE(scope.ok()) << scope.status().message();
  EXPECT_EQ(scope->text,
            "node name | # float_ops\n"
            "_TFProfRoot (--/2.00k flops)\n"
            "  model (0/2.00k flops)\n"
            "    model/copy (--/-- flops)\n"
            "    model/dense (0/2.00k flops)\n"
            "      model/dense/MatMul (2.00k/2.00k flops)\n"
            "    model/input (--/-- flops)\n");
  auto op = tfprof::ShowView(model, "op", Select({"float_ops"}));
  ASSERT_TRUE(op.ok()) << op.status().message();
  // Copy and Iterator have no count; MatMul's row is 100% of the 2000.
  EXPECT_NE(op->text.find("Copy                                                 --\n"), std::string::npos) << op->text;
  EXPECT_NE(op->text.find("MatMul                   2.00k float_ops (100.00%, 100.00%)"), std::string::npos)
      << op->text;
}

TEST(TfprofUnknownFigures, NullInJson) {
  tfprof::Model model = tfprof::ModelFromOpStats(GpuOpStats());
  tfprof::Options o = Select({"float_ops", "bytes", "params", "micros"});
  auto scope = tfprof::ShowView(model, "scope", o);
  ASSERT_TRUE(scope.ok());
  json::value v = json::parse(TfprofViewToJson(*scope, o).value());
  const json::object& root = v.at("root").as_object();
  EXPECT_EQ(root.at("total_float_ops"), 2000);
  EXPECT_TRUE(root.at("total_requested_bytes").is_null());
  EXPECT_TRUE(root.at("total_parameters").is_null());
  EXPECT_EQ(root.at("total_accelerator_exec_micros"), 40);
  EXPECT_EQ(root.at("total_cpu_exec_micros"), 5);
  std::map<std::string, json::object> by_name;
  std::function<void(const json::object&)> walk = [&](const json::object& n) {
    by_name[std::string(n.at("name").as_string())] = n;
    for (const auto& c : n.at("children").as_array()) walk(c.as_object());
  };
  walk(root);
  EXPECT_TRUE(by_name.at("model/copy").at("float_ops").is_null());
  EXPECT_TRUE(by_name.at("model/copy").at("total_float_ops").is_null());
  EXPECT_EQ(by_name.at("model/dense/MatMul").at("float_ops"), 2000);
  EXPECT_EQ(by_name.at("model/dense").at("total_float_ops"), 2000);

  auto op = tfprof::ShowView(model, "op", o);
  ASSERT_TRUE(op.ok());
  v = json::parse(TfprofViewToJson(*op, o).value());
  std::map<std::string, json::value> row_flops;
  for (const auto& row : v.at("root").at("children").as_array()) {
    row_flops[std::string(row.at("name").as_string())] = row.at("float_ops");
  }
  EXPECT_TRUE(row_flops.at("Copy").is_null());
  EXPECT_TRUE(row_flops.at("Iterator").is_null());
  EXPECT_EQ(row_flops.at("MatMul"), 2000);
}

// A host-only profile has no accelerator: its accelerator time is unknown;
// its total time is its cpu time.
TEST(TfprofUnknownFigures, AcceleratorTimeOfCpuOnlyProfile) {
  OpStats s;
  s.run_environment.hardware_type = "CPU_ONLY";
  s.host_op_metrics_db.ops["a"] = Op("train/MatMul", "MatMul", 7, 0);
  tfprof::Model model = tfprof::ModelFromOpStats(s);
  auto scope = tfprof::ShowView(model, "scope", Select({"micros"}));
  ASSERT_TRUE(scope.ok());
  EXPECT_EQ(scope->text,
            "node name | total execution time | accelerator execution time | cpu execution time\n"
            "_TFProfRoot (--/7us, --, --/7us)\n"
            "  train (0us/7us, --, 0us/7us)\n"
            "    train/MatMul (7us/7us, --, 7us/7us)\n");
  tfprof::Options o = Select({"micros"});
  json::value v = json::parse(TfprofViewToJson(*scope, o).value());
  EXPECT_TRUE(v.at("root").at("total_accelerator_exec_micros").is_null());
  EXPECT_EQ(v.at("root").at("total_exec_micros"), 7);
  EXPECT_EQ(v.at("root").at("total_cpu_exec_micros"), 7);
}

}  // namespace
}  // namespace tbprof
