// The run environment's training flag (xprof's ModelTracker rules on HLO op
// metadata) and profiling session (the Task Environment plane), and the
// overview's shares that have nothing to divide, from XSpaces built here;
// every expected value is worked out by hand in the comments.
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "convert/analysis/op_stats/model_tracker.h"
#include "convert/analysis/op_stats/op_stats_combiner.h"
#include "convert/analysis/op_stats_pages/op_stats_to_overview_page.h"
#include "convert/analysis/op_stats_pages/op_stats_to_tf_stats.h"
#include "convert/analysis/op_stats/xplane_to_run_environment.h"
#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

using ops_test::OpStatsOf;
using ops_test::ToModel;
using tensorflow::profiler::XSpace;

TEST(ModelTracker, TensorFlowGradientScopes) {
  // Name scopes are every '/' part but the last (the op's own name).
  EXPECT_TRUE(OpMetadataComputesGradients("gradients/dense/MatMul_grad/MatMul", "MatMul"));
  EXPECT_TRUE(OpMetadataComputesGradients("gradients_2/dense/Mul", "Mul"));  // "gradient" + "s_2"
  // A name from the TF 2.2 ResNet-50 TPU profile's top ops.
  EXPECT_TRUE(OpMetadataComputesGradients("while/body/_1/gradient_tape/resnet50/res2b_branch2a/Conv2DBackpropInput",
                                          "Conv2DBackpropInput"));
  EXPECT_FALSE(OpMetadataComputesGradients("model/gradient_tape", "Identity"));  // the op's name, not a scope
  EXPECT_FALSE(OpMetadataComputesGradients("gradient_descent/update/Mul", "Mul"));  // "_descent"
  EXPECT_FALSE(OpMetadataComputesGradients("while/body/_1/resnet50/conv1/Conv2D", "Conv2D"));
}

TEST(ModelTracker, JaxTransposeScopes) {
  // Reverse-mode differentiation transposes a jvp.
  EXPECT_TRUE(OpMetadataComputesGradients("jit(train_step)/jit(main)/transpose(jvp(model))/dot_general", "dot_general"));
  // A plain transposition is not a gradient.
  EXPECT_FALSE(OpMetadataComputesGradients("jit(f)/jit(main)/transpose[permutation=(1, 0)]", "transpose"));
  EXPECT_FALSE(OpMetadataComputesGradients("jit(f)/jit(main)/dot_general", "dot_general"));
  // JAX leaves op_type empty on some instructions: the name alone decides.
  EXPECT_TRUE(OpMetadataComputesGradients("jit(f)/transpose(jvp(g))/mul", ""));
  // A type that is neither TensorFlow's nor JAX's (capitalised, yet the name has
  // parentheses, so not a TensorFlow name) is not read at all.
  EXPECT_FALSE(OpMetadataComputesGradients("jit(f)/transpose(jvp(g))/mul", "Mul"));
  // A JAX type that the last part does not contain is not a JAX op.
  EXPECT_FALSE(OpMetadataComputesGradients("jit(f)/transpose(jvp(g))/mul", "add"));
}

// A module whose one computation has one instruction with this metadata.
std::string ModuleWithOp(const char* op_name, const char* op_type) {
  xla::HloProto proto;
  xla::HloModuleProto* module = proto.mutable_hlo_module();
  module->set_name("jit_step");
  xla::HloComputationProto* comp = module->add_computations();
  comp->set_id(1);
  comp->set_name("main");
  xla::HloInstructionProto* plain = comp->add_instructions();
  plain->set_name("param.0");
  plain->set_opcode("parameter");
  plain->set_id(1);
  xla::HloInstructionProto* inst = comp->add_instructions();
  inst->set_name("fusion.1");
  inst->set_opcode("fusion");
  inst->set_id(2);
  inst->mutable_metadata()->set_op_name(op_name);
  inst->mutable_metadata()->set_op_type(op_type);
  module->set_entry_computation_id(1);
  return proto.SerializeAsString();
}

// One event metadata per module on the space's one /host:metadata plane.
void AddModule(XSpace& space, int64_t program_id, const std::string& hlo_proto) {
  tensorflow::profiler::XPlane* plane = nullptr;
  for (auto& p : *space.mutable_planes()) {
    if (p.name() == "/host:metadata") plane = &p;
  }
  if (plane == nullptr) plane = AddPlane(space, "/host:metadata").proto();
  XPlaneBuilder meta(plane);
  auto& md = (*meta.proto()->mutable_event_metadata())[program_id];
  md.set_id(program_id);
  md.set_name("jit_step");
  auto* stat = md.add_stats();
  stat->set_metadata_id(meta.StatMetadataId("Hlo Proto"));
  stat->set_bytes_value(hlo_proto);
}

