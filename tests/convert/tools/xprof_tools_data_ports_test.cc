// xprof's xplane_to_tools_data_test.cc scenarios, as known-answer tests of
// our tool entry points: the streaming trace viewer's search with and without
// search_metadata (TraceViewerSearchMetadataOption), and how trace_viewer@
// answers format=pb (xprof's delta-series protobuf, which tbprof does not
// write: a 400 naming the formats it does).
#include <gtest/gtest.h>

#include <string>

#include "convert/tools/tool_registry.h"
#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

// xprof's CreateTestXSpace: one TraceContext event on the host plane with one
// stat, whose metadata is named "MetadataWithFoo" (value 123).
std::string TraceContextSpacePath() {
  static const std::string path = [] {
    tensorflow::profiler::XSpace space;
    XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
    XLineBuilder line = host.AddLine(1, "Test Line");
    line.AddEvent("TraceContext", 1'000'000'000, 100'000'000).Int("MetadataWithFoo", 123);
    return ops_test::WriteSpace(space, "xprof_tools_data_trace_context");
  }();
  return path;
}

StatusOr<ToolOutput> StreamingTrace(const ToolParams& params) {
  ToolInput in;
  in.hosts = {"test_host"};
  in.profile_paths = {TraceContextSpacePath()};
  in.params = params;
  return FindProfileTool("trace_viewer@")->run(in);
}

TEST(XprofToolsDataPorts, TraceViewerSearchMetadataOption) {
  ToolParams options = {{"search_prefix", "TraceContext"}, {"search_metadata", "true"}, {"resolution", "0"},
                        {"start_time_ms", "0.0"},          {"end_time_ms", "0.0"},       {"duration_ms", "0.0"}};
  auto with_metadata = StreamingTrace(options);
  ASSERT_TRUE(with_metadata.ok()) << with_metadata.status().message();
  EXPECT_NE(with_metadata->body.find("TraceContext"), std::string::npos);
  EXPECT_NE(with_metadata->body.find("MetadataWithFoo"), std::string::npos) << with_metadata->body;

  // search_metadata=false still finds the event, but returns it without its metadata.
  options["search_metadata"] = "false";
  auto without_metadata = StreamingTrace(options);
  ASSERT_TRUE(without_metadata.ok()) << without_metadata.status().message();
  EXPECT_NE(without_metadata->body.find("\"name\":\"TraceContext"), std::string::npos) << without_metadata->body;
  EXPECT_EQ(without_metadata->body.find("MetadataWithFoo"), std::string::npos) << without_metadata->body;
}

TEST(XprofToolsDataPorts, TraceViewerFormatPbIsRefusedNamingTheFormats) {
  for (const char* tool : {"trace_viewer@", "trace_viewer"}) {
    ToolInput in;
    in.hosts = {"test_host"};
    in.profile_paths = {TraceContextSpacePath()};
    in.params = {{"format", "pb"}};
    auto out = FindProfileTool(tool)->run(in);
    ASSERT_FALSE(out.ok()) << tool;
    EXPECT_EQ(out.status().code(), ErrorCode::kInvalidArgument) << tool;  // a 400, the request's fault
    EXPECT_NE(out.status().message().find("supported formats: json"), std::string::npos) << out.status().message();
  }
}

}  // namespace
}  // namespace tbprof
