// A PyTorch (Kineto) trace's event details show the args the trace itself
// wrote (External id, Input Dims, Input type, correlation …), not the
// TensorFlow stats the analyses read: no `tf_op` naming the launching op and
// no `is_eager`, which only TensorFlow's eager/graph split means. A TensorFlow
// profile keeps both.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "convert/tools/tool_registry.h"
#include "tests/convert/analysis/trace_viewer/trace_test_util.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
using trace_testing::Events;
using trace_testing::ParseTraceDocument;

std::vector<boost::json::object> TraceEvents(const fs::path& path) {
  if (!fs::exists(path)) ADD_FAILURE() << "required: missing " << path;
  StatusOr<ToolOutput> out = FindProfileTool("trace_viewer")->run(test_files::OneHostInput(path.string()));
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return {};
  return Events(ParseTraceDocument(out->body));
}

std::string ArgString(const boost::json::object& e, const char* key) {
  if (!e.contains("args")) return "";
  const auto& args = e.at("args").as_object();
  return args.contains(key) && args.at(key).is_string() ? std::string(args.at(key).as_string()) : "";
}

bool HasArg(const boost::json::object& e, const char* key) {
  return e.contains("args") && e.at("args").as_object().contains(key);
}

TEST(TracePyTorchArgs, EventDetailsShowTheTracesOwnArgs) {
  const auto events = TraceEvents(fs::path(TBPROF_TESTDATA) / "kineto_nvidia" / "h100_bert_small.pt.trace.json.gz");
  ASSERT_FALSE(events.empty());
  int ops = 0, kernels = 0, grouped = 0;
  for (const auto& e : events) {
    EXPECT_FALSE(HasArg(e, "tf_op")) << boost::json::serialize(e);
    EXPECT_FALSE(HasArg(e, "is_eager")) << boost::json::serialize(e);
    grouped += HasArg(e, "group_id");
    const std::string category = ArgString(e, "kineto_category");
    if (category == "cpu_op") {
      ++ops;
      EXPECT_TRUE(HasArg(e, "External id")) << boost::json::serialize(e);
    }
    if (category == "kernel") {
      ++kernels;
      // The kernel names its op as the trace does: by the op's External id.
      EXPECT_TRUE(HasArg(e, "External id")) << boost::json::serialize(e);
      EXPECT_TRUE(HasArg(e, "correlation_id") || HasArg(e, "correlation")) << boost::json::serialize(e);
    }
  }
  EXPECT_EQ(ops, 479);
  EXPECT_EQ(kernels, 60);
  // The step grouping stays: it is what the Steps line and the step pages use.
  EXPECT_GT(grouped, 0);
  // An op's inputs as the trace recorded them.
  bool dims = false;
  for (const auto& e : events) dims |= e.at("name") == "aten::embedding" && HasArg(e, "Input Dims") && HasArg(e, "Input type");
  EXPECT_TRUE(dims);
}

TEST(TracePyTorchArgs, TensorFlowProfileKeepsTfOpAndIsEager) {
  const auto files = test_files::RealXPlaneFiles();
  ASSERT_FALSE(files.empty());
  bool tf_op = false, is_eager = false;
  for (const std::string& path : files) {
    for (const auto& e : TraceEvents(path)) {
      tf_op |= HasArg(e, "tf_op");
      is_eager |= HasArg(e, "is_eager");
    }
    if (tf_op && is_eager) break;
  }
  EXPECT_TRUE(tf_op);
  EXPECT_TRUE(is_eager);
}

}  // namespace
}  // namespace tbprof
