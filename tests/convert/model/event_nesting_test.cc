// One nesting rule serves step grouping and the tf.data event forest: the
// same line gives the same parent/child pairs to NestLineEvents, to
// EventForest's children and to GroupEvents' groups (worked out by hand).
#include <gtest/gtest.h>

#include "convert/grouping/event_forest.h"
#include "convert/model/event_nesting.h"
#include "convert/grouping/group_events.h"
#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

using tensorflow::profiler::XSpace;

// Events in file order (ps): 0 A[0,100) root, 1 B[10,20), 2 C[15,18),
// 3 D[30,120) (outlives A: no nesting), 4 E[40,50) async, 5 F[45,46).
// Nesting: A>B, B>C, D>F; E neither nests nor contains, so F is D's child.
XSpace NestingSpace() {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU");
  XLineBuilder t = host.AddLine(1, "main");
  t.AddEvent("A", 0, 100).Int("_r", 1);
  t.AddEvent("B", 10, 10);
  t.AddEvent("C", 15, 3);
  t.AddEvent("D", 30, 90);
  t.AddEvent("E", 40, 10).Int("_a", 1);
  t.AddEvent("F", 45, 1);
  return space;
}

TEST(EventNesting, OneRuleForBothForests) {
  auto model = ops_test::ToModel(NestingSpace());
  const XPlaneModel& p = model->planes[0];
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  NestLineEvents(p, SortedLineEvents(p, p.lines[0]), model->Find("_a"),
                 [&](uint32_t parent, uint32_t child) { pairs.emplace_back(parent, child); });
  std::vector<std::pair<uint32_t, uint32_t>> expected = {{0, 1}, {1, 2}, {3, 5}};
  EXPECT_EQ(pairs, expected);

  // The tf.data forest: the same children.
  EventForest forest(*model, p);
  auto children = [&](uint32_t e) {
    auto c = forest.Children(e);
    return std::vector<uint32_t>(c.begin(), c.end());
  };
  EXPECT_EQ(children(0), (std::vector<uint32_t>{1}));
  EXPECT_EQ(children(1), (std::vector<uint32_t>{2}));
  EXPECT_EQ(children(3), (std::vector<uint32_t>{5}));
  EXPECT_TRUE(children(4).empty());

  // Step grouping: the root A's group reaches B and C only.
  EventGroups g = GroupEvents(*model);
  std::vector<int32_t> expected_groups = {0, 0, 0, kNoGroup, kNoGroup, kNoGroup};
  EXPECT_EQ(g.group_of[0], expected_groups);
}

}  // namespace
}  // namespace tbprof
