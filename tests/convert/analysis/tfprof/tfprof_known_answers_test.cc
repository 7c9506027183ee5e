// Ports of TensorFlow's tfprof_stats_test.cc and tfprof_show_test.cc
// (tensorflow/core/profiler/internal): their test model is rebuilt as a
// ProfileProto (tests/testing/tfprof_fixtures.cc says where each figure comes
// from), read back through tbprof's reader, and the views' answers are
// compared with the protos and texts those tests state.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "tests/convert/analysis/tfprof/tfprof_test_util.h"

namespace tbprof::tfprof_test {
namespace {

using tensorflow::tfprof::GraphNodeProto;
using tfprof_fixtures::TfTestModel;
using tfprof_fixtures::TfTestModelWriter;

GraphNodeProto Expected(const std::string& text) {
  GraphNodeProto proto;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &proto)) << text;
  return proto;
}

const char* const kDev = "devices: '/job:localhost/replica:0/task:0/gpu:0' ";

std::string VariableNode(const std::string& name, int exec, int params) {
  const std::string e = std::to_string(exec);
  return "children { name: '" + name + "' exec_micros: " + e + " requested_bytes: 1280 parameters: " +
         std::to_string(params) + " total_exec_micros: " + e + " total_requested_bytes: 1280 total_parameters: " +
         std::to_string(params) + " " + kDev + "cpu_exec_micros: " + e + " total_cpu_exec_micros: " + e +
         " run_count: 1 total_run_count: 1 total_definition_count: 1 peak_bytes: 1280 residual_bytes: 1280 "
         "output_bytes: 1280 total_peak_bytes: 1280 total_residual_bytes: 1280 total_output_bytes: 1280 }";
}

std::string VariablesRoot() {
  return "name: '_TFProfRoot' total_exec_micros: 13 total_requested_bytes: 2560 total_parameters: 451 " +
         VariableNode("DW", 2, 162) + VariableNode("DW2", 11, 288) +
         "children { name: 'ScalarW' parameters: 1 total_parameters: 1 total_definition_count: 1 } "
         "total_cpu_exec_micros: 13 total_run_count: 2 total_definition_count: 3 total_peak_bytes: 2560 "
         "total_residual_bytes: 2560 total_output_bytes: 2560";
}

const char* const kConv2D =
    "children { name: 'Conv2D' exec_micros: 4292 requested_bytes: 18176 total_exec_micros: 4292 "
    "total_requested_bytes: 18176 devices: '/job:localhost/replica:0/task:0/gpu:0' float_ops: 5832 "
    "total_float_ops: 5832 "
    "input_shapes { key: 0 value { dim { size: 2 } dim { size: 6 } dim { size: 6 } dim { size: 3 } } } "
    "input_shapes { key: 1 value { dim { size: 3 } dim { size: 3 } dim { size: 3 } dim { size: 6 } } } "
    "accelerator_exec_micros: 226 cpu_exec_micros: 4066 total_accelerator_exec_micros: 226 "
    "total_cpu_exec_micros: 4066 run_count: 1 total_run_count: 1 total_definition_count: 1 peak_bytes: 14592 "
    "residual_bytes: 768 output_bytes: 768 total_peak_bytes: 14592 total_residual_bytes: 768 "
    "total_output_bytes: 768 } ";

const char* const kConv2D1 =
    "children { name: 'Conv2D_1' exec_micros: 597 requested_bytes: 9728 total_exec_micros: 597 "
    "total_requested_bytes: 9728 devices: '/job:localhost/replica:0/task:0/gpu:0' float_ops: 4608 "
    "total_float_ops: 4608 "
    "input_shapes { key: 0 value { dim { size: 2 } dim { size: 3 } dim { size: 3 } dim { size: 6 } } } "
    "input_shapes { key: 1 value { dim { size: 2 } dim { size: 2 } dim { size: 6 } dim { size: 12 } } } "
    "accelerator_exec_micros: 178 cpu_exec_micros: 419 total_accelerator_exec_micros: 178 "
    "total_cpu_exec_micros: 419 run_count: 1 total_run_count: 1 total_definition_count: 1 peak_bytes: 8704 "
    "residual_bytes: 512 output_bytes: 512 total_peak_bytes: 8704 total_residual_bytes: 512 "
    "total_output_bytes: 512 } ";

class TfprofStatsPort : public ::testing::Test {
 protected:
  tfprof::Model model_ = ReadFixture(TfTestModelWriter(TfTestModel::kStats));
};

// CustomOpType: only the nodes of the custom type _trainable_variables.
TEST_F(TfprofStatsPort, CustomOpType) {
  auto o = TfOptions({3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, "name", {"_trainable_variables"}, {".*"}, {""},
                      {".*"}, {""}, false, {"params", "bytes", "micros", "float_ops"}});
  EXPECT_EQ(Expected(VariablesRoot()).DebugString(), Show(model_, "scope", o).graph.DebugString());
}

