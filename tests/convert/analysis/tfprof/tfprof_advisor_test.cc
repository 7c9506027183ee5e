// Port of TensorFlow's advisor/tfprof_advisor_test.cc: two Conv2D nodes on
// GPU:0 (n1 with data_format NHWC) starting at 10 and 20 us, 2 us each on the
// scheduling device and on stream:all. The exact report lines below follow
// from those figures by hand: 4 us busy over 10..22 us = 0.33; op view total
// 8 us (4 us cpu + 4 us accelerator), all of it Conv2D.
#include <gtest/gtest.h>

#include "convert/analysis/tfprof/tfprof_advisor.h"
#include "tests/convert/analysis/tfprof/tfprof_test_util.h"

namespace tbprof::tfprof_test {
namespace {

using tfprof::kCheckers;

class TfprofAdvisorPort : public ::testing::Test {
 protected:
  tfprof::Model model_ = ReadFixture(tfprof_fixtures::AdvisorTestWriter());
  tensorflow::tfprof::AdviceProto Advise(const std::vector<std::string>& checkers) {
    auto advice = tfprof::Advise(model_, checkers);
    EXPECT_TRUE(advice.ok()) << advice.status().message();
    return advice.ok() ? *advice : tensorflow::tfprof::AdviceProto{};
  }
};

TEST_F(TfprofAdvisorPort, Basics) {
  auto advice = Advise({});
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(advice.checkers().count(kCheckers[i])) << kCheckers[i];
}

TEST_F(TfprofAdvisorPort, OperationChecker) {
  auto advice = Advise({kCheckers[1]});
  ASSERT_EQ(advice.checkers().at(kCheckers[1]).reports_size(), 1);
  EXPECT_EQ(advice.checkers().at(kCheckers[1]).reports(0),
            "Found operation using NHWC data_format on GPU. Maybe NCHW is faster.");
}

TEST_F(TfprofAdvisorPort, UtilizationChecker) {
  auto advice = Advise({kCheckers[0]});
  ASSERT_EQ(advice.checkers().at(kCheckers[0]).reports_size(), 1);
  EXPECT_EQ(advice.checkers().at(kCheckers[0]).reports(0),
            "device: /job:localhost/replica:0/task:0/device:gpu:0 low utilization: 0.33");
}

TEST_F(TfprofAdvisorPort, ExpensiveOperationChecker) {
  auto advice = Advise({kCheckers[2]});
  const auto& reports = advice.checkers().at(kCheckers[2]).reports();
  ASSERT_EQ(reports.size(), 1);  // the scope view shows nothing >= 100 us, no code traces
  EXPECT_EQ(reports[0], "top 1 operation type: Conv2D, cpu: 4us, accelerator: 4us, total: 8us (100.00%)");
}

TEST_F(TfprofAdvisorPort, BatchNormWithoutFusedAndUnknownChecker) {
  tfprof_fixtures::ProfileWriter w = tfprof_fixtures::AdvisorTestWriter();
  w.Node("layer/BatchNorm/mul", "Mul");
  auto model = ReadFixture(w);
  auto advice = tfprof::Advise(model, {kCheckers[1]});
  ASSERT_TRUE(advice.ok());
  ASSERT_EQ(advice->checkers().at(kCheckers[1]).reports_size(), 2);
  EXPECT_EQ(advice->checkers().at(kCheckers[1]).reports(0), "Maybe use faster FusedBatchNorm instead of BatchNorm");
  auto bad = tfprof::Advise(model, {"NoSuchChecker"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("NoSuchChecker"), std::string::npos);
}

TEST_F(TfprofAdvisorPort, FormatsAsTfprofPrints) {
  auto text = tfprof::FormatAdvice(Advise({kCheckers[0], kCheckers[1]}));
  EXPECT_EQ(text,
            "\nAcceleratorUtilizationChecker:\ndevice: /job:localhost/replica:0/task:0/device:gpu:0 low "
            "utilization: 0.33\n\nOperationChecker:\nFound operation using NHWC data_format on GPU. Maybe NCHW "
            "is faster.\n");
}

}  // namespace
}  // namespace tbprof::tfprof_test
