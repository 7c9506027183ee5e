// The input-pipeline analysis' host side, by xprof's rules
// (GenerateHostResult): host ops of type InfeedEnqueue*, MemcpyHToD or
// Dataset are input ops; the first two are "Enqueue", a Dataset op whose name
// ends in a file reader (::TFRecord, ::TextLine, ::FixedLengthRecord,
// ::SSTable, ::RecordIO, ::ArrayRecord) is a "Demanded file read", or an "Advanced file read"
// when it also names ::MemoryReader, ::MemoryWriter, ::Interleave, ::Prefetch
// or ::ParallelMap; every other Dataset op is "Preprocessing". An
// input-pipeline stage's own category ("enqueue", "read", "preprocessing",
// "unknown") classes it directly. The non-enqueue
// time is the enqueue time scaled by (1 - r) / r, r being the share of the
// average step spent sending input to the device (or the ops' own total when
// r is 0), shared out in proportion to each class's self time; what the
// classes leave is "unclassified". Expected values are worked out by hand.
#include <gtest/gtest.h>

#include "convert/analysis/op_stats_pages/op_stats_to_input_pipeline.h"

namespace tbprof {
namespace {

constexpr uint64_t kUs = 1000000;  // ps

struct HostOp {
  const char* name;
  const char* type;
  uint64_t self_us;
};

// Host ops that ran once each, all of their time their own.
OpStats WithHostOps(std::initializer_list<HostOp> ops) {
  OpStats s;
  for (const HostOp& op : ops) {
    OpMetrics& m = s.host_op_metrics_db.ops[op.name];
    m.name = op.name;
    m.category = op.type;
    m.occurrences = 1;
    m.time_ps = op.self_us * kUs;
    m.self_time_ps = op.self_us * kUs;
  }
  return s;
}

// Enqueue 20 + 10 µs; demanded 30; advanced 10 + 5 + 15 (an interleaved
// ArrayRecord read); preprocessing 10 µs. IteratorGetNext waits for input and
// is no input op.
OpStats HostInputOps() {
  return WithHostOps({{"infeed/enqueue", "InfeedEnqueueTuple", 20},
                      {"MemcpyHToD", "MemcpyHToD", 10},
                      {"Iterator::TFRecord", "Dataset", 30},
                      {"Iterator::Prefetch::TFRecord", "Dataset", 10},
                      {"Iterator::ParallelMap::TextLine", "Dataset", 5},
                      {"Iterator::Interleave::ArrayRecord", "Dataset", 15},
                      {"Iterator::Map", "Dataset", 10},
                      {"IteratorGetNext", "IteratorGetNext", 40}});
}

std::map<std::string, std::string> CategoryByOp(const tensorflow::profiler::InputPipelineAnalysisResult& r) {
  std::map<std::string, std::string> out;
  for (const auto& d : r.input_op_details()) out[d.op_name()] = d.category();
  return out;
}

// A breakdown's classes, µs: enqueue, demanded file read, advanced file read,
// preprocessing, unclassified.
struct Classes {
  double enqueue, demanded, advanced, preprocessing, unclassified;
};
void ExpectClasses(const tensorflow::profiler::InputTimeBreakdown& b, const Classes& want) {
  EXPECT_DOUBLE_EQ(b.enqueue_us(), want.enqueue);
  EXPECT_DOUBLE_EQ(b.demanded_file_read_us(), want.demanded);
  EXPECT_DOUBLE_EQ(b.advanced_file_read_us(), want.advanced);
  EXPECT_DOUBLE_EQ(b.preprocessing_us(), want.preprocessing);
  EXPECT_DOUBLE_EQ(b.unclassified_non_enqueue_us(), want.unclassified);
}

TEST(InputPipelineHostOps, ClassesByXprofsNameRules) {
  auto r = ConvertOpStatsToInputPipelineAnalysis(HostInputOps());
  EXPECT_EQ(CategoryByOp(r), (std::map<std::string, std::string>{
                                 {"infeed/enqueue", "Enqueue"},
                                 {"MemcpyHToD", "Enqueue"},
                                 {"Iterator::TFRecord", "Demanded file read"},
                                 {"Iterator::Prefetch::TFRecord", "Advanced file read"},
                                 {"Iterator::ParallelMap::TextLine", "Advanced file read"},
                                 {"Iterator::Interleave::ArrayRecord", "Advanced file read"},
                                 {"Iterator::Map", "Preprocessing"}}));
  // Largest self time first; percentages of the 100 µs of input ops.
  ASSERT_EQ(r.input_op_details_size(), 7);
  EXPECT_EQ(r.input_op_details(0).op_name(), "Iterator::TFRecord");
  EXPECT_DOUBLE_EQ(r.input_op_details(0).self_time_in_percent(), 30.0);
  EXPECT_DOUBLE_EQ(r.input_op_details(0).self_time_in_ms(), 0.03);
  // No steps: r = 0, so the classes keep their own times.
  ExpectClasses(r.input_time_breakdown(), {30.0, 30.0, 30.0, 10.0, 0.0});
}

// Stages typed by `_ipl_stage_cat` (any case): enqueue 20, read 30,
// preprocessing 10, unknown 40 µs. "unknown" is an input op of no class: it
// counts in the op percentages (40 of 100 µs) but in no class's time; with no
// steps the classes keep their own times.
TEST(InputPipelineHostOps, StagesClassedByTheirOwnCategory) {
  auto r = ConvertOpStatsToInputPipelineAnalysis(WithHostOps({{"Enqueue", "enqueue", 20},
                                                              {"ReadShard", "Read", 30},
                                                              {"Decode", "preprocessing", 10},
                                                              {"Shuffle", "unknown", 40},
                                                              {"Train", "other", 50}}));
  EXPECT_EQ(CategoryByOp(r), (std::map<std::string, std::string>{{"Enqueue", "Enqueue"},
                                                                 {"ReadShard", "Demanded file read"},
                                                                 {"Decode", "Preprocessing"},
                                                                 {"Shuffle", "Unknown"}}));
  EXPECT_DOUBLE_EQ(r.input_op_details(0).self_time_in_percent(), 40.0);  // Shuffle, the largest
  ExpectClasses(r.input_time_breakdown(), {20.0, 30.0, 0.0, 10.0, 0.0});
}

TEST(InputPipelineHostOps, NonEnqueueTimeScaledByTheHostToDeviceShare) {
  OpStats s = HostInputOps();
  // One 100 µs step, 25 µs of it sending input: r = 0.25, so the non-enqueue
  // time is 30 * 0.75 / 0.25 = 90 µs, shared 30 : 30 : 10 over 70.
  StepInfo step;
  step.step_num = 1;
  step.duration_ps = 100 * kUs;
  step.type_ps[HOST_TO_DEVICE] = 25 * kUs;
  s.steps.push_back({"host", {step}});
  const auto analysis = ConvertOpStatsToInputPipelineAnalysis(s);
  const auto& b = analysis.input_time_breakdown();
  EXPECT_DOUBLE_EQ(b.enqueue_us(), 30.0);
  EXPECT_DOUBLE_EQ(b.demanded_file_read_us(), 90.0 * 30 / 70);
  EXPECT_DOUBLE_EQ(b.advanced_file_read_us(), 90.0 * 30 / 70);
  EXPECT_DOUBLE_EQ(b.preprocessing_us(), 90.0 * 10 / 70);
  EXPECT_NEAR(b.unclassified_non_enqueue_us(), 0.0, 1e-9);
}

TEST(InputPipelineHostOps, EnqueueOnlyLeavesTheRestUnclassified) {
  OpStats s = WithHostOps({{"MemcpyHToD", "MemcpyHToD", 10}});
  StepInfo step;
  step.step_num = 1;
  step.duration_ps = 100 * kUs;
  step.type_ps[HOST_TO_DEVICE] = 20 * kUs;
  s.steps.push_back({"host", {step}});
  // r = 0.2: 10 * 0.8 / 0.2 = 40 µs, none of it in a class.
  auto r = ConvertOpStatsToInputPipelineAnalysis(s);
  EXPECT_DOUBLE_EQ(r.input_time_breakdown().enqueue_us(), 10.0);
  EXPECT_DOUBLE_EQ(r.input_time_breakdown().preprocessing_us(), 0.0);
  EXPECT_DOUBLE_EQ(r.input_time_breakdown().unclassified_non_enqueue_us(), 40.0);
}

TEST(InputPipelineHostOps, NoInputOpsNoBreakdown) {
  auto r = ConvertOpStatsToInputPipelineAnalysis(WithHostOps({{"IteratorGetNext", "IteratorGetNext", 40}}));
  EXPECT_EQ(r.input_op_details_size(), 0);
  EXPECT_FALSE(r.has_input_time_breakdown());
}

}  // namespace
}  // namespace tbprof
