// torch-tb-profiler's overview on its own ResNet-50 sample, against that
// plugin's exact answers (result_check_file.txt, read here with Boost.JSON),
// and the priority rule on small traces written by our own writer.
#include "convert/analysis/op_stats/torch_overview.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "convert/kineto/kineto_reader.h"
#include "convert/load/profile_file.h"
#include "tests/convert/kineto/kineto_trace_writer.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using testing_kineto::TraceWriter;

const fs::path kTestdata = TBPROF_TESTDATA;
const fs::path kSample = kTestdata / "kineto_torch_tb_samples";

// The plugin's answers: one JSON document per line (overview first).
json::value ExpectedOverview() {
  std::ifstream in(kSample / "result_check_file.txt");
  std::string first;
  std::getline(in, first);
  return json::parse(first);
}

double Round2(double v) { return std::round(v * 100.0) / 100.0; }

TEST(TorchOverview, ResNet50SampleMatchesTorchTbProfiler) {
  auto m = LoadProfileFile((kSample / "resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz").string());
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(IsKinetoModel(**m));
  const TorchOverview o = ComputeTorchOverview(**m);
  const json::value expected = ExpectedOverview();

  // Steps: name and the seven parts, in µs, as the plugin's table rows.
  const json::array& rows = expected.at("steps").at("rows").as_array();
  ASSERT_EQ(o.steps.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const json::array& row = rows[i].as_array();
    EXPECT_EQ(o.steps[i].name, row[0].as_string().c_str());
    for (int role = 0; role < kTorchRoles; ++role) {
      EXPECT_EQ(o.steps[i].role_ps[role], row[1 + 2 * role].to_number<int64_t>() * 1'000'000)
          << "step " << o.steps[i].name << " " << kTorchRoleNames[role];
    }
  }
  // Average step time and its parts (rounded µs, and % of the average to 2 places).
  const json::object& avg = expected.at("performance").as_array()[0].as_object();
  EXPECT_EQ(std::llround(o.average_step_ps / 1e6), avg.at("value").to_number<int64_t>());
  const json::array& children = avg.at("children").as_array();
  ASSERT_EQ(children.size(), static_cast<size_t>(kTorchRoles));
  for (int role = 0; role < kTorchRoles; ++role) {
    const json::object& c = children[role].as_object();
    EXPECT_EQ(c.at("name").as_string(), kTorchRoleNames[role]);
    EXPECT_EQ(std::llround(o.average_role_ps[role] / 1e6), c.at("value").to_number<int64_t>()) << kTorchRoleNames[role];
    EXPECT_DOUBLE_EQ(Round2(100.0 * o.average_role_ps[role] / o.average_step_ps), c.at("extra").to_number<double>())
        << kTorchRoleNames[role];
  }
  // GPU summary of GPU 0: "55.51 %", "54.68 %", "49.13 %".
  std::map<std::string, std::string> gpu;
  for (const json::value& item : expected.at("gpu_metrics").at("data").as_array()) {
    gpu[std::string(item.at("title").as_string())] = std::string(item.at("value").as_string());
  }
  ASSERT_EQ(o.gpus.size(), 1u);
  auto percent = [](double x) {
    std::ostringstream s;
    s << Round2(x * 100.0) << " %";
    return s.str();
  };
  EXPECT_EQ(percent(o.gpus[0].utilization), gpu["GPU Utilization"]);
  ASSERT_TRUE(o.gpus[0].sm_efficiency.has_value());
  EXPECT_EQ(percent(*o.gpus[0].sm_efficiency), gpu["Est. SM Efficiency"]);
  ASSERT_TRUE(o.gpus[0].achieved_occupancy.has_value());
  EXPECT_EQ(percent(*o.gpus[0].achieved_occupancy / 100.0), gpu["Est. Achieved Occupancy"]);
}

