// op_profile's steps on their own, on a hand-made op table: the tree's shape
// and times are counted by hand from the ops below.
#include "convert/analysis/hlo/op_profile_tree.h"

#include <gtest/gtest.h>

namespace tbprof {
namespace {

using op_profile::Node;

HloOpMetrics Op(std::string name, std::string category, uint64_t time_ps, std::string provenance = "") {
  HloOpMetrics m;
  m.name = std::move(name);
  m.category = std::move(category);
  m.provenance = std::move(provenance);
  m.occurrences = 1;
  m.time_ps = m.self_time_ps = time_ps;
  return m;
}

HloOpDb Table() {
  HloOpDb db;
  db.ops.push_back(Op("fusion.1", "loop fusion", 100, "model/dense/MatMul:MatMul"));
  db.ops.push_back(Op("fusion.2", "loop fusion", 300, "model/dense/Relu:Relu"));
  db.ops.push_back(Op("copy.3", "data formatting", 50, "model/copy:Identity"));
  HloOpMetrics idle = Op("IDLE", "IDLE", 25);
  idle.is_idle = true;
  idle.occurrences = 0;
  db.ops.push_back(idle);
  return db;
}

TEST(OpProfileTree, ByCategoryGroupsOpsUnderTheirCategory) {
  const HloOpDb db = Table();
  Node root = op_profile::BuildTree(db, OpProfileGrouping::kByCategory, /*exclude_idle=*/false);
  EXPECT_EQ(root.name, "by_category");
  EXPECT_EQ(root.totals.time_ps, 475u);  // 100 + 300 + 50 + IDLE's 25
  // Two categories and IDLE, in the order the ops come.
  ASSERT_EQ(root.children.size(), 3u);
  EXPECT_EQ(root.children[0]->name, "loop fusion");
  EXPECT_EQ(root.children[0]->totals.time_ps, 400u);
  EXPECT_EQ(root.children[0]->children.size(), 2u);  // one deduplication group per op
  EXPECT_EQ(root.children[2]->name, "IDLE");
}

TEST(OpProfileTree, ExcludingIdleLeavesItOutOfTheTotal) {
  const HloOpDb db = Table();
  Node root = op_profile::BuildTree(db, OpProfileGrouping::kByCategory, /*exclude_idle=*/true);
  EXPECT_EQ(root.totals.time_ps, 450u);
  EXPECT_EQ(root.children.size(), 2u);
}

TEST(OpProfileTree, ByProvenanceFollowsTheFrameworkOpPath) {
  const HloOpDb db = Table();
  Node root = op_profile::BuildTree(db, OpProfileGrouping::kByProvenance, /*exclude_idle=*/true);
  // root -> program "main" -> "model" -> "dense" -> …
  ASSERT_EQ(root.children.size(), 1u);
  const Node& program = *root.children[0];
  EXPECT_EQ(program.name, "main");
  ASSERT_EQ(program.children.size(), 1u);
  const Node& model = *program.children[0];
  EXPECT_EQ(model.name, "model");
  EXPECT_EQ(model.totals.time_ps, 450u);
  EXPECT_EQ(model.children.size(), 2u);  // "dense" and "copy"
}

TEST(OpProfileTree, SortAndPruneSortsByTimeAndKeepsTheCount) {
  const HloOpDb db = Table();
  Node root = op_profile::BuildTree(db, OpProfileGrouping::kByCategory, /*exclude_idle=*/false);
  op_profile::SortAndPrune(root, /*level=*/0, /*k=*/2);
  EXPECT_EQ(root.num_children, 3);
  ASSERT_EQ(root.children.size(), 2u);
  EXPECT_EQ(root.children[0]->name, "loop fusion");      // 400 ps
  EXPECT_EQ(root.children[1]->name, "data formatting");  // 50 ps; IDLE's 25 ps cut
  // Below the root's level the cut applies too: the fusions' group sorted, 300 ps first.
  EXPECT_EQ(root.children[0]->children[0]->name, "fusion.2");
}

TEST(OpProfileTree, WriteTreeWritesTheRootsNameAndChildren) {
  const HloOpDb db = Table();
  Node root = op_profile::BuildTree(db, OpProfileGrouping::kByCategory, /*exclude_idle=*/true);
  op_profile::SortAndPrune(root, 1, 100);
  std::string out;
  op_profile::WriteTree(root, db.peaks, root.totals.time_ps, out);
  EXPECT_EQ(out.rfind("{\"name\":\"by_category\"", 0), 0u) << out;
  EXPECT_NE(out.find("\"numChildren\":2}"), std::string::npos) << out;
  EXPECT_NE(out.find("\"rawTime\":450"), std::string::npos) << out;
}

}  // namespace
}  // namespace tbprof
