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

#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/analysis/op_stats_pages/op_stats_to_input_pipeline.h"
#include "convert/analysis/op_stats_pages/op_stats_to_overview_page.h"
#include "convert/kineto/kineto_reader.h"
#include "convert/load/profile_file.h"
#include "convert/model/kineto_names.h"
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

// The overview JSON's properties ("p") for a trace written by `w`.
json::object OverviewProperties(const TraceWriter& w) {
  auto m = ParseKinetoTrace(w.Json(), "overview");
  EXPECT_TRUE(m.ok()) << m.status().message();
  OpStats stats = ConvertXSpaceToOpStats(**m);
  json::value page = json::parse(OverviewPageToJson(ConvertOpStatsToOverviewPage(stats), stats.torch_gpu));
  return page.as_array()[0].at("p").as_object();
}

double Round2(double v) { return std::round(v * 100.0) / 100.0; }

// torch-tb-profiler's seven step parts, in its order (Communication is ours).
constexpr TorchRole kPluginRoles[] = {kTorchKernel,     kTorchMemcpy,  kTorchMemset, kTorchRuntime,
                                      kTorchDataLoader, kTorchCpuExec, kTorchOther};
constexpr int kNumPluginRoles = 7;

TEST(TorchOverview, ResNet50SampleMatchesTorchTbProfiler) {
  auto m = LoadProfileFile((kSample / "resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz").string());
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(schema::IsKinetoTrace(**m));
  const TorchOverview o = ComputeTorchOverview(**m);
  const json::value expected = ExpectedOverview();

  // Steps: name and the seven parts, in µs, as the plugin's table rows.
  const json::array& rows = expected.at("steps").at("rows").as_array();
  ASSERT_EQ(o.steps.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const json::array& row = rows[i].as_array();
    EXPECT_EQ(o.steps[i].name, row[0].as_string().c_str());
    for (int i_role = 0; i_role < kNumPluginRoles; ++i_role) {
      const TorchRole role = kPluginRoles[i_role];
      EXPECT_EQ(o.steps[i].role_ps[role], row[1 + 2 * i_role].to_number<int64_t>() * 1'000'000)
          << "step " << o.steps[i].name << " " << kTorchRoleNames[role];
    }
    EXPECT_EQ(o.steps[i].role_ps[kTorchCommunication], 0);  // one GPU, no collective
  }
  // Average step time and its parts (rounded µs, and % of the average to 2 places).
  const json::object& avg = expected.at("performance").as_array()[0].as_object();
  EXPECT_EQ(std::llround(o.average_step_ps / 1e6), avg.at("value").to_number<int64_t>());
  const json::array& children = avg.at("children").as_array();
  ASSERT_EQ(children.size(), static_cast<size_t>(kNumPluginRoles));
  for (int i_role = 0; i_role < kNumPluginRoles; ++i_role) {
    const TorchRole role = kPluginRoles[i_role];
    const json::object& c = children[i_role].as_object();
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

// The overview JSON's GPU summary: figures a trace lacks (no "blocks per SM",
// no occupancy: ROCm) are "unknown", never 0 %; a trace without kernels has
// none of the three; an xplane's overview has no such properties at all.
TEST(TorchOverview, OverviewJsonLeavesMissingGpuFiguresUnknown) {
  TraceWriter rocm;  // a kernel busy 30 of the step's 100 µs, without blocks per SM or occupancy
  rocm.Host("user_annotation", "ProfilerStep#1", 0, 100'000);
  rocm.Host("cpu_op", "aten::relu", 0, 100'000, "\"External id\": 2");
  rocm.Launch(5'000, 10'000, 10'000, 30'000, "relu_kernel", 11, 2);
  json::object p = OverviewProperties(rocm);
  EXPECT_EQ(p.at("gpu_utilization_percent").as_string(), "30.00%");
  EXPECT_EQ(p.at("sm_efficiency_percent").as_string(), "unknown");
  EXPECT_EQ(p.at("achieved_occupancy_percent").as_string(), "unknown");

  TraceWriter cpu_only;
  cpu_only.Host("user_annotation", "ProfilerStep#1", 0, 100'000);
  cpu_only.Host("cpu_op", "aten::relu", 0, 100'000, "\"External id\": 2");
  json::object c = OverviewProperties(cpu_only);
  for (const char* key : {"gpu_utilization_percent", "sm_efficiency_percent", "achieved_occupancy_percent"}) {
    EXPECT_EQ(c.at(key).as_string(), "unknown") << key;
  }
  json::value xprof_page = json::parse(OverviewPageToJson(tensorflow::profiler::OverviewPage()));
  EXPECT_FALSE(xprof_page.as_array()[0].at("p").as_object().contains("gpu_utilization_percent"));
}

// Collectives: an NCCL kernel and a host c10d op count as Communication,
// except where a compute kernel runs at the same time (Kernel first). A step
// of 100 ms: aten::mm [0, 10) launches (runtime [2, 4)) a GEMM [10, 40);
// c10d::allreduce_ [10, 20) launches (runtime [12, 14)) an NCCL kernel [30, 70).
TEST(TorchOverview, CollectivesAreCommunicationAfterKernels) {
  constexpr int64_t kMs = 1'000'000;
  TraceWriter w;
  w.Host("user_annotation", "ProfilerStep#1", 0, 100 * kMs);
  w.Host("cpu_op", "aten::mm", 0, 10 * kMs, "\"External id\": 2");
  w.Launch(2 * kMs, 2 * kMs, 10 * kMs, 30 * kMs, "volta_sgemm_128x64_nn", 11, 2);
  w.Host("cpu_op", "c10d::allreduce_", 10 * kMs, 10 * kMs, "\"External id\": 3");
  w.Launch(12 * kMs, 2 * kMs, 30 * kMs, 40 * kMs, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
           12, 3);
  auto m = ParseKinetoTrace(w.Json(), "collectives");
  ASSERT_TRUE(m.ok()) << m.status().message();
  const TorchOverview o = ComputeTorchOverview(**m);
  ASSERT_EQ(o.steps.size(), 1u);
  const TorchStep& s = o.steps[0];
  EXPECT_EQ(s.role_ps[kTorchKernel], 30 * kMs * 1000);         // [10, 40)
  EXPECT_EQ(s.role_ps[kTorchCommunication], 30 * kMs * 1000);  // [40, 70): the rest of the NCCL kernel
  EXPECT_EQ(s.role_ps[kTorchRuntime], 2 * kMs * 1000);         // [2, 4); [12, 14) is under the GEMM
  EXPECT_EQ(s.role_ps[kTorchCpuExec], 8 * kMs * 1000);         // [0, 10) less the runtime
  EXPECT_EQ(s.role_ps[kTorchOther], 30 * kMs * 1000);          // [70, 100)
  // Both kernels are GPU busy time: 60 of 100 ms.
  ASSERT_EQ(o.gpus.size(), 1u);
  EXPECT_DOUBLE_EQ(o.gpus[0].utilization, 0.6);

  // In the overview's step breakdown: device collectives 30 ms, device compute 30 ms.
  OpStats stats = ConvertXSpaceToOpStats(**m);
  json::value page = json::parse(OverviewPageToJson(ConvertOpStatsToOverviewPage(stats), stats.torch_gpu));
  const json::object& steps = page.as_array()[1].at("p").as_object();
  EXPECT_DOUBLE_EQ(std::stod(std::string(steps.at("device_collectives_time_ms_avg").as_string())), 30.0);
  EXPECT_DOUBLE_EQ(std::stod(std::string(steps.at("device_compute_time_ms_avg").as_string())), 30.0);

  for (std::string_view name : {"ncclKernel_AllReduce_RING_LL_Sum_float", "rcclGenericKernel", "NCCLKernel"}) {
    EXPECT_TRUE(IsCommunicationKernel(name)) << name;
  }
  EXPECT_FALSE(IsCommunicationKernel("void at::native::vectorized_elementwise_kernel<nccl>"));
  EXPECT_TRUE(IsCommunicationOp("nccl:all_reduce"));
  EXPECT_TRUE(IsCommunicationOp("c10d::allgather_"));
  EXPECT_FALSE(IsCommunicationOp("aten::nccl_like"));
}

// The B200 vLLM trace (8 ranks, NCCL): its one all-gather is Communication.
// Python's json module on the file: c10d::_allgather_base_ spans 242.988 µs
// and holds nccl:_all_gather_base and the ncclDevKernel_AllGather kernel
// (21.953 µs); no compute kernel runs meanwhile.
TEST(TorchOverview, RealNcclTraceCountsItsAllGather) {
  auto m = LoadProfileFile((kTestdata / "kineto_nvidia/b200_vllm_eager.pt.trace.json.gz").string());
  ASSERT_TRUE(m.ok()) << m.status().message();
  const TorchOverview o = ComputeTorchOverview(**m);
  ASSERT_FALSE(o.steps.empty());
  int64_t communication = 0;
  for (const TorchStep& s : o.steps) communication += s.role_ps[kTorchCommunication];
  EXPECT_EQ(communication, 242'988'000);
  // The step table's device collectives hold the kernel's time only (they
  // held the host call's 242.988 µs).
  const OpStats stats = ConvertXSpaceToOpStats(**m);
  uint64_t collectives = 0;
  for (const HostSteps& h : stats.steps) {
    for (const StepInfo& st : h.steps) {
      auto it = st.type_ps.find(DEVICE_COLLECTIVES);
      if (it != st.type_ps.end()) collectives += it->second;
    }
  }
  EXPECT_EQ(collectives, 21'953'000u);
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

TEST(TorchOverview, TbPluginAllCategoriesStepBreakdown) {
  auto m = ParseKinetoTrace(testing_kineto::TbPluginAllCategories().Json(0, false), "all_categories");
  ASSERT_TRUE(m.ok()) << m.status().message();
  const TorchOverview o = ComputeTorchOverview(**m);
  ASSERT_EQ(o.steps.size(), 1u);
  const int64_t expected_us[kNumPluginRoles] = {15, 10, 5, 30, 180, 35, 125};  // the plugin test's assertions
  for (int i_role = 0; i_role < kNumPluginRoles; ++i_role) {
    const TorchRole role = kPluginRoles[i_role];
    EXPECT_EQ(o.steps[0].role_ps[role], expected_us[i_role] * 1'000'000) << kTorchRoleNames[role];
  }
  EXPECT_EQ(o.steps[0].role_ps[kTorchCommunication], 0);
}

// A record_function range is host code: torch-tb-profiler's event parser maps
// user_annotation to its Python type, which its overview counts as CPU Exec.
// A step [0, 1000) µs with a range [100, 600) holding an op [200, 300):
// CPU Exec 500 µs, Other 500 (it was 100 / 900 while ranges counted nothing).
TEST(TorchOverview, RecordFunctionRangesAreCpuExec) {
  constexpr int64_t us = 1000;
  TraceWriter w;
  w.Host("user_annotation", "ProfilerStep#1", 0, 1000 * us);
  w.Host("user_annotation", "forward_pass", 100 * us, 500 * us);
  w.Host("cpu_op", "aten::relu", 200 * us, 100 * us, "\"External id\": 2");
  auto m = ParseKinetoTrace(w.Json(), "record_function");
  ASSERT_TRUE(m.ok()) << m.status().message();
  const TorchOverview o = ComputeTorchOverview(**m);
  ASSERT_EQ(o.steps.size(), 1u);
  EXPECT_EQ(o.steps[0].role_ps[kTorchCpuExec], 500 * us * 1000);
  EXPECT_EQ(o.steps[0].role_ps[kTorchOther], 500 * us * 1000);
}

// Precision: a kernel's name tells (FillFunctor<float>: 32-bit), else its
// op's input types (a typeless nvjet GEMM of aten::mm on BFloat16: 16-bit);
// a kernel of neither is unknown and left out of the split (it was "16-bit
// 0 %, 32-bit 100 %" for every PyTorch run); all unknown: "unknown".
TEST(TorchOverview, PrecisionComesFromKernelNamesAndInputTypes) {
  constexpr int64_t us = 1000;
  EXPECT_EQ(PrecisionOfKernelName("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"),
            TorchPrecision::k32Bit);
  EXPECT_EQ(PrecisionOfKernelName("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64"), TorchPrecision::k16Bit);
  EXPECT_EQ(PrecisionOfKernelName("nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN"), TorchPrecision::kUnknown);
  EXPECT_EQ(PrecisionOfInputTypes(R"(["c10::BFloat16", "c10::BFloat16", ""])"), TorchPrecision::k16Bit);
  EXPECT_EQ(PrecisionOfInputTypes(R"(["float", "long int"])"), TorchPrecision::k32Bit);
  EXPECT_EQ(PrecisionOfInputTypes(R"(["long int", ""])"), TorchPrecision::kUnknown);
  TraceWriter w;
  w.Host("user_annotation", "ProfilerStep#1", 0, 100 * us);
  w.Host("cpu_op", "aten::mm", 0, 10 * us, R"("External id": 2, "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  w.Launch(1 * us, 2 * us, 10 * us, 30 * us, "nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN", 11, 2);
  w.Host("cpu_op", "aten::fill_", 20 * us, 10 * us, R"("External id": 3, "Input type": ["float", "Scalar"])");
  w.Launch(21 * us, 2 * us, 40 * us, 10 * us, "void at::native::vectorized_elementwise_kernel<4, FillFunctor<float>>",
           12, 3);
  w.Host("cpu_op", "aten::add", 40 * us, 10 * us, R"("External id": 4)");
  w.Launch(41 * us, 2 * us, 50 * us, 40 * us, "triton_poi_fused_add_0", 13, 4);
  json::object p = OverviewProperties(w);
  EXPECT_EQ(p.at("device_compute_16bit_percent").as_string(), "75.0%");  // 30 of the 40 µs known
  EXPECT_EQ(p.at("device_compute_32bit_percent").as_string(), "25.0%");

  TraceWriter unknown;
  unknown.Host("user_annotation", "ProfilerStep#1", 0, 100 * us);
  unknown.Host("cpu_op", "aten::add", 0, 10 * us, R"("External id": 4)");
  unknown.Launch(1 * us, 2 * us, 10 * us, 40 * us, "triton_poi_fused_add_0", 13, 4);
  json::object q = OverviewProperties(unknown);
  EXPECT_EQ(q.at("device_compute_16bit_percent").as_string(), "unknown");
  EXPECT_EQ(q.at("device_compute_32bit_percent").as_string(), "unknown");
}

// A PyTorch run's overview and input pipeline JSON speak PyTorch: the step
// table has torch-tb-profiler's categories and says framework PyTorch, the
// advice is the DataLoader's (they had xprof's TensorFlow categories, eager
// statements and tf.data links).
TEST(TorchOverview, PagesOfAPyTorchRunSpeakPyTorch) {
  auto m = LoadProfileFile((kSample / "resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz").string());
  ASSERT_TRUE(m.ok()) << m.status().message();
  const OpStats stats = ConvertXSpaceToOpStats(**m);
  ASSERT_TRUE(stats.torch_steps.has_value());
  json::value overview =
      json::parse(OverviewPageToJson(ConvertOpStatsToOverviewPage(stats), stats.torch_gpu, stats.torch_steps));
  const json::object& steps = overview.as_array()[1].as_object();
  std::vector<std::string> ids;
  for (const json::value& c : steps.at("cols").as_array()) ids.push_back(std::string(c.at("id").as_string()));
  EXPECT_EQ(ids, (std::vector<std::string>{"stepnum", "Kernel", "Memcpy", "Memset", "Communication", "Runtime",
                                           "DataLoader", "CPU Exec", "Other", "stepTimeMs"}));
  EXPECT_EQ(steps.at("p").at("framework").as_string(), "PyTorch");
  EXPECT_EQ(overview.as_array()[0].at("p").at("framework").as_string(), "PyTorch");
  const std::string text = json::serialize(overview);
  EXPECT_EQ(text.find("tf.data"), std::string::npos);
  EXPECT_EQ(text.find("eager_statement"), std::string::npos);
  const std::string input = InputPipelineToJson(ConvertOpStatsToInputPipelineAnalysis(stats), stats.torch_steps);
  EXPECT_EQ(input.find("tf.data"), std::string::npos);
  for (const char* advice : {"num_workers", "pin_memory", "prefetch_factor", "DataLoader"}) {
    EXPECT_NE(input.find(advice), std::string::npos) << advice;
  }
}

}  // namespace
}  // namespace tbprof
