// xprof's overview_page tests (openxla/xprof), built as the test builds its
// OpStats and checked against the value it asserts, in our OverviewPage and
// its JSON.
//
// Ported scenarios (file :: test — status — result):
// xprof/convert/op_stats_to_overview_page_test.cc
//   TpuDutyCycle                                  ported    pass (busy 70 ps, idle 30 ps: 70 %)
//   HighConfidenceTpuDutyCycle, HighConfidenceZeroTimeTest
//                                                 left out: tbprof does not compute the high-confidence
//                                                 busy/idle times (no custom-call duty cycle)
//   RooflineMetrics, *_FilteringAndAggregation, *_MemoryBound
//                                                 left out: our OpStats keeps no HLO op table with HBM
//                                                 read/write breakdown, so the roofline utilisation
//                                                 figures are not computed (the page says "unknown")
//   GenerateInferenceLatencyDataTable_AverageBug  left out: inference latency is not a tbprof tool
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "convert/analysis/op_stats_pages/op_stats_to_overview_page.h"

namespace tbprof {
namespace {

TEST(XprofOverviewPagePorts, TpuDutyCycle) {
  OpStats op_stats;
  op_stats.run_environment.device_type = "TPU";
  op_stats.run_environment.hardware_type = "TPU";
  op_stats.device_op_metrics_db.busy_time_ps = 70;
  op_stats.device_op_metrics_db.idle_time_ps = 30;
  tensorflow::profiler::OverviewPage page = ConvertOpStatsToOverviewPage(op_stats);
  EXPECT_DOUBLE_EQ(page.analysis().device_duty_cycle_percent(), 70.0);
  // The same figure in the tool's analysis table, as the page shows it.
  boost::json::value json = boost::json::parse(OverviewPageToJson(page));
  const boost::json::object& props = json.at(0).at("p").as_object();
  EXPECT_EQ(props.at("device_duty_cycle_percent").as_string(), "70.0%");
  EXPECT_EQ(props.at("device_idle_time_percent").as_string(), "30.0%");
}

}  // namespace
}  // namespace tbprof
