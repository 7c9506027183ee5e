// trace_viewer@?critical_path=STEP: the step's critical path as flow events
// bound to the events on the path, on the hand-built trace whose path
// tests/convert/analysis/trace_analysis/critical_path_trace.h works out.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "convert/kineto/kineto_reader.h"
#include "convert/tools/trace_viewer_tools.h"
#include "tests/convert/analysis/trace_analysis/critical_path_trace.h"
#include "tests/convert/analysis/trace_viewer/trace_test_util.h"

namespace tbprof {
namespace {

using trace_testing::Num;

std::shared_ptr<const TraceIndex> Index() {
  auto model = ParseKinetoTrace(testing_kineto::CriticalPathTrace(), "rank0.pt.trace.json");
  EXPECT_TRUE(model.ok());
  std::shared_ptr<const XSpaceModel> shared(std::move(*model));
  return TraceIndex::Build(shared);
}

// The innermost X event of the same thread whose span holds `flow`'s time: the
// slice the viewer binds the flow's end to.
std::string BoundName(const std::vector<boost::json::object>& events, const boost::json::object& flow) {
  const boost::json::object* best = nullptr;
  for (const boost::json::object& e : events) {
    if (e.at("ph") != "X" || e.at("pid") != flow.at("pid") || e.at("tid") != flow.at("tid")) continue;
    const double ts = Num(e, "ts"), end = ts + Num(e, "dur");
    if (ts <= Num(flow, "ts") && Num(flow, "ts") <= end && (best == nullptr || ts >= Num(*best, "ts"))) best = &e;
  }
  return best == nullptr ? "" : std::string(best->at("name").as_string());
}

TEST(TraceViewerCriticalPath, FlowsBindToThePathsEventsInOrder) {
  auto json = StreamingTraceJson({StreamingTraceHost{Index(), "rank0"}}, {{"critical_path", "1"}});
  ASSERT_TRUE(json.ok()) << json.status().message();
  boost::json::object doc = trace_testing::ParseTraceDocument(*json);
  const std::vector<boost::json::object> events = trace_testing::Events(doc);
  std::map<int64_t, std::pair<std::string, std::string>> flows;  // id → (from, to)
  for (const boost::json::object& e : events) {
    if (e.at("ph") != "s" && e.at("ph") != "f") continue;
    EXPECT_EQ(e.at("cat"), "critical_path");
    auto& [from, to] = flows[e.at("id").to_number<int64_t>()];
    (e.at("ph") == "s" ? from : to) = BoundName(events, e);
  }
  const std::vector<std::string> path = {"ProfilerStep#1", "aten::mm", "cudaLaunchKernel", "K1",
                                         "K2",             "cudaDeviceSynchronize", "ProfilerStep#1"};
  ASSERT_EQ(flows.size(), path.size() - 1);
  size_t i = 0;
  // The viewer shows a step by its step name ("ProfilerStep#1 1"): compare the names' starts.
  for (const auto& [id, ends] : flows) {
    EXPECT_TRUE(ends.first.starts_with(path[i])) << "flow " << i << " from " << ends.first;
    EXPECT_TRUE(ends.second.starts_with(path[i + 1])) << "flow " << i << " to " << ends.second;
    ++i;
  }
  const auto& summary = doc.at("criticalPath").at("hosts").as_array().at(0).as_object();
  EXPECT_EQ(summary.at("step").to_number<int64_t>(), 1);
  EXPECT_EQ(Num(summary, "length_us"), 100.0);
  EXPECT_EQ(summary.at("flows").to_number<int64_t>(), 6);
}

TEST(TraceViewerCriticalPath, NoFlowsUnlessAskedAndClearErrors) {
  auto plain = StreamingTraceJson({StreamingTraceHost{Index(), "rank0"}}, {});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->find("critical_path"), std::string::npos);
  // The default step is the first.
  auto first = StreamingTraceJson({StreamingTraceHost{Index(), "rank0"}}, {{"critical_path", ""}});
  ASSERT_TRUE(first.ok());
  EXPECT_NE(first->find(R"("criticalPath":{"hosts":[{"step":1,)"), std::string::npos);
  auto bad = StreamingTraceJson({StreamingTraceHost{Index(), "rank0"}}, {{"critical_path", "one"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "trace viewer: critical_path='one' is not a step number");
  auto missing = StreamingTraceJson({StreamingTraceHost{Index(), "rank0"}}, {{"critical_path", "9"}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.status().message().find("no step 9 in this profile; its steps: 1, 2"), std::string::npos);
}

}  // namespace
}  // namespace tbprof