// A step of 100 µs: a kernel [10, 40), a runtime [5, 15), a DataLoader [0, 30),
// an op [0, 100): each instant counts for the first role that covers it.
TEST(TorchOverview, PriorityGivesEachInstantToOneRole) {
  TraceWriter w;
  w.Host("user_annotation", "ProfilerStep#1", 0, 100'000);
  w.Host("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 30'000);
  w.Host("cpu_op", "aten::relu", 30'000, 70'000, "\"External id\": 2");
  w.Launch(5'000, 10'000, 10'000, 30'000, "relu_kernel", 11, 2, "\"blocks per SM\": 0.5, \"est. achieved occupancy %\": 40");
  auto m = ParseKinetoTrace(w.Json(), "priority");
  ASSERT_TRUE(m.ok()) << m.status().message();
  const TorchOverview o = ComputeTorchOverview(**m);
  ASSERT_EQ(o.steps.size(), 1u);
  const TorchStep& s = o.steps[0];
  EXPECT_EQ(s.end_ps - s.begin_ps, 100'000'000);
  EXPECT_EQ(s.role_ps[kTorchKernel], 30'000'000);      // [10, 40)
  EXPECT_EQ(s.role_ps[kTorchRuntime], 5'000'000);      // [5, 10)
  EXPECT_EQ(s.role_ps[kTorchDataLoader], 5'000'000);   // [0, 5)
  EXPECT_EQ(s.role_ps[kTorchCpuExec], 60'000'000);     // [40, 100)
  EXPECT_EQ(s.role_ps[kTorchOther], 0);
  ASSERT_EQ(o.gpus.size(), 1u);
  EXPECT_DOUBLE_EQ(o.gpus[0].utilization, 0.3);
  EXPECT_DOUBLE_EQ(*o.gpus[0].sm_efficiency, 0.5 * 0.3);
  EXPECT_DOUBLE_EQ(*o.gpus[0].achieved_occupancy, 40.0);
}

// A kernel launched inside the step but running after the host step ended
// stretches the step to the kernel's end; the next step starts there.
TEST(TorchOverview, StepsExtendToTheirDeviceWork) {
  TraceWriter w;
  w.Host("user_annotation", "ProfilerStep#1", 0, 50'000);
  w.Host("user_annotation", "ProfilerStep#2", 50'000, 50'000);
  w.Host("cpu_op", "aten::mm", 1'000, 10'000, "\"External id\": 3");
  w.Launch(2'000, 1'000, 5'000, 70'000, "gemm", 21, 3);
  w.Host("cpu_op", "aten::mm", 51'000, 10'000, "\"External id\": 4");
  w.Launch(52'000, 1'000, 80'000, 10'000, "gemm", 22, 4);
  auto m = ParseKinetoTrace(w.Json(), "extend");
  ASSERT_TRUE(m.ok());
  const TorchOverview o = ComputeTorchOverview(**m);
  ASSERT_EQ(o.steps.size(), 2u);
  EXPECT_EQ(o.steps[0].end_ps, 75'000'000);
  EXPECT_EQ(o.steps[1].begin_ps, 75'000'000);
  EXPECT_EQ(o.steps[1].end_ps, 100'000'000);
}

// torch-tb-profiler's test_profiler.py "test_all_categories" (its times, in µs):
// one step [50, 450) on two threads with every category.
TraceWriter AllCategories() {
  constexpr int64_t us = 1000;
  TraceWriter w;
  w.Host("Operator", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 100 * us, 180 * us,
         "\"External id\": 2", 123);
  w.Host("Operator", "aten::to", 200 * us, 60 * us, "\"External id\": 3, \"Input Dims\": [[2, 8, 5], [], []]", 123);
  w.Host("Operator", "aten::nll_loss_backward", 340 * us, 70 * us, "\"External id\": 4", 456);
  w.Host("Operator", "ProfilerStep#1", 50 * us, 400 * us, "\"External id\": 1", 123);
  w.Device("Memcpy", "Memcpy HtoD (Pageable -> Device)", 405 * us, 10 * us, "\"stream\": 7, \"correlation\": 334, \"external id\": 4");
  w.Host("Runtime", "cudaMemcpyAsync", 360 * us, 20 * us, "\"correlation\": 334, \"external id\": 4", 456);
  w.Device("Memset", "Memset (Device)", 420 * us, 5 * us, "\"stream\": 7, \"correlation\": 40344, \"external id\": 4");
  w.Host("Runtime", "cudaMemsetAsync", 390 * us, 10 * us, "\"correlation\": 40344, \"external id\": 4", 456);
  w.Device("Kernel", "void cunn_ClassNLLCriterion_updateGradInput_kernel<float>", 430 * us, 15 * us,
           "\"correlation\": 40348, \"external id\": 4, \"device\": 0");
  w.Host("Runtime", "cudaLaunchKernel", 405 * us, 5 * us, "\"correlation\": 40348, \"external id\": 4", 456);
  return w;
}

TEST(TorchOverview, TbPluginAllCategoriesStepBreakdown) {
  auto m = ParseKinetoTrace(AllCategories().Json(0, false), "all_categories");
  ASSERT_TRUE(m.ok()) << m.status().message();
  const TorchOverview o = ComputeTorchOverview(**m);
  ASSERT_EQ(o.steps.size(), 1u);
  const int64_t expected_us[kTorchRoles] = {15, 10, 5, 30, 180, 35, 125};  // the plugin test's assertions
  for (int role = 0; role < kTorchRoles; ++role) {
    EXPECT_EQ(o.steps[0].role_ps[role], expected_us[role] * 1'000'000) << kTorchRoleNames[role];
  }
}

}  // namespace
}  // namespace tbprof
