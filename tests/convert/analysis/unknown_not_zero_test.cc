// Figures a profile cannot give are left empty (xprof's empty value, or its
// "unknown" for percentages), never written as 0: the shares a TensorFlow 2.2
// profiler never recorded, the device cores of a run without a device, the
// TensorCore utilization of a host op or of IDLE, and sub-microsecond times,
// which keep their digits.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "convert/analysis/op_stats_pages/op_stats_to_tf_stats.h"
#include "convert/tools/tool_registry.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

namespace json = boost::json;
using ops_test::CpuInputBoundSpace;
using ops_test::GpuTwoStepSpace;
using ops_test::RunXPlaneTool;
using ops_test::WriteSpace;

std::string Testdata(const std::string& rel) { return std::string(TBPROF_TESTDATA) + "/" + rel; }

// The legacy GPU run's overview_page.pb, as protoc --decode shows it, has an
// analysis with only remark_color, the 16/32-bit split and the top ops: no
// idle, framework-op placement or eager share at all.
TEST(UnknownNotZero, SharesATensorFlow22ProfilerNeverRecorded) {
  const LegacyToolSpec* legacy = FindLegacySuffix("overview_page.pb");
  ASSERT_NE(legacy, nullptr);
  auto out = legacy->run(Testdata("legacy_logdir_tf22/plugins/profile/GPU-compute-bound/localhost.overview_page.pb"),
                         ToolInput{});
  ASSERT_TRUE(out.ok()) << out.status().message();
  json::object p = json::parse(out->body).as_array()[0].as_object().at("p").as_object();
  for (const char* key : {"host_idle_time_percent", "device_idle_time_percent", "host_tf_op_percent",
                          "device_tf_op_percent", "host_op_time_eager_percent", "device_op_time_eager_percent"}) {
    EXPECT_EQ(p.at(key).as_string(), "unknown") << key;
  }
  // What it did record stays: 46.299… % of device compute in 16 bits.
  EXPECT_EQ(p.at("device_compute_16bit_percent").as_string(), "46.3%");
}

TEST(UnknownNotZero, NoDeviceCoresOnACpuOnlyRun) {
  json::value overview = RunXPlaneTool("overview_page", WriteSpace(CpuInputBoundSpace(), "cpu_only_cores"));
  json::object env = overview.as_array()[2].as_object().at("p").as_object();
  EXPECT_EQ(env.at("device_type").as_string(), "CPU");
  EXPECT_EQ(env.at("device_core_count").as_string(), "");
}

TEST(UnknownNotZero, TensorCoreUtilizationOnlyForDeviceOps) {
  json::value tables = RunXPlaneTool("framework_op_stats", WriteSpace(GpuTwoStepSpace(), "gpu_tc_util"));
  const json::object& with_idle = tables.as_array()[0].as_object();
  size_t where = 0, type = 0, util = 0;
  const json::array& cols = with_idle.at("cols").as_array();
  for (size_t i = 0; i < cols.size(); ++i) {
    const json::string& id = cols[i].at("id").as_string();
    if (id == "host_or_device") where = i;
    if (id == "type") type = i;
    if (id == "gpu_tensorcore_utilization") util = i;
  }
  ASSERT_GT(util, 0u) << "a GPU profile's table has the column";
  int host_rows = 0, idle_rows = 0, device_rows = 0;
  for (const json::value& row : with_idle.at("rows").as_array()) {
    const json::array& c = row.at("c").as_array();
    const bool host = c[where].at("v").as_string() == "Host";
    const bool idle = c[type].at("v").as_string() == "IDLE";
    const json::value& v = c[util].as_object().contains("v") ? c[util].at("v") : json::value(nullptr);
    if (host || idle) {
      EXPECT_TRUE(v.is_null()) << "a host op or IDLE has no TensorCore utilization: " << json::serialize(row);
      host_rows += host;
      idle_rows += idle;
    } else {
      EXPECT_TRUE(v.is_number()) << json::serialize(row);
      ++device_rows;
    }
  }
  EXPECT_GT(host_rows, 0);
  EXPECT_GT(idle_rows, 0);
  EXPECT_GT(device_rows, 0);
}

}  // namespace
}  // namespace tbprof
