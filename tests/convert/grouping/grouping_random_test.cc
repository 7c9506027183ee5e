// Grouping and the tools built on it over random XSpaces (fixed seeds): host,
// sub-process, custom and GPU planes whose events nest at random and carry
// the stats grouping reads (roots, links, processes, launches, TensorFlow
// loop and tf.data ids, eager marks, thread pool markers) with random values.
// Whatever the file says, grouping gives every event a group that has a name
// or none, and every tool answers with JSON (or a clear error), never a crash.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "convert/tools/tool_registry.h"
#include "convert/grouping/group_events.h"
#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

using tensorflow::profiler::XSpace;

XSpace RandomSpace(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  static const char* const kNames[] = {"train",
                                       "FunctionRun",
                                       "ExecutorState::Process",
                                       "EagerKernelExecute",
                                       "InstantiatedCapturedFunction::Run",
                                       "ThreadpoolListener::StartRegion",
                                       "ThreadpoolListener::StopRegion",
                                       "ThreadpoolListener::Record",
                                       "TraceContext",
                                       "IteratorGetNextOp::DoCompute",
                                       "a/b:MatMul",
                                       "Iterator::Prefetch",
                                       "kernel"};
  static const char* const kPlanes[] = {"/host:CPU", "/host:CPU [7]", "/device:GPU:0", "/device:CUSTOM:x"};
  XSpace space;
  const int planes = 1 + pick(4);
  for (int pi = 0; pi < planes; ++pi) {
    XPlaneBuilder plane = AddPlane(space, kPlanes[pi], pi);
    if (pick(3) == 0) plane.Int("process_id", pick(3));
    const int lines = 1 + pick(3);
    for (int l = 0; l < lines; ++l) {
      XLineBuilder line = plane.AddLine(l, "line" + std::to_string(l));
      int64_t at = pick(50);
      const int events = pick(30);
      for (int e = 0; e < events; ++e) {
        // Mostly forward in time, sometimes nested in or overlapping the last one.
        at += pick(4) == 0 ? -pick(20) : pick(40);
        XEventBuilder ev = line.AddEvent(kNames[pick(13)], std::max<int64_t>(at, 0), pick(4) == 0 ? 0 : pick(200));
        const int stats = pick(4);
        for (int s = 0; s < stats; ++s) {
          switch (pick(12)) {
            case 0: ev.Int("_r", pick(3)); break;
            case 1: ev.Int("_pt", pick(16)).Int("_p", pick(4)); break;
            case 2: ev.Int("_ct", pick(16)).Int("_c", pick(4)); break;
            case 3: ev.Int("_pid", pick(3)); break;
            case 4: ev.Int("correlation_id", pick(10)); break;
            case 5: ev.Int("id", pick(3)); break;
            case 6: ev.Int("iter_num", pick(3)); break;
            case 7: ev.Int("step_num", pick(5)); break;
            case 8: ev.Int("is_func", pick(2)); break;
            case 9: ev.Int("_a", pick(2)); break;
            case 10: ev.Str("graph_type", pick(2) ? "train" : "eval"); break;
            default: ev.Str("kernel_details", "regs:1"); break;
          }
        }
      }
    }
  }
  return space;
}

TEST(GroupingRandomSpaces, EveryGroupHasANameAndEveryToolAnswers) {
  size_t grouped_events = 0, spaces_with_groups = 0;
  for (uint32_t seed = 1; seed <= 150; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const XSpace space = RandomSpace(seed);
    auto m = ops_test::ToModel(space);
    ASSERT_NE(m, nullptr);
    const EventGroups g = GroupEvents(*m);
    ASSERT_EQ(g.group_of.size(), m->planes.size());
    for (size_t p = 0; p < g.group_of.size(); ++p) {
      if (g.group_of[p].empty()) continue;
      ASSERT_EQ(g.group_of[p].size(), m->planes[p].events.size());
      for (int32_t group : g.group_of[p]) {
        if (group == kNoGroup) continue;
        EXPECT_TRUE(g.group_names.count(group)) << "group " << group;
        ++grouped_events;
      }
    }
    spaces_with_groups += !g.group_names.empty();
    // Every fifth space through the tools that read the groups.
    if (seed % 5 != 0) continue;
    const std::string path = ops_test::WriteSpace(space, "random_" + std::to_string(seed));
    for (const char* tool : {"trace_viewer", "overview_page", "input_pipeline_analyzer", "framework_op_stats"}) {
      ToolInput in;
      in.profile_paths = {path};
      auto out = FindProfileTool(tool)->run(in);
      if (!out.ok()) {
        EXPECT_FALSE(out.status().message().empty()) << tool;
        continue;
      }
      boost::system::error_code ec;
      boost::json::parse(out->body, ec);
      EXPECT_FALSE(ec) << tool << ": " << ec.message();
    }
  }
  // The spaces do exercise grouping: most have steps (141 of these 150 when
  // written).
  EXPECT_GE(spaces_with_groups, 100u);
  EXPECT_GE(grouped_events, 1000u);
}

}  // namespace
}  // namespace tbprof
