// tfprof's -step on an xplane profile: step N is the events that began
// inside step N of the step table, through the same op statistics as the
// whole profile. The profile is built here: a CPU-only TensorFlow job of two
// steps, each running one op the other does not.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/tools/tfprof_tools.h"
#include "convert/tools/tool_registry.h"
#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

using tensorflow::profiler::XSpace;

constexpr int64_t kUs = 1000 * 1000;  // picoseconds

// Step `id` from `begin` µs: 100 µs long, running `op` for `op_us` µs.
void AddStep(XLineBuilder& main, XLineBuilder& executor, int64_t id, int64_t begin, const std::string& op,
             int64_t op_us) {
  main.AddEvent("TraceContext", begin * kUs, 100 * kUs).Int("step_num", id);
  main.AddEvent("FunctionRun", (begin + 10) * kUs, 90 * kUs).Int("id", id).Int("_pt", 1).Int("_p", id);
  executor.AddEvent("ExecutorState::Process", (begin + 20) * kUs, 80 * kUs).Int("id", id).Int("_ct", 1).Int("_c", id);
  executor.AddEvent(op, (begin + 30) * kUs, op_us * kUs);
}

class TfprofStep : public ::testing::Test {
 protected:
  void SetUp() override {
    XSpace space;
    XPlaneBuilder host = AddPlane(space, "/host:CPU");
    XLineBuilder main = host.AddLine(0, "main");
    XLineBuilder executor = host.AddLine(1, "executor");
    AddStep(main, executor, 1, 0, "a/MatMul:MatMul", 30);
    AddStep(main, executor, 2, 200, "b/Add:AddV2", 50);
    space.add_hostnames("host");
    path_ = test_files::TempPath("two_steps.xplane.pb");
    std::ofstream(path_, std::ios::binary) << space.SerializeAsString();
    const OpStats whole = ops_test::OpStatsOf(space);
    ASSERT_EQ(whole.steps.size(), 1u);
    ASSERT_EQ(whole.steps[0].steps.size(), 2u) << "the fixture must make two steps";
    first_ = whole.steps[0].steps[0].step_num;
    second_ = whole.steps[0].steps[1].step_num;
  }

  // The CPU micros of `name` in the scope view of `step`.
  int64_t CpuMicros(int64_t step, const std::string& name) {
    auto model = LoadTfprofModel({path_}, nullptr, step);
    EXPECT_TRUE(model.ok()) << model.status().message();
    if (!model.ok()) return -1;
    tfprof::Options o;
    o.step = step;
    auto view = tfprof::ShowView(*model, "op", o);
    EXPECT_TRUE(view.ok()) << view.status().message();
    if (!view.ok()) return -1;
    for (const auto* row = &view->multi_graph; row->children_size() > 0;) {
      row = &row->children(0);
      if (row->name() == name) return row->cpu_exec_micros();
    }
    return 0;  // not in the view: the op did not run in that step
  }

  std::string path_;
  int64_t first_ = -1, second_ = -1;
};

TEST_F(TfprofStep, EachStepHoldsOnlyItsOwnOps) {
  EXPECT_EQ(CpuMicros(-1, "MatMul"), 30);
  EXPECT_EQ(CpuMicros(-1, "AddV2"), 50);
  EXPECT_EQ(CpuMicros(first_, "MatMul"), 30);
  EXPECT_EQ(CpuMicros(first_, "AddV2"), 0);
  EXPECT_EQ(CpuMicros(second_, "MatMul"), 0);
  EXPECT_EQ(CpuMicros(second_, "AddV2"), 50);
}

TEST_F(TfprofStep, AStepNotInTheTableNamesTheSteps) {
  auto model = LoadTfprofModel({path_}, nullptr, 77);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("-step 77 is not a step of this profile (its steps: " +
                                          std::to_string(first_) + ", " + std::to_string(second_) + ")"),
            std::string::npos)
      << model.status().message();
}

TEST_F(TfprofStep, TheServerToolTakesTheStep) {
  const ToolSpec* tool = FindProfileTool("tfprof");
  ASSERT_NE(tool, nullptr);
  ToolInput in = test_files::OneHostInput(path_);
  in.params = {{"view", "op"}, {"step", std::to_string(second_)}};
  auto out = tool->run(in);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_NE(out->body.find("AddV2"), std::string::npos);
  EXPECT_EQ(out->body.find("MatMul"), std::string::npos) << "step " << second_ << " ran no MatMul";
}

}  // namespace
}  // namespace tbprof