// CheckPointOpType: the same nodes through the checkpoint's custom type.
TEST_F(TfprofStatsPort, CheckPointOpType) {
  auto o = TfOptions({3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, "name", {"_checkpoint_variables"}, {".*"}, {""},
                      {".*"}, {""}, false, {"params", "bytes", "micros", "float_ops"}});
  EXPECT_EQ(Expected(VariablesRoot()).DebugString(), Show(model_, "scope", o).graph.DebugString());
}

// TestGraph: graph view from DW/Initializer/random_normal/mul down its inputs.
TEST_F(TfprofStatsPort, TestGraph) {
  auto o = TfOptions({100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, "name", {".*"}, {"DW/Initializer/random_normal/mul"},
                      {""}, {".*"}, {""}, false, {"params", "bytes", "micros", "float_ops"}});
  const std::string expected =
      "name: '_TFProfRoot' total_exec_micros: 4945 total_requested_bytes: 30464 total_parameters: 451 "
      "children { name: 'DW/Initializer/random_normal/mul' "
      "  children { name: 'DW/Initializer/random_normal/RandomStandardNormal' "
      "    children { name: 'DW/Initializer/random_normal/shape' total_definition_count: 1 } "
      "    input_shapes { key: 0 value { dim { size: 4 } } } total_definition_count: 2 } "
      "  children { name: 'DW/Initializer/random_normal/stddev' total_definition_count: 1 } "
      "  input_shapes { key: 0 value { dim { size: 3 } dim { size: 3 } dim { size: 3 } dim { size: 6 } } } "
      "  input_shapes { key: 1 value { dim { size: 1 } } } total_definition_count: 4 } "
      "total_float_ops: 10440 total_accelerator_exec_micros: 404 total_cpu_exec_micros: 4541 "
      "total_run_count: 6 total_definition_count: 32 total_peak_bytes: 25856 total_residual_bytes: 3840 "
      "total_output_bytes: 4864";
  EXPECT_EQ(Expected(expected).DebugString(), Show(model_, "graph", o).graph.DebugString());
}

// TestFloatOps: -min_float_ops 1 keeps the two convolutions.
TEST_F(TfprofStatsPort, TestFloatOps) {
  auto o = TfOptions({10, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, -1, "name", {".*"}, {".*"}, {""}, {".*"}, {""}, false,
                      {"float_ops"}});
  const std::string expected =
      std::string("name: '_TFProfRoot' total_exec_micros: 4945 total_requested_bytes: 30464 "
                  "total_parameters: 451 ") +
      kConv2D + kConv2D1 +
      "total_float_ops: 10440 total_accelerator_exec_micros: 404 total_cpu_exec_micros: 4541 "
      "total_run_count: 6 total_definition_count: 35 total_peak_bytes: 25856 total_residual_bytes: 3840 "
      "total_output_bytes: 4864";
  EXPECT_EQ(Expected(expected).DebugString(), Show(model_, "scope", o).graph.DebugString());
}

// TestAccountShownNameOnly: -account_displayed_op_only recomputes the root
// from the one shown node.
TEST_F(TfprofStatsPort, TestAccountShownNameOnly) {
  auto o = TfOptions({100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, "name", {".*"}, {".*"}, {""}, {"Conv2D_1"}, {""},
                      true, {"params"}});
  const std::string expected =
      std::string("name: '_TFProfRoot' total_exec_micros: 597 total_requested_bytes: 9728 ") + kConv2D1 +
      "total_float_ops: 4608 total_accelerator_exec_micros: 178 total_cpu_exec_micros: 419 total_run_count: 1 "
      "total_definition_count: 2 total_peak_bytes: 8704 total_residual_bytes: 512 total_output_bytes: 512";
  EXPECT_EQ(Expected(expected).DebugString(), Show(model_, "scope", o).graph.DebugString());
}

class TfprofShowPort : public ::testing::Test {
 protected:
  tfprof::Model model_ = ReadFixture(TfTestModelWriter(TfTestModel::kShow));
};

TEST_F(TfprofShowPort, DumpScopeMode) {
  auto o = TfOptions({5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, "name", {"VariableV2"}, {".*"}, {""}, {".*"}, {""},
                      false,
                      {"params", "bytes", "peak_bytes", "residual_bytes", "output_bytes", "micros",
                       "accelerator_micros", "cpu_micros", "float_ops"}});
  EXPECT_EQ(
      tfprof_fixtures::kShowModelScopeAnswer,
      Show(model_, "scope", o).text);
}

