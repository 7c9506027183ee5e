// critical_path: the longest path of HTA's graph, on a hand-built trace whose
// path is worked out below, and its sanity on real traces.
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>
#include <string>

#include "convert/analysis/trace_analysis/critical_path.h"
#include "convert/kineto/kineto_reader.h"
#include "convert/load/profile_file.h"
#include "tests/convert/analysis/trace_analysis/critical_path_trace.h"
#include "tests/convert/kineto/kineto_trace_writer.h"

namespace tbprof::trace_analysis {
namespace {

using testing_kineto::TraceWriter;
namespace fs = std::filesystem;

std::unique_ptr<XSpaceModel> Import(const std::string& json) {
  auto m = ParseKinetoTrace(json, "test.pt.trace.json");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : std::make_unique<XSpaceModel>();
}

TEST(CriticalPath, HandBuiltStepHasTheWorkedOutPath) {
  auto model = Import(testing_kineto::CriticalPathTrace());
  auto path = ComputeCriticalPath(*model, std::nullopt);
  ASSERT_TRUE(path.ok()) << path.status().message();
  EXPECT_EQ(path->step, 1);
  EXPECT_EQ(path->steps, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(path->length_ps, 100'000'000);
  struct Want {
    CpSegmentKind kind;
    std::string name;
    int64_t start_us, duration_us;
  };
  const std::vector<Want> want = {
      {CpSegmentKind::kCpuOp, "ProfilerStep#1", 0, 10},   {CpSegmentKind::kCpuOp, "aten::mm", 10, 2},
      {CpSegmentKind::kLaunch, "cudaLaunchKernel", 12, 8}, {CpSegmentKind::kKernel, "K1", 20, 50},
      {CpSegmentKind::kGpuWait, "K1", 70, 2},              {CpSegmentKind::kKernel, "K2", 72, 8},
      {CpSegmentKind::kCpuWait, "cudaDeviceSynchronize", 80, 5},
      {CpSegmentKind::kCpuOp, "ProfilerStep#1", 85, 15}};
  ASSERT_EQ(path->segments.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(path->segments[i].kind, want[i].kind) << i;
    EXPECT_EQ(path->segments[i].name, want[i].name) << i;
    EXPECT_EQ(path->segments[i].start_ps, want[i].start_us * 1'000'000) << i;
    EXPECT_EQ(path->segments[i].duration_ps, want[i].duration_us * 1'000'000) << i;
  }
  // Step, mm, launch, K1, K2, sync, step again: the flows' events.
  ASSERT_EQ(path->visits.size(), 7u);
  EXPECT_EQ(path->visits[3].enter_ps, 20'000'000);  // K1, entered at its start, left at its end
  EXPECT_EQ(path->visits[3].leave_ps, 70'000'000);
  EXPECT_EQ(path->visits[5].enter_ps, 85'000'000);  // the sync, entered at its end

  std::string json;
  AppendCriticalPathJson({RankCriticalPath{0, *path, "", "h"}}, json);
  EXPECT_NE(json.find(R"("critical_path":{"step":1,"whole_profile":false,"steps":[1,2],"length_us":100,"reason":null,)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"({"kind":"kernel","name":"K1","rank":0,"host":"h","start_us":20,"duration_us":50,"share_pctg":50})"),
            std::string::npos)
      << json;
}

TEST(CriticalPath, ChosenStepAndUnknownStep) {
  auto model = Import(testing_kineto::CriticalPathTrace());
  auto second = ComputeCriticalPath(*model, 2);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->step, 2);
  // ProfilerStep#2 holds aten::zeros (105–125): all CPU, 30 µs.
  EXPECT_EQ(second->length_ps, 30'000'000);
  ASSERT_EQ(second->segments.size(), 3u);
  EXPECT_EQ(second->segments[1].name, "aten::zeros");
  auto missing = ComputeCriticalPath(*model, 7);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no step 7 in this profile; its steps: 1, 2"), std::string::npos);
  // Without steps the window is the whole profile: mm (0–10 µs) launching K (12–20).
  TraceWriter no_steps;
  no_steps.Host("cpu_op", "aten::mm", 0, 10'000, R"("External id": 1)");
  no_steps.Launch(1'000, 2'000, 12'000, 8'000, "K", 1, 1);
  auto whole = ComputeCriticalPath(*Import(no_steps.Json()), std::nullopt);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  EXPECT_TRUE(whole->whole_profile);
  EXPECT_EQ(whole->length_ps, 20'000'000);  // mm 1, launch delay 11, K 8
  auto asked = ComputeCriticalPath(*Import(no_steps.Json()), 3);
  ASSERT_FALSE(asked.ok());
  EXPECT_NE(asked.status().message().find("no step 3: the profile marks no steps"), std::string::npos);
}

// The stream was idle when the launch began: the launch edge, not the gap
// after the previous kernel, leads into the kernel.
TEST(CriticalPath, LaunchAfterAnIdleStreamIsTheLaunchsDelay) {
  TraceWriter t;
  t.Host("user_annotation", "ProfilerStep#5", 0, 50'000, R"("External id": 1)");
  t.Launch(1'000, 2'000, 4'000, 3'000, "A", 1, 1);    // A: 4–7
  t.Launch(20'000, 2'000, 30'000, 10'000, "B", 2, 1);  // B: 30–40, launched at 20 after A ended
  t.Host("cuda_runtime", "cudaStreamSynchronize", 25'000, 20'000, R"("correlation": 3, "External id": 1)");
  auto path = ComputeCriticalPath(*Import(t.Json()), std::nullopt);
  ASSERT_TRUE(path.ok()) << path.status().message();
  // 0 → B's launch at 20 (step) → B start (10, launch) → B (10) → sync end 45 (5) → step end (5).
  EXPECT_EQ(path->length_ps, 50'000'000);
  // Segments: step 1, A's launch call 2, step 17, B's launch delay 10, B 10, sync 5, step 5.
  ASSERT_EQ(path->segments.size(), 7u);
  EXPECT_EQ(path->segments[3].kind, CpSegmentKind::kLaunch);
  EXPECT_EQ(path->segments[3].start_ps, 20'000'000);
  EXPECT_EQ(path->segments[3].duration_ps, 10'000'000);
  EXPECT_EQ(path->segments[4].name, "B");
}

// A step that begins by waiting for the previous step's kernel: the wait is
// the CPU's waiting on the GPU (cpu_wait), not time spent in the call.
TEST(CriticalPath, WaitForTheStepBeforesWorkIsCpuWait) {
  TraceWriter t;
  t.Host("user_annotation", "ProfilerStep#1", 0, 100'000, R"("External id": 1)");
  t.Launch(5'000, 3'000, 10'000, 140'000, "long_kernel", 1, 1);  // runs until 150, into step 2
  t.Host("user_annotation", "ProfilerStep#2", 100'000, 100'000, R"("External id": 2)");
  t.Host("cuda_runtime", "cudaDeviceSynchronize", 101'000, 50'000, R"("correlation": 2, "External id": 2)");
  t.Host("cpu_op", "aten::zeros", 160'000, 30'000, R"("External id": 3)");
  auto path = ComputeCriticalPath(*Import(t.Json()), 2);
  ASSERT_TRUE(path.ok()) << path.status().message();
  EXPECT_EQ(path->length_ps, 100'000'000);
  ASSERT_EQ(path->segments.size(), 5u);
  EXPECT_EQ(path->segments[1].kind, CpSegmentKind::kCpuWait);
  EXPECT_EQ(path->segments[1].name, "cudaDeviceSynchronize");
  EXPECT_EQ(path->segments[1].duration_ps, 50'000'000);
  EXPECT_EQ(path->segments[3].name, "aten::zeros");
}

// Real traces: the path of the first step is no longer than the step plus
// what its kernels ran past it (HTA's toy trace_compare traces launch 50 ms
// more kernels than their first step waits for), no shorter than most of the
// step, and its segments add up to it (100 %).
TEST(CriticalPath, RealTracesAddUp) {
  const fs::path data(TBPROF_TESTDATA);
  for (const char* trace : {"kineto_nvidia/h100_bert_small.pt.trace.json.gz", "kineto_hta/trace_compare/base.json.gz",
                            "kineto_hta/amd/mi250_minitoy_train_ROCm6_2_kineto.json.gz"}) {
    auto model = LoadProfileFile((data / trace).string());
    ASSERT_TRUE(model.ok()) << trace;
    auto path = ComputeCriticalPath(**model, std::nullopt);
    ASSERT_TRUE(path.ok()) << trace << ": " << path.status().message();
    const int64_t span = path->step_end_ps - path->step_begin_ps;
    int64_t sum = 0;
    for (const CriticalPathSegment& s : path->segments) sum += s.duration_ps;
    EXPECT_EQ(sum, path->length_ps) << trace;
    EXPECT_LE(path->length_ps, path->window_end_ps - path->step_begin_ps) << trace;
    EXPECT_GE(path->length_ps, span * 9 / 10) << trace << " span " << span;
  }
}

// A step that ends on a synchronize: the path is the step, to the µs.
TEST(CriticalPath, BertsStepEndsOnItsSyncAndThePathIsItsSpan) {
  auto model = LoadProfileFile((fs::path(TBPROF_TESTDATA) / "kineto_nvidia/h100_bert_small.pt.trace.json.gz").string());
  ASSERT_TRUE(model.ok());
  auto path = ComputeCriticalPath(**model, std::nullopt);
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(path->window_end_ps, path->step_end_ps);
  std::string segments;
  for (const CriticalPathSegment& s : path->segments) {
    segments += std::string(CpSegmentKindName(s.kind)) + " " + s.name + " " +
                std::to_string((s.start_ps - path->step_begin_ps) / 1000) + "+" + std::to_string(s.duration_ps / 1000) + "\n";
  }
  EXPECT_NEAR(static_cast<double>(path->length_ps), static_cast<double>(path->step_end_ps - path->step_begin_ps),
              1e6) << segments;
}

}  // namespace
}  // namespace tbprof::trace_analysis
