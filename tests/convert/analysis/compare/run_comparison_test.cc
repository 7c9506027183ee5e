// The comparison's matching rules on hand-built single-run results: each
// rule (op name, op type, host/device, kernel name, HLO category, step number,
// step order, unknown sides) has a case whose expected rows are counted here
// by hand and that a comparison without the rule gets wrong.
#include "convert/analysis/compare/run_comparison.h"

#include <gtest/gtest.h>

#include "convert/analysis/compare/comparison_output.h"
#include "convert/analysis/compare/regression_check.h"
#include "convert/analysis/op_stats/torch_overview.h"
#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/analysis/op_stats_pages/op_stats_to_input_pipeline.h"
#include "convert/load/profile_file.h"

namespace tbprof {
namespace {

using tensorflow::profiler::InputPipelineAnalysisResult;
using tensorflow::profiler::KernelStatsDb;
using tensorflow::profiler::TfStatsDatabase;

struct Op {
  const char* where;
  const char* type;
  const char* name;
  int64_t occurrences;
  double time_us, self_us;
};

std::shared_ptr<const TfStatsDatabase> FrameworkOps(std::initializer_list<Op> ops) {
  auto db = std::make_shared<TfStatsDatabase>();
  for (const Op& op : ops) {
    auto* r = db->mutable_with_idle()->add_tf_stats_record();
    r->set_host_or_device(op.where);
    r->set_op_type(op.type);
    r->set_op_name(op.name);
    r->set_occurrences(op.occurrences);
    r->set_total_time_in_us(op.time_us);
    r->set_total_self_time_in_us(op.self_us);
  }
  return db;
}

// Steps (number, name, step ms, device compute ms) and a breakdown of averages.
std::shared_ptr<const InputPipelineAnalysisResult> Steps(std::initializer_list<std::tuple<int, const char*, double, double>> steps) {
  auto r = std::make_shared<InputPipelineAnalysisResult>();
  double sum = 0, compute = 0;
  for (const auto& [number, name, ms, device_ms] : steps) {
    tensorflow::profiler::PerGenericStepDetails d;
    d.set_step_number(number);
    d.set_step_name(name);
    d.set_step_time_ms(ms);
    d.set_device_compute_ms(device_ms);
    r->add_step_details()->PackFrom(d);
    sum += ms;
    compute += device_ms;
  }
  r->mutable_step_time_summary()->set_average(sum / steps.size());
  tensorflow::profiler::GenericStepTimeBreakdown b;
  b.mutable_device_compute_ms_summary()->set_average(compute / steps.size());
  r->mutable_step_time_breakdown()->PackFrom(b);
  return r;
}

const OpDeltaRow* Find(const std::vector<OpDeltaRow>& rows, const std::string& name, RowPresence presence) {
  for (const OpDeltaRow& r : rows) {
    if (r.name == name && r.presence == presence) return &r;
  }
  return nullptr;
}

const MetricRow& Metric(const std::vector<MetricRow>& rows, const std::string& name) {
  for (const MetricRow& m : rows) {
    if (m.name == name) return m;
  }
  static const MetricRow none{"(missing)", std::nullopt, std::nullopt};
  ADD_FAILURE() << "no metric " << name;
  return none;
}

TEST(RunComparison, RunWithItselfHasZeroDeltasAndNoAddedOrRemovedRows) {
  RunFigures run;
  run.framework_ops = FrameworkOps({{"Device", "MatMul", "dense/MatMul", 10, 500, 400},
                                    {"Host", "IteratorGetNext", "IteratorGetNext", 10, 80, 80}});
  run.input_pipeline = Steps({{1, "1", 12, 8}, {2, "2", 14, 9}});
  RunComparison c = CompareRuns(run, run, StepAlignment::kStepNumber);
  ASSERT_EQ(c.framework_ops.size(), 2u);
  for (const OpDeltaRow& r : c.framework_ops) {
    EXPECT_EQ(r.presence, RowPresence::kBoth) << r.name;
    EXPECT_EQ(r.Delta(), 0.0) << r.name;
    EXPECT_EQ(r.SelfDelta(), 0.0) << r.name;
  }
  EXPECT_EQ(DeltaOf(Metric(c.steps, "step_time_ms").a, Metric(c.steps, "step_time_ms").b), 0.0);
  ASSERT_EQ(c.step_pairs.size(), 2u);
  for (const StepPair& p : c.step_pairs) EXPECT_EQ(DeltaOf(p.metrics[0].a, p.metrics[0].b), 0.0);
}

TEST(RunComparison, OpsMatchByNameAndAddedRemovedRowsCarryTheirTime) {
  RunFigures a, b;
  a.framework_ops = FrameworkOps({{"Device", "MatMul", "dense/MatMul", 10, 500, 400},
                                  {"Device", "Relu", "dense/Relu", 10, 30, 30}});
  b.framework_ops = FrameworkOps({{"Device", "MatMul", "dense/MatMul", 10, 450, 380},
                                  {"Device", "Gelu", "dense/Gelu", 10, 70, 70}});
  RunComparison c = CompareRuns(a, b, StepAlignment::kAverage);
  ASSERT_EQ(c.framework_ops.size(), 3u);  // MatMul matched, Relu removed, Gelu added
  const OpDeltaRow* matmul = Find(c.framework_ops, "dense/MatMul", RowPresence::kBoth);
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(matmul->Delta(), -50.0);
  EXPECT_EQ(matmul->SelfDelta(), -20.0);
  EXPECT_DOUBLE_EQ(*matmul->DeltaPercent(), -10.0);
  const OpDeltaRow* relu = Find(c.framework_ops, "dense/Relu", RowPresence::kRemoved);
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->Delta(), -30.0);
  EXPECT_FALSE(relu->time_us_b.has_value());
  EXPECT_FALSE(relu->DeltaPercent().has_value());
  const OpDeltaRow* gelu = Find(c.framework_ops, "dense/Gelu", RowPresence::kAdded);
  ASSERT_NE(gelu, nullptr);
  EXPECT_EQ(gelu->Delta(), 70.0);
  // Largest |delta| first: Gelu (+70), MatMul (-50), Relu (-30).
  EXPECT_EQ(c.framework_ops[0].name, "dense/Gelu");
  EXPECT_EQ(c.framework_ops[1].name, "dense/MatMul");
  EXPECT_EQ(c.framework_ops[2].name, "dense/Relu");
}

TEST(RunComparison, AnOpWhoseTypeChangedIsRemovedAndAdded) {
  RunFigures a, b;
  a.framework_ops = FrameworkOps({{"Device", "Conv2D", "block/conv", 4, 100, 100}});
  b.framework_ops = FrameworkOps({{"Device", "DepthwiseConv2dNative", "block/conv", 4, 60, 60}});
  RunComparison c = CompareRuns(a, b, StepAlignment::kAverage);
  ASSERT_EQ(c.framework_ops.size(), 2u);
  EXPECT_NE(Find(c.framework_ops, "block/conv", RowPresence::kRemoved), nullptr);
  EXPECT_NE(Find(c.framework_ops, "block/conv", RowPresence::kAdded), nullptr);
}

TEST(RunComparison, HostAndDeviceRowsOfOneOpStaySeparate) {
  RunFigures a, b;
  a.framework_ops = FrameworkOps({{"Host", "Identity", "x", 1, 5, 5}, {"Device", "Identity", "x", 1, 7, 7}});
  b.framework_ops = FrameworkOps({{"Host", "Identity", "x", 1, 6, 6}, {"Device", "Identity", "x", 1, 10, 10}});
  RunComparison c = CompareRuns(a, b, StepAlignment::kAverage);
  ASSERT_EQ(c.framework_ops.size(), 2u);
  EXPECT_EQ(c.framework_ops[0].where, "Device");
  EXPECT_EQ(c.framework_ops[0].Delta(), 3.0);
  EXPECT_EQ(c.framework_ops[1].where, "Host");
  EXPECT_EQ(c.framework_ops[1].Delta(), 1.0);
}

TEST(RunComparison, KernelsMatchByNameSummingTheirReports) {
  auto kernels = [](std::initializer_list<std::tuple<const char*, uint64_t, uint32_t, bool>> reports) {
    auto db = std::make_shared<KernelStatsDb>();
    for (const auto& [name, ns, count, tensor_core] : reports) {
      auto* r = db->add_reports();
      r->set_name(name);
      r->set_total_duration_ns(ns);
      r->set_occurrences(count);
      r->set_is_kernel_using_tensor_core(tensor_core);
    }
    return std::shared_ptr<const KernelStatsDb>(db);
  };
  RunFigures a, b;
  // Two launch shapes of one kernel in A: 3000 ns + 1000 ns, one of them on TensorCores.
  a.kernels = kernels({{"sgemm", 3000, 3, true}, {"sgemm", 1000, 1, false}, {"relu", 500, 2, false}});
  b.kernels = kernels({{"sgemm", 2000, 4, true}, {"gelu", 800, 2, false}});
  RunComparison c = CompareRuns(a, b, StepAlignment::kAverage);
  ASSERT_EQ(c.kernels.size(), 3u);
  const OpDeltaRow* sgemm = Find(c.kernels, "sgemm", RowPresence::kBoth);
  ASSERT_NE(sgemm, nullptr);
  EXPECT_DOUBLE_EQ(*sgemm->time_us_a, 4.0);
  EXPECT_DOUBLE_EQ(*sgemm->time_us_b, 2.0);
  EXPECT_DOUBLE_EQ(*sgemm->occurrences_a, 4.0);
  EXPECT_DOUBLE_EQ(*sgemm->tensor_core_share_a, 0.75);
  EXPECT_DOUBLE_EQ(*sgemm->tensor_core_share_b, 1.0);
  EXPECT_NE(Find(c.kernels, "relu", RowPresence::kRemoved), nullptr);
  EXPECT_NE(Find(c.kernels, "gelu", RowPresence::kAdded), nullptr);
}

TEST(ComparisonText, LongNamesThatDifferOnlyInTheMiddleStayDistinct) {
  // Two kernels of one template, 97 characters each, differing only at characters 47-50 ("128x" / "256x"): cut
  // to the 44 columns by keeping start and end they would print alike.
  const std::string one = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4_ampere_epilogue>(P)";
  std::string two = one;
  two.replace(one.find("128x128"), 3, "256");
  ASSERT_EQ(one.size(), two.size());
  ASSERT_NE(one, two);
  auto db = [](const std::string& name, uint64_t ns) {
    auto k = std::make_shared<tensorflow::profiler::KernelStatsDb>();
    auto* r = k->add_reports();
    r->set_name(name);
    r->set_total_duration_ns(ns);
    r->set_occurrences(1);
    return std::shared_ptr<const tensorflow::profiler::KernelStatsDb>(k);
  };
  RunFigures a, b;
  a.kernels = db(one, 5000);
  b.kernels = db(two, 7000);
  RunComparison c = CompareRuns(a, b, StepAlignment::kAverage);
  ASSERT_EQ(c.kernels.size(), 2u);
  std::string text = ComparisonToText(c, "A", "B", 10);
  // Each kernel's line names it by a different cut, and each cut shows the part that tells them apart.
  std::vector<std::string> names;
  size_t at = text.find("\nKernels");
  ASSERT_NE(at, std::string::npos) << text;
  for (size_t line = text.find('\n', text.find("count B", at)); line != std::string::npos && line + 1 < text.size();
       line = text.find('\n', line + 1)) {
    std::string row = text.substr(line + 1, 44);
    if (row.rfind("void cut", 0) == 0) names.push_back(row);
  }
  ASSERT_EQ(names.size(), 2u) << text;
  EXPECT_NE(names[0], names[1]) << text;
  EXPECT_TRUE((names[0].find("128x128") != std::string::npos && names[1].find("256x128") != std::string::npos) ||
              (names[1].find("128x128") != std::string::npos && names[0].find("256x128") != std::string::npos))
      << text;
  // Cut names keep the column: 44 characters, three dots where text is left out.
  for (const std::string& n : names) EXPECT_NE(n.find("..."), std::string::npos) << n;
}

TEST(RunComparison, HloOpsMatchByCategoryAndName) {
  auto db = [](std::initializer_list<std::tuple<const char*, const char*, uint64_t>> ops) {
    auto d = std::make_shared<HloOpDb>();
    for (const auto& [category, name, ps] : ops) {
      HloOpMetrics m;
      m.category = category;
      m.name = name;
      m.time_ps = ps;
      m.self_time_ps = ps;
      m.occurrences = 1;
      d->ops.push_back(m);
    }
    return std::shared_ptr<const HloOpDb>(d);
  };
  RunFigures a, b;
  a.hlo_ops = db({{"loop fusion", "fusion.1", 2000000}, {"convolution", "conv.2", 5000000}});
  b.hlo_ops = db({{"loop fusion", "fusion.1", 1000000}, {"convolution fusion", "conv.2", 4000000}});
  RunComparison c = CompareRuns(a, b, StepAlignment::kAverage);
  ASSERT_EQ(c.hlo_ops.size(), 3u);
  const OpDeltaRow* fusion = Find(c.hlo_ops, "fusion.1", RowPresence::kBoth);
  ASSERT_NE(fusion, nullptr);
  EXPECT_DOUBLE_EQ(*fusion->Delta(), -1.0);  // µs
  EXPECT_NE(Find(c.hlo_ops, "conv.2", RowPresence::kRemoved), nullptr);
  EXPECT_NE(Find(c.hlo_ops, "conv.2", RowPresence::kAdded), nullptr);
}

TEST(RunComparison, StepsAlignByNumberOrByOrder) {
  RunFigures a, b;
  a.input_pipeline = Steps({{10, "10", 20, 10}, {11, "11", 22, 11}, {12, "12", 24, 12}});
  b.input_pipeline = Steps({{11, "11", 21, 10}, {12, "12", 23, 11}, {13, "13", 25, 12}});
  RunComparison by_number = CompareRuns(a, b, StepAlignment::kStepNumber);
  // 10 (A only), 11, 12 (both), 13 (B only).
  ASSERT_EQ(by_number.step_pairs.size(), 4u);
  EXPECT_EQ(by_number.step_pairs[0].number_a, 10);
  EXPECT_FALSE(by_number.step_pairs[0].number_b.has_value());
  EXPECT_EQ(by_number.step_pairs[1].number_a, 11);
  EXPECT_EQ(by_number.step_pairs[1].number_b, 11);
  EXPECT_EQ(DeltaOf(by_number.step_pairs[1].metrics[0].a, by_number.step_pairs[1].metrics[0].b), -1.0);
  EXPECT_FALSE(DeltaOf(by_number.step_pairs[0].metrics[0].a, by_number.step_pairs[0].metrics[0].b).has_value());
  EXPECT_EQ(by_number.step_pairs[3].number_b, 13);

  RunComparison by_order = CompareRuns(a, b, StepAlignment::kOrder);
  ASSERT_EQ(by_order.step_pairs.size(), 3u);
  EXPECT_EQ(by_order.step_pairs[0].number_a, 10);
  EXPECT_EQ(by_order.step_pairs[0].number_b, 11);
  EXPECT_EQ(DeltaOf(by_order.step_pairs[0].metrics[0].a, by_order.step_pairs[0].metrics[0].b), 1.0);

  RunComparison averages = CompareRuns(a, b, StepAlignment::kAverage);
  EXPECT_TRUE(averages.step_pairs.empty());
  EXPECT_DOUBLE_EQ(*DeltaOf(Metric(averages.steps, "step_time_ms").a, Metric(averages.steps, "step_time_ms").b), 1.0);
  EXPECT_DOUBLE_EQ(
      *DeltaOf(Metric(averages.steps, "device_compute_ms").a, Metric(averages.steps, "device_compute_ms").b), 0.0);
}

TEST(RunComparison, UnknownSidesGiveNoDelta) {
  RunFigures a, b;  // A has neither ops nor steps
  b.framework_ops = FrameworkOps({{"Device", "MatMul", "m", 1, 10, 10}});
  b.input_pipeline = Steps({{1, "1", 5, 2}});
  RunComparison c = CompareRuns(a, b, StepAlignment::kStepNumber);
  ASSERT_EQ(c.framework_ops.size(), 1u);
  EXPECT_EQ(c.framework_ops[0].presence, RowPresence::kOtherSideUnknown);
  EXPECT_FALSE(c.framework_ops[0].Delta().has_value());
  const MetricRow& step = Metric(c.steps, "step_time_ms");
  EXPECT_FALSE(step.a.has_value());
  EXPECT_EQ(step.b, 5.0);
  EXPECT_TRUE(c.step_pairs.empty());
  // No steps in a run: its input stages are unknown too, not 0.
  EXPECT_FALSE(Metric(c.input_stages, "enqueue_us").a.has_value());
  // JSON writes null, CSV an empty cell.
  std::string json = ComparisonToJson(c, "A", "B");
  EXPECT_NE(json.find(R"("name":"step_time_ms","a":null,"b":5,"delta":null)"), std::string::npos) << json;
  std::string csv = ComparisonToCsv(c);
  EXPECT_NE(csv.find("steps,,step_time_ms,,,,,5,,"), std::string::npos) << csv;
}

TEST(RunComparison, DeviceCategoriesOfACpuOnlyRunAreUnknownNotZero) {
  // A measured CPU-only run holds 0 in its device categories: it has no device, so they are unknown (null,
  // "--"), while a GPU run's 0 device time stays a measured 0. Its host figures stay known.
  RunFigures a, b;
  auto cpu = std::make_shared<InputPipelineAnalysisResult>(*Steps({{1, "1", 5, 0}, {2, "2", 7, 0}}));
  cpu->set_hardware_type("CPU_ONLY");
  a.input_pipeline = cpu;
  auto gpu = std::make_shared<InputPipelineAnalysisResult>(*Steps({{1, "1", 4, 0}, {2, "2", 6, 3}}));
  gpu->set_hardware_type("GPU");
  b.input_pipeline = gpu;
  RunComparison c = CompareRuns(a, b, StepAlignment::kStepNumber);
  for (const char* name : {"device_compute_ms", "kernel_launch_ms", "device_collectives_ms", "device_to_device_ms"}) {
    EXPECT_FALSE(Metric(c.steps, name).a.has_value()) << name;
    EXPECT_FALSE(DeltaOf(Metric(c.steps, name).a, Metric(c.steps, name).b).has_value()) << name;
  }
  EXPECT_EQ(Metric(c.steps, "device_compute_ms").b, 1.5);  // (0 + 3) / 2
  EXPECT_EQ(Metric(c.steps, "step_time_ms").a, 6.0);
  EXPECT_EQ(Metric(c.steps, "host_compute_ms").a, 0.0);
  ASSERT_EQ(c.step_pairs.size(), 2u);
  EXPECT_FALSE(Metric(c.step_pairs[0].metrics, "device_compute_ms").a.has_value());
  EXPECT_EQ(Metric(c.step_pairs[0].metrics, "device_compute_ms").b, 0.0);
  EXPECT_EQ(Metric(c.step_pairs[1].metrics, "device_compute_ms").b, 3.0);
  std::string json = ComparisonToJson(c, "A", "B");
  EXPECT_NE(json.find(R"("name":"device_compute_ms","a":null,"b":1.5,"delta":null)"), std::string::npos) << json;
}

TEST(RunComparison, InputStagesOfARunWithoutInputOpsAreUnknown) {
  // Both runs have steps; only B recorded input ops (tf.data's), so only B can
  // split its input time into stages. A (say a PyTorch trace, whose input is
  // its DataLoader) shows no stage figures rather than 0.
  RunFigures a, b;
  a.input_pipeline = Steps({{1, "1", 5, 2}});
  auto with_ops = std::make_shared<InputPipelineAnalysisResult>(*Steps({{1, "1", 5, 2}}));
  with_ops->add_input_op_details()->set_op_name("Iterator::Map");
  with_ops->mutable_input_time_breakdown()->set_preprocessing_us(2000);
  b.input_pipeline = with_ops;
  RunComparison c = CompareRuns(a, b, StepAlignment::kStepNumber);
  const MetricRow& pre = Metric(c.input_stages, "preprocessing_us");
  EXPECT_FALSE(pre.a.has_value());
  EXPECT_EQ(pre.b, 2000.0);
  EXPECT_FALSE(DeltaOf(pre.a, pre.b).has_value());
}

TEST(RunComparison, MemoryPeaksPerAllocator) {
  auto memory = [](int64_t peak, int64_t heap) {
    auto m = std::make_shared<MemoryProfile>();
    auto& s = m->memory_profile_per_allocator["GPU_0_bfc"].profile_summary;
    s.peak_stats.peak_bytes_in_use = peak;
    s.peak_stats.heap_allocated_bytes = heap;
    return std::shared_ptr<const MemoryProfile>(m);
  };
  RunFigures a, b;
  a.memory = memory(1000, 900);
  b.memory = memory(1500, 1200);
  RunComparison c = CompareRuns(a, b, StepAlignment::kAverage);
  const MetricRow& peak = Metric(c.memory, "GPU_0_bfc/peak_bytes_in_use");
  EXPECT_EQ(DeltaOf(peak.a, peak.b), 500.0);
  EXPECT_EQ(DeltaPercentOf(peak.a, peak.b), 50.0);
}

TEST(RegressionCheck, ParsesTheGrammarAndRefusesTheRest) {
  auto step = ParseRegressionCheck("step_time>+5%");
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(step->section, "steps");
  EXPECT_EQ(step->name, "step_time_ms");
  EXPECT_TRUE(step->above);
  EXPECT_EQ(step->threshold, 5.0);
  auto op = ParseRegressionCheck("op:dense/MatMul<-2ms");
  ASSERT_TRUE(op.ok());
  EXPECT_EQ(op->section, "framework_ops");
  EXPECT_EQ(op->name, "dense/MatMul");
  EXPECT_FALSE(op->above);
  EXPECT_EQ(op->threshold, -2.0);
  EXPECT_EQ(op->unit, RegressionCheck::Unit::kMs);
  for (const char* bad : {"step_time", "step_time>5", "steptime>+5%", "op:>1%", ">5%", "step_time>+x%", "kernel:k>%"}) {
    EXPECT_FALSE(ParseRegressionCheck(bad).ok()) << bad;
  }
}

TEST(RegressionCheck, CrossesOnlyPastTheThreshold) {
  RunFigures a, b;
  a.input_pipeline = Steps({{1, "1", 100, 50}});
  b.input_pipeline = Steps({{1, "1", 106, 50}});  // +6%
  a.framework_ops = FrameworkOps({{"Device", "MatMul", "mm", 1, 1000, 1000}});
  b.framework_ops = FrameworkOps({{"Device", "MatMul", "mm", 1, 2500, 2500}, {"Device", "Add", "new_add", 1, 10, 10}});
  RunComparison c = CompareRuns(a, b, StepAlignment::kAverage);
  auto eval = [&](const char* text) { return EvaluateRegressionCheck(*ParseRegressionCheck(text), c).result; };
  using R = CheckOutcome::Result;
  EXPECT_EQ(eval("step_time>+5%"), R::kCrossed);
  EXPECT_EQ(eval("step_time>+7%"), R::kPassed);
  EXPECT_EQ(eval("step_time>+5ms"), R::kCrossed);
  EXPECT_EQ(eval("step_time>+6000us"), R::kPassed);  // exactly 6 ms is not above
  EXPECT_EQ(eval("step_time<-1%"), R::kPassed);
  EXPECT_EQ(eval("op:mm>+1ms"), R::kCrossed);  // +1.5 ms
  EXPECT_EQ(eval("op:mm>+2ms"), R::kPassed);
  EXPECT_EQ(eval("op:new_add>+50%"), R::kCrossed);  // from nothing
  EXPECT_EQ(eval("op:no_such_op>+1%"), R::kUndecidable);
  EXPECT_EQ(eval("device_compute>+1%"), R::kPassed);
  RunFigures unknown;
  RunComparison u = CompareRuns(unknown, b, StepAlignment::kAverage);
  EXPECT_EQ(EvaluateRegressionCheck(*ParseRegressionCheck("step_time>+5%"), u).result, R::kUndecidable);
}

// A TPU run's steps split by the TPU breakdown: each field is compared as
// the averages the result holds (written here), and the generic categories
// stay unknown for it rather than 0.
std::shared_ptr<const InputPipelineAnalysisResult> TpuSteps(int steps, double step_ms, double tc_compute_ms,
                                                             double tc_infeed_ms, double tc_idle_ms) {
  auto r = std::make_shared<InputPipelineAnalysisResult>();
  r->set_tag(true);
  r->set_hardware_type("TPU");
  for (int i = 0; i < steps; ++i) {
    tensorflow::profiler::PerTpuStepDetails d;
    d.set_step_number(i);
    r->add_step_details()->PackFrom(d);
  }
  r->mutable_step_time_summary()->set_average(step_ms);
  tensorflow::profiler::TpuStepTimeBreakdown b;
  b.mutable_tc_compute_ms_summary()->set_average(tc_compute_ms);
  b.mutable_tc_infeed_ms_summary()->set_average(tc_infeed_ms);
  b.mutable_tc_idle_ms_summary()->set_average(tc_idle_ms);
  r->mutable_step_time_breakdown()->PackFrom(b);
  return r;
}

TEST(RunComparison, TpuStepBreakdownFieldsCompare) {
  RunFigures a, b;
  a.input_pipeline = TpuSteps(4, 10.0, 6.0, 3.0, 1.0);
  b.input_pipeline = TpuSteps(4, 8.5, 6.5, 1.0, 1.0);
  RunComparison c = CompareRuns(a, b, StepAlignment::kAverage);
  EXPECT_EQ(DeltaOf(Metric(c.steps, "step_time_ms").a, Metric(c.steps, "step_time_ms").b), -1.5);
  EXPECT_EQ(DeltaOf(Metric(c.steps, "tc_compute_ms").a, Metric(c.steps, "tc_compute_ms").b), 0.5);
  EXPECT_EQ(DeltaOf(Metric(c.steps, "tc_infeed_ms").a, Metric(c.steps, "tc_infeed_ms").b), -2.0);
  EXPECT_EQ(DeltaOf(Metric(c.steps, "tc_idle_ms").a, Metric(c.steps, "tc_idle_ms").b), 0.0);
  EXPECT_EQ(Metric(c.steps, "host_transfer_ms").a, 0.0);  // a field the result holds, though 0
  EXPECT_FALSE(Metric(c.steps, "device_compute_ms").a.has_value());
  EXPECT_TRUE(c.step_note_a.empty());
  // A GPU run against a TPU run: each breakdown is known on its own side only.
  RunFigures gpu;
  gpu.input_pipeline = Steps({{1, "1", 20.0, 5.0}});
  RunComparison mixed = CompareRuns(gpu, b, StepAlignment::kAverage);
  EXPECT_EQ(Metric(mixed.steps, "device_compute_ms").a, 5.0);
  EXPECT_FALSE(Metric(mixed.steps, "device_compute_ms").b.has_value());
  EXPECT_FALSE(Metric(mixed.steps, "tc_compute_ms").a.has_value());
  EXPECT_EQ(Metric(mixed.steps, "tc_compute_ms").b, 6.5);
  auto check = ParseRegressionCheck("tc_infeed<-10%");
  ASSERT_TRUE(check.ok()) << check.status().message();
  EXPECT_EQ(EvaluateRegressionCheck(*check, c).result, CheckOutcome::Result::kCrossed);
  // Two GPU runs show no TPU rows at all.
  RunComparison generic = CompareRuns(gpu, gpu, StepAlignment::kAverage);
  for (const MetricRow& m : generic.steps) EXPECT_NE(m.name, "tc_compute_ms");
}

TEST(RunComparison, StepsWithoutAMeasuredStepSayWhyTheyAreUnknown) {
  RunFigures none, no_steps;
  auto r = std::make_shared<InputPipelineAnalysisResult>();
  r->set_tag(true);
  no_steps.input_pipeline = r;
  RunComparison c = CompareRuns(none, no_steps, StepAlignment::kAverage);
  EXPECT_NE(c.step_note_a.find("no step analysis"), std::string::npos) << c.step_note_a;
  EXPECT_NE(c.step_note_b.find("no step was measured"), std::string::npos) << c.step_note_b;
  EXPECT_FALSE(Metric(c.steps, "tc_compute_ms").b.has_value());
  EXPECT_NE(ComparisonToText(c, "A", "B", 5).find("B's steps are unknown: no step was measured"), std::string::npos);
}

// Two PyTorch runs (HTA's trace-diff pair) compare their steps in
// torch-tb-profiler's categories, not xprof's TensorFlow ones (input_ms,
// host_compute_ms, ... as they were).
TEST(RunComparison, PyTorchRunsCompareTorchCategories) {
  auto figures_of = [](const std::string& name) {
    RunFigures f;
    auto m = LoadProfileFile(std::string(TBPROF_TESTDATA) + "/kineto_hta/trace_compare/" + name);
    EXPECT_TRUE(m.ok()) << m.status().message();
    if (!m.ok()) return f;
    const OpStats stats = ConvertXSpaceToOpStats(**m);
    f.input_pipeline = std::make_shared<const tensorflow::profiler::InputPipelineAnalysisResult>(
        ConvertOpStatsToInputPipelineAnalysis(stats));
    if (stats.torch_steps) f.torch_steps = std::make_shared<const TorchStepTable>(*stats.torch_steps);
    return f;
  };
  const RunFigures a = figures_of("base.json.gz"), b = figures_of("test.json.gz");
  ASSERT_TRUE(a.torch_steps && b.torch_steps);
  const RunComparison c = CompareRuns(a, b, StepAlignment::kAverage);
  std::vector<std::string> names;
  for (const MetricRow& r : c.steps) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"steps", "step_time_ms", "Kernel", "Memcpy", "Memset", "Communication",
                                             "Runtime", "DataLoader", "CPU Exec", "Other"}));
}

}  // namespace
}  // namespace tbprof