TEST_F(TfprofShowPort, DumpAcceleratorAndCPUMicros) {
  auto o = TfOptions({5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, "cpu_micros", {".*"}, {".*"}, {""}, {".*"}, {""},
                      false, {"accelerator_micros", "cpu_micros"}});
  std::string expected =
      "node name | accelerator execution time | cpu execution time\n"
      "_TFProfRoot (--/404us, --/4.50ms)\n"
      "  Conv2D (226us/226us, 4.07ms/4.07ms)\n"
      "  Conv2D_1 (178us/178us, 419us/419us)\n";
  auto variable = [](const std::string& v, const std::string& cpu) {
    const std::string z = " (0us/0us, 0us/0us)\n";
    const std::string rn = v + "/Initializer/random_normal";
    return "  " + v + " (0us/0us, " + cpu + "/" + cpu + ")\n    " + v + "/Assign" + z + "    " + v +
           "/Initializer" + z + "      " + rn + z + "        " + rn + "/RandomStandardNormal" + z + "        " +
           rn + "/mean" + z + "        " + rn + "/mul" + z + "        " + rn + "/shape" + z + "        " + rn +
           "/stddev" + z + "    " + v + "/read" + z;
  };
  expected += variable("DW2", "11us") + variable("DW", "2us") + "  zeros (0us/0us, 2us/2us)\n" +
              variable("ScalarW", "0us") + "  init (0us/0us, 0us/0us)\n";
  EXPECT_EQ(expected, Show(model_, "scope", o).text);
}

// DumpOpMode: the op view's rows VariableV2, Add, Assign, Const, Conv2D,
// Identity (max_depth 5 = six rows), with running-total percentages and the
// input-shape blocks; compared without spaces, as the original test does.
TEST_F(TfprofShowPort, DumpOpMode) {
  auto o = TfOptions({5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, -1, "params", {".*"}, {".*"}, {""}, {".*"}, {""}, false,
                      {"params", "bytes", "micros", "float_ops", "occurrence", "input_shapes"}});
  const std::string expected =
      "nodename|requestedbytes|totalexecutiontime|acceleratorexecutiontime|cpuexecutiontime|#parameters|"
      "#float_ops|opoccurrence(run|defined)|inputshapes\n"
      "VariableV20B(0.00%,0.00%),13us(100.00%,0.27%),0us(100.00%,0.00%),13us(100.00%,0.29%),451params(100.00%,"
      "100.00%),0float_ops(100.00%,0.00%),2|3\n\ninput_type:\t(run*2|defined*3)\texec_time:13us\n\n"
      "Add0B(0.00%,0.00%),0us(99.73%,0.00%),0us(100.00%,0.00%),0us(99.71%,0.00%),0params(0.00%,0.00%),"
      "0float_ops(100.00%,0.00%),0|3\n\ninput_type:0:1,\t1:1\t(run*0|defined*1)\texec_time:0us\n"
      "input_type:0:2x2x6x12,\t1:1\t(run*0|defined*1)\texec_time:0us\n"
      "input_type:0:3x3x3x6,\t1:1\t(run*0|defined*1)\texec_time:0us\n\n"
      "Assign0B(0.00%,0.00%),0us(99.73%,0.00%),0us(100.00%,0.00%),0us(99.71%,0.00%),0params(0.00%,0.00%),"
      "0float_ops(100.00%,0.00%),0|3\n\ninput_type:0:1,\t1:1\t(run*0|defined*1)\texec_time:0us\n"
      "input_type:0:2x2x6x12,\t1:2x2x6x12\t(run*0|defined*1)\texec_time:0us\n"
      "input_type:0:3x3x3x6,\t1:3x3x3x6\t(run*0|defined*1)\texec_time:0us\n\n"
      "Const0B(0.00%,0.00%),2us(99.73%,0.04%),0us(100.00%,0.00%),2us(99.71%,0.04%),0params(0.00%,0.00%),"
      "0float_ops(100.00%,0.00%),1|10\n\ninput_type:\t(run*1|defined*10)\texec_time:2us\n\n"
      "Conv2D14.59KB(100.00%,100.00%),4.89ms(99.69%,99.69%),404us(100.00%,100.00%),4.49ms(99.67%,99.67%),"
      "0params(0.00%,0.00%),10.44kfloat_ops(100.00%,100.00%),2|2\n\n"
      "input_type:0:2x3x3x6,\t1:2x2x6x12\t(run*1|defined*1)\texec_time:597us\n"
      "input_type:0:2x6x6x3,\t1:3x3x3x6\t(run*1|defined*1)\texec_time:4.29ms\n\n"
      "Identity0B(0.00%,0.00%),0us(0.00%,0.00%),0us(0.00%,0.00%),0us(0.00%,0.00%),0params(0.00%,0.00%),"
      "0float_ops(0.00%,0.00%),0|3\n\ninput_type:0:1\t(run*0|defined*1)\texec_time:0us\n"
      "input_type:0:2x2x6x12\t(run*0|defined*1)\texec_time:0us\n"
      "input_type:0:3x3x3x6\t(run*0|defined*1)\texec_time:0us\n\n";
  EXPECT_EQ(expected, WithoutSpaces(Show(model_, "op", o).text));
}

}  // namespace
}  // namespace tbprof::tfprof_test
