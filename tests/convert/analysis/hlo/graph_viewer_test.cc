// graph_viewer on a hand-built chain with a fusion: which nodes a width
// keeps, what is counted as hidden, how fusions expand, the DOT and JSON
// forms; and the neighbourhood of known nodes of the real TPU profile.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "convert/analysis/hlo/graph_viewer.h"
#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/xplane/xspace_reader.h"

namespace tbprof {
namespace {

namespace json = boost::json;

xla::ShapeProto F32(int64_t n) {
  xla::ShapeProto s;
  s.set_element_type(xla::F32);
  s.add_dimensions(n);
  return s;
}

// main: p0 -> a -> b -> c -> fusion.1(c, p0) -> e; fused_computation: q0, q1 -> add -> mul (root).
std::shared_ptr<const HloProgram> ChainProgram() {
  xla::HloProto proto;
  auto* m = proto.mutable_hlo_module();
  m->set_name("jit_chain");
  int64_t id = 1;
  auto add = [&](xla::HloComputationProto* c, const std::string& name, const std::string& opcode,
                 std::vector<int64_t> operands) {
    auto* i = c->add_instructions();
    i->set_name(name);
    i->set_opcode(opcode);
    *i->mutable_shape() = F32(8);
    i->set_id(id++);
    for (int64_t o : operands) i->add_operand_ids(o);
    c->set_root_id(i->id());
    return i;
  };
  auto* fused = m->add_computations();
  fused->set_name("fused_computation");
  fused->set_id(2);
  auto* q0 = add(fused, "q0", "parameter", {});
  auto* q1 = add(fused, "q1", "parameter", {});
  q1->set_parameter_number(1);
  auto* fadd = add(fused, "add.f", "add", {q0->id(), q1->id()});
  add(fused, "mul.f", "multiply", {fadd->id(), q1->id()});
  auto* main = m->add_computations();
  main->set_name("main");
  main->set_id(1);
  auto* p0 = add(main, "p0", "parameter", {});
  auto* a = add(main, "a", "exponential", {p0->id()});
  a->mutable_metadata()->set_op_name("jit(f)/exp");
  a->mutable_metadata()->set_source_file("f.py");
  a->mutable_metadata()->set_source_line(3);
  auto* b = add(main, "b", "dot", {a->id(), a->id()});
  auto* c = add(main, "c", "reduce", {b->id()});
  auto* f = add(main, "fusion.1", "fusion", {c->id(), p0->id()});
  f->set_fusion_kind("kLoop");
  f->add_called_computation_ids(2);
  add(main, "e", "all-reduce", {f->id()});
  m->set_entry_computation_id(1);
  auto p = HloProgram::Parse(7, "jit_chain", proto.SerializeAsString());
  EXPECT_TRUE(p.ok());
  return *p;
}

std::vector<std::string> TopNames(const HloGraph& g) {
  std::vector<std::string> names;
  for (const auto& n : g.nodes) {
    if (n.parent.empty()) names.push_back(n.name);
  }
  return names;
}

const HloGraphNode& Node(const HloGraph& g, const std::string& name) {
  for (const auto& n : g.nodes) {
    if (n.name == name) return n;
  }
  static HloGraphNode none;
  ADD_FAILURE() << "no node " << name;
  return none;
}

TEST(GraphViewer, WidthKeepsNodesWithinHops) {
  auto p = ChainProgram();
  GraphViewerOptions o;
  o.node_name = "b";
  o.graph_width = 1;
  o.merge_fusion = true;
  auto g = BuildHloGraph(*p, o);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(TopNames(*g), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(Node(*g, "b").center);
  EXPECT_EQ(Node(*g, "a").hops, 1);
  EXPECT_EQ(Node(*g, "a").hidden_operands, 1);  // p0
  EXPECT_EQ(Node(*g, "c").hidden_users, 1);     // fusion.1
  EXPECT_EQ(Node(*g, "b").category, "contraction");
  EXPECT_EQ(Node(*g, "c").category, "reduction");
  // b uses a twice: two edges, operand 0 and 1.
  int a_to_b = 0;
  for (const auto& e : g->edges) a_to_b += e.from == "a" && e.to == "b";
  EXPECT_EQ(a_to_b, 2);

  o.graph_width = 2;
  g = BuildHloGraph(*p, o);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(TopNames(*g), (std::vector<std::string>{"p0", "a", "b", "c", "fusion.1"}));
  EXPECT_EQ(Node(*g, "p0").hidden_users, 0);  // its users a and fusion.1 are both drawn
  EXPECT_EQ(Node(*g, "fusion.1").hidden_users, 1);  // e
}

TEST(GraphViewer, FusionsCarryTheirFusedComputationUnlessMerged) {
  auto p = ChainProgram();
  GraphViewerOptions o;
  o.node_name = "fusion.1";
  o.graph_width = 1;
  auto g = BuildHloGraph(*p, o);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(TopNames(*g), (std::vector<std::string>{"p0", "c", "fusion.1", "e"}));
  EXPECT_EQ(Node(*g, "mul.f").parent, "fusion.1");
  EXPECT_TRUE(Node(*g, "mul.f").fused_root);
  EXPECT_EQ(Node(*g, "q1").parameter_number, 1);
  EXPECT_EQ(Node(*g, "e").category, "collective");
  std::string dot = HloGraphToDot(*g, false);
  EXPECT_NE(dot.find("subgraph \"cluster_fusion.1\""), std::string::npos);
  EXPECT_NE(dot.find("\"p0\" -> \"q1\""), std::string::npos);     // operand 1 enters at parameter 1
  EXPECT_NE(dot.find("\"c\" -> \"q0\""), std::string::npos);      // operand 0 at parameter 0
  EXPECT_NE(dot.find("\"mul.f\" -> \"e\""), std::string::npos);   // the value leaves from the root
  EXPECT_NE(dot.find("\"add.f\" -> \"mul.f\""), std::string::npos);

  o.merge_fusion = true;
  g = BuildHloGraph(*p, o);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->nodes.size(), 4u);
  dot = HloGraphToDot(*g, false);
  EXPECT_EQ(dot.find("cluster_"), std::string::npos);
  EXPECT_NE(dot.find("\"fusion.1\" -> \"e\""), std::string::npos);
}

TEST(GraphViewer, ComputationAndMetadataAndErrors) {
  auto p = ChainProgram();
  GraphViewerOptions o;
  o.node_name = "fused_computation";
  auto g = BuildHloGraph(*p, o);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(TopNames(*g), (std::vector<std::string>{"q0", "q1", "add.f", "mul.f"}));
  o.node_name = "a";
  o.graph_width = 0;
  g = BuildHloGraph(*p, o);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(TopNames(*g), (std::vector<std::string>{"a"}));
  EXPECT_NE(HloGraphToDot(*g, true).find("f.py:3"), std::string::npos);
  EXPECT_EQ(HloGraphToDot(*g, false).find("f.py:3"), std::string::npos);
  json::value j = json::parse(HloGraphToJson(*g));
  EXPECT_EQ(j.at("center").as_string(), "a");
  EXPECT_EQ(j.at("nodes").as_array()[0].at("opName").as_string(), "jit(f)/exp");
  EXPECT_EQ(j.at("nodes").as_array()[0].at("hiddenOperands").to_number<int>(), 1);
  o.node_name = "nope";
  EXPECT_FALSE(BuildHloGraph(*p, o).ok());
  std::string text = HloModuleText(*p, false);
  EXPECT_NE(text.find("ENTRY %main {"), std::string::npos);
  EXPECT_NE(text.find("ROOT %e = f32[8] all-reduce(f32[8] %fusion.1)"), std::string::npos);
}

// The TPU profile: every instruction's neighbourhood holds the instruction
// itself and all of its operands at width 1; jit__psum's bitcast sits between its parameter and the all-reduce.
TEST(GraphViewer, RealTpuNeighbourhoods) {
  std::string path = std::string(TBPROF_TESTDATA) + "/xplane/jax_tpu_v6e/tpu_inference_2.xplane.pb";
  ASSERT_TRUE(std::filesystem::exists(path)) << "testdata missing: " << path;
  auto model = LoadXSpaceFile(path);
  ASSERT_TRUE(model.ok());
  HloPrograms programs = LoadHloPrograms(**model);
  ASSERT_FALSE(programs.empty());
  int checked = 0;
  for (const auto& [id, p] : programs.by_id) {
    for (const auto& comp : p->module().computations()) {
      for (const auto& inst : comp.instructions()) {
        if (checked >= 2000) break;
        GraphViewerOptions o;
        o.node_name = inst.name();
        o.graph_width = 1;
        o.merge_fusion = true;
        auto g = BuildHloGraph(*p, o);
        ASSERT_TRUE(g.ok()) << g.status().message();
        std::vector<std::string> names = TopNames(*g);
        auto has = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
        EXPECT_TRUE(has(inst.name()));
        for (int i = 0; i < inst.operand_ids_size(); ++i) {
          if (const HloInstruction* op = p->Operand(inst, i)) {
            EXPECT_TRUE(has(op->name())) << op->name();
          }
        }
        EXPECT_EQ(Node(*g, inst.name()).hidden_operands, 0);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0);
  // jit__psum's entry: param -> bitcast -> all-reduce (to_apply region_0.3.clone).
  for (const auto& [id, p] : programs.by_id) {
    if (p->module().name() != "jit__psum") continue;
    GraphViewerOptions o;
    o.node_name = "bitcast";
    o.graph_width = 1;
    auto g = BuildHloGraph(*p, o);
    ASSERT_TRUE(g.ok());
    EXPECT_EQ(TopNames(*g), (std::vector<std::string>{"param", "bitcast", "all-reduce"}));
    EXPECT_EQ(Node(*g, "all-reduce").category, "collective");
  }
}

}  // namespace
}  // namespace tbprof