// The run environment as the OpStats step computes it: with the space's HLO modules.
RunEnvironment EnvironmentOf(const XSpace& space) {
  auto model = ToModel(space);
  return ConvertXSpaceToRunEnvironment(*model, LoadHloPrograms(*model));
}

TEST(RunEnvironment, TrainingKnownOnlyFromHloModules) {
  XSpace none;
  AddPlane(none, "/host:CPU");
  EXPECT_FALSE(EnvironmentOf(none).is_training.has_value());

  XSpace inference;
  AddModule(inference, 1, ModuleWithOp("jit(f)/jit(main)/dot_general", "dot_general"));
  EXPECT_EQ(EnvironmentOf(inference).is_training, std::optional<bool>(false));

  XSpace training;
  AddModule(training, 1, ModuleWithOp("jit(f)/jit(main)/dot_general", "dot_general"));
  AddModule(training, 2, ModuleWithOp("jit(f)/transpose(jvp(g))/dot_general", "dot_general"));
  EXPECT_EQ(EnvironmentOf(training).is_training, std::optional<bool>(true));

  // A module that does not parse tells nothing.
  XSpace broken;
  AddModule(broken, 1, "\xff\xff\xff");
  EXPECT_FALSE(EnvironmentOf(broken).is_training.has_value());
}

// 1,700,000,000 s after the epoch is 2023-11-14 22:13:20 UTC.
constexpr uint64_t kStartNs = 1'700'000'000'123'456'789ULL;

XSpace HostWithSession(const char* host, uint64_t start_ns, uint64_t stop_ns) {
  XSpace space;
  space.add_hostnames(host);
  AddPlane(space, "Task Environment").Uint("profile_start_time", start_ns).Uint("profile_stop_time", stop_ns);
  AddPlane(space, "/host:CPU");
  return space;
}

boost::json::object RunEnvironmentProperties(const OpStats& stats) {
  std::string json = OverviewPageToJson(ConvertOpStatsToOverviewPage(stats));
  return boost::json::parse(json).as_array()[2].as_object().at("p").as_object();
}

TEST(RunEnvironment, ProfilingSessionOfOneHost) {
  XSpace space = HostWithSession("h0", kStartNs, kStartNs + 2'500'000'000ULL);
  RunEnvironment env = EnvironmentOf(space);
  ASSERT_EQ(env.sessions.size(), 1u);
  EXPECT_EQ(env.sessions.at("h0").start_ns, kStartNs);

  boost::json::object p = RunEnvironmentProperties(CombineOpStats({std::make_shared<const OpStats>(OpStatsOf(space))}));
  EXPECT_EQ(p.at("profile_start_time").as_string(), "2023-11-14T22:13:20.123456789+00:00");
  EXPECT_EQ(p.at("profile_duration_ms").as_string(), "2500");
  EXPECT_EQ(p.at("is_training").as_string(), "");  // no HLO module: unknown
}

TEST(RunEnvironment, ProfilingSessionSpansHosts) {
  // h0 from S to S+1 s, h1 from S+0.5 s to S+3 s: the job starts at S and lasts 3000 ms.
  uint64_t s = 1'700'000'000'000'000'000ULL;
  XSpace h0 = HostWithSession("h0", s, s + 1'000'000'000ULL);
  XSpace h1 = HostWithSession("h1", s + 500'000'000ULL, s + 3'000'000'000ULL);
  boost::json::object p = RunEnvironmentProperties(CombineOpStats(
      {std::make_shared<const OpStats>(OpStatsOf(h0)), std::make_shared<const OpStats>(OpStatsOf(h1))}));
  EXPECT_EQ(p.at("profile_start_time").as_string(), "2023-11-14T22:13:20+00:00");  // no fraction
  EXPECT_EQ(p.at("profile_duration_ms").as_string(), "3000");
}

TEST(RunEnvironment, NoSessionRecordedMeansNoFigures) {
  XSpace space;
  AddPlane(space, "/host:CPU");
  XSpace zero = HostWithSession("h0", 0, 0);  // a writer that left the stats at 0
  for (const XSpace* s : {&space, &zero}) {
    boost::json::object p = RunEnvironmentProperties(CombineOpStats({std::make_shared<const OpStats>(OpStatsOf(*s))}));
    EXPECT_FALSE(p.contains("profile_start_time"));
    EXPECT_FALSE(p.contains("profile_duration_ms"));
  }
}

TEST(RunEnvironment, TrainingFlagInTheOverview) {
  XSpace training;
  AddModule(training, 1, ModuleWithOp("gradients/dense/MatMul_grad/MatMul", "MatMul"));
  XSpace inference;
  AddModule(inference, 1, ModuleWithOp("dense/MatMul", "MatMul"));
  XSpace unknown;
  AddPlane(unknown, "/host:CPU");
  auto one = [](const XSpace& s) { return std::make_shared<const OpStats>(OpStatsOf(s)); };
  EXPECT_EQ(RunEnvironmentProperties(CombineOpStats({one(training)})).at("is_training").as_string(), "true");
  EXPECT_EQ(RunEnvironmentProperties(CombineOpStats({one(inference)})).at("is_training").as_string(), "false");
  // Hosts combine: one training host makes the job training; an unknown host does not turn a known answer unknown.
  EXPECT_EQ(RunEnvironmentProperties(CombineOpStats({one(inference), one(training)})).at("is_training").as_string(),
            "true");
  EXPECT_EQ(RunEnvironmentProperties(CombineOpStats({one(unknown), one(inference)})).at("is_training").as_string(),
            "false");
  EXPECT_EQ(RunEnvironmentProperties(CombineOpStats({one(unknown)})).at("is_training").as_string(), "");
}

// A profile without HLO programs (TensorFlow without XLA, the harness demo):
// the framework ops it recorded tell, by the same ModelTracker rule, and the
// overview's "Is training job" and framework_op_stats' task_type agree.
TEST(RunEnvironment, TrainingWithoutProgramsFromFrameworkOpsOnEveryPage) {
  auto host_with_ops = [](std::initializer_list<const char*> ops) {
    XSpace space;
    XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
    XLineBuilder thread = host.AddLine(1, "tf_Compute");
    int64_t t = 0;
    for (const char* op : ops) {
      thread.AddEvent(op, t, 1'000'000);
      t += 2'000'000;
    }
    return std::make_shared<const OpStats>(OpStatsOf(space));
  };
  struct Case {
    std::shared_ptr<const OpStats> stats;
    const char* is_training;
    const char* task_type;
  };
  const Case cases[] = {
      // A Keras train step: the forward op and its gradient under TF2's gradient_tape scope.
      {host_with_ops({"model/dense/MatMul:MatMul", "gradient_tape/model/dense/MatMul/MatMul:MatMul"}), "true",
       "Training"},
      {host_with_ops({"model/dense/MatMul:MatMul", "model/dense/BiasAdd:BiasAdd"}), "false", "Inference"},
      {host_with_ops({}), "", ""},  // no op to tell by: unknown on both pages
  };
  for (const Case& c : cases) {
    EXPECT_EQ(RunEnvironmentProperties(CombineOpStats({c.stats})).at("is_training").as_string(), c.is_training);
    boost::json::value tables =
        boost::json::parse(TfStatsToJson(ConvertOpStatsToTfStats(*c.stats), c.stats->run_environment.is_training));
    for (const boost::json::value& table : tables.as_array()) {
      EXPECT_EQ(table.at("p").at("task_type").as_string(), c.task_type);
    }
  }
}

// One GPU kernel of one framework op and no host plane: the host shares have
// nothing to divide and are xprof's "unknown"; the op placement is 0 of 1 on
// the host (a measured 0 %) and 1 of 1 on the device.
TEST(OverviewShares, ShareOfNothingIsUnknown) {
  XSpace space;
  XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 1);
  gpu.Str("device_vendor", "Nvidia").Int("compute_cap_major", 8).Int("compute_cap_minor", 0);
  XLineBuilder stream = gpu.AddLine(1, "Stream #1(Kernel)");
  stream.AddEvent("ampere_sgemm_128x64_nn", 0, 10'000'000).Str("tf_op", "model/dense/MatMul:MatMul");
  std::string json = OverviewPageToJson(ConvertOpStatsToOverviewPage(
      CombineOpStats({std::make_shared<const OpStats>(OpStatsOf(space))})));
  boost::json::object p = boost::json::parse(json).as_array()[0].as_object().at("p").as_object();
  EXPECT_EQ(p.at("host_idle_time_percent").as_string(), "unknown");
  EXPECT_EQ(p.at("host_op_time_eager_percent").as_string(), "unknown");
  EXPECT_EQ(p.at("host_tf_op_percent").as_string(), "0.0%");
  EXPECT_EQ(p.at("device_tf_op_percent").as_string(), "100.0%");
  EXPECT_EQ(p.at("device_op_time_eager_percent").as_string(), "0.0%");  // 0 of 10 µs eager

  XSpace empty;
  AddPlane(empty, "/host:CPU");
  json = OverviewPageToJson(ConvertOpStatsToOverviewPage(CombineOpStats({std::make_shared<const OpStats>(OpStatsOf(empty))})));
  p = boost::json::parse(json).as_array()[0].as_object().at("p").as_object();
  EXPECT_EQ(p.at("host_tf_op_percent").as_string(), "unknown");  // no op anywhere
  EXPECT_EQ(p.at("device_tf_op_percent").as_string(), "unknown");
  EXPECT_EQ(p.at("device_op_time_eager_percent").as_string(), "unknown");
}

}  // namespace
}  // namespace tbprof
