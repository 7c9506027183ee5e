// memory_viewer on hand-built buffer assignments whose heap, peak and live
// buffers are worked out by hand in the comments (reuse of freed space,
// aliasing through SHARE_WITH, a second memory space, small buffers), and on
// the real JAX TPU and ROCm profiles (internal consistency).
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>

#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/analysis/hlo/memory_viewer.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/hlo.pb.h"

namespace tbprof {
namespace {

namespace json = boost::json;
constexpr int64_t kKiB = 1024, kMiB = 1024 * 1024;

xla::ShapeProto F32(int64_t n) {
  xla::ShapeProto s;
  s.set_element_type(xla::F32);
  s.add_dimensions(n);
  s.mutable_layout()->add_minor_to_major(0);
  return s;
}

struct AssignmentBuilder {
  xla::HloProto proto;
  xla::HloComputationProto* entry;
  int64_t next_id = 1;

  AssignmentBuilder() {
    proto.mutable_hlo_module()->set_name("jit_mem");
    proto.mutable_hlo_module()->set_entry_computation_name("main");
    entry = proto.mutable_hlo_module()->add_computations();
    entry->set_name("main");
  }
  // An instruction of shape f32[elements]; returns its id.
  int64_t Inst(const std::string& name, const std::string& opcode, int64_t elements, const std::string& op_name = "") {
    auto* i = entry->add_instructions();
    i->set_name(name);
    i->set_opcode(opcode);
    *i->mutable_shape() = F32(elements);
    i->set_id(next_id++);
    if (!op_name.empty()) {
      i->mutable_metadata()->set_op_name(op_name);
      i->mutable_metadata()->set_source_file("model.py");
      i->mutable_metadata()->set_source_line(static_cast<int32_t>(i->id()) * 10);
    }
    return i->id();
  }
  // An f32 instruction whose whole result, `size` bytes, is logical buffer `id`.
  void InstWithBuffer(int64_t id, const std::string& name, const std::string& opcode, int64_t size) {
    Buffer(id, Inst(name, opcode, size / 4), size);
  }
  void Buffer(int64_t id, int64_t inst, int64_t size, int64_t color = 0) {
    auto* b = proto.mutable_buffer_assignment()->add_logical_buffers();
    b->set_id(id);
    b->set_size(size);
    b->set_color(color);
    b->mutable_defined_at()->set_instruction_id(inst);
  }
  xla::BufferAllocationProto* Allocation(int64_t index, int64_t size, std::vector<int64_t> buffers, int64_t color = 0) {
    auto* a = proto.mutable_buffer_assignment()->add_buffer_allocations();
    a->set_index(index);
    a->set_size(size);
    a->set_color(color);
    for (int64_t b : buffers) {
      auto* as = a->add_assigned();
      as->set_logical_buffer_id(b);
      for (const auto& lb : proto.buffer_assignment().logical_buffers()) {
        if (lb.id() == b) as->set_size(lb.size());
      }
    }
    return a;
  }
  xla::HeapSimulatorTrace* Trace() { return proto.mutable_buffer_assignment()->add_heap_simulator_traces(); }
  static void Event(xla::HeapSimulatorTrace* t, xla::HeapSimulatorTrace::Event::Kind kind, int64_t buffer,
                    int64_t canonical = 0) {
    auto* e = t->add_events();
    e->set_kind(kind);
    e->set_buffer_id(buffer);
    e->set_share_with_canonical_id(canonical);
    e->set_instruction_name("i" + std::to_string(buffer));
  }
};

constexpr auto kAlloc = xla::HeapSimulatorTrace::Event::ALLOC;
constexpr auto kFree = xla::HeapSimulatorTrace::Event::FREE;
constexpr auto kShare = xla::HeapSimulatorTrace::Event::SHARE_WITH;

// main: p0 (parameter, 256 KiB) -> a (1 MiB) -> b (512 KiB padded, 400000 B
// unpadded) -> c (2 MiB) -> out (live-out, 256 KiB). Buffers 1..3 share the
// temporary allocation 1; c is allocated after a is freed (its space reused).
// Color 1 holds buffers 5 (64 KiB) and 6 (1 KiB, "small") in allocation 3.
AssignmentBuilder TwoSpaceModule() {
  AssignmentBuilder m;
  int64_t p0 = m.Inst("p0", "parameter", 65536, "params");
  int64_t a = m.Inst("a", "exponential", 262144, "jit(f)/exp");
  int64_t b = m.Inst("b", "negate", 100000, "jit(f)/neg");
  int64_t c = m.Inst("c", "exponential", 524288, "jit(f)/exp2");
  int64_t out = m.Inst("out", "negate", 65536, "jit(f)/out");
  int64_t v0 = m.Inst("v0", "copy", 16384);
  int64_t v1 = m.Inst("v1", "copy", 256);
  m.Buffer(0, p0, 256 * kKiB);
  m.Buffer(1, a, 1 * kMiB);
  m.Buffer(2, b, 512 * kKiB);
  m.Buffer(3, c, 2 * kMiB);
  m.Buffer(4, out, 256 * kKiB);
  m.Buffer(5, v0, 64 * kKiB, 1);
  m.Buffer(6, v1, 1 * kKiB, 1);
  m.Allocation(0, 256 * kKiB, {0})->set_is_entry_computation_parameter(true);
  m.Allocation(1, 3 * kMiB, {1, 2, 3});
  m.Allocation(2, 256 * kKiB, {4})->set_maybe_live_out(true);
  m.Allocation(3, 65 * kKiB, {5, 6}, 1);
  auto* t = m.Trace();
  AssignmentBuilder::Event(t, kAlloc, 1);
  AssignmentBuilder::Event(t, kAlloc, 2);
  AssignmentBuilder::Event(t, kFree, 1);
  AssignmentBuilder::Event(t, kAlloc, 3);
  AssignmentBuilder::Event(t, kFree, 2);
  AssignmentBuilder::Event(t, kFree, 3);
  auto* t1 = m.Trace();
  AssignmentBuilder::Event(t1, kAlloc, 5);
  AssignmentBuilder::Event(t1, kAlloc, 6);
  AssignmentBuilder::Event(t1, kFree, 5);
  AssignmentBuilder::Event(t1, kFree, 6);
  return m;
}

std::vector<double> InMib(const std::vector<int64_t>& bytes) {
  std::vector<double> out;
  for (int64_t b : bytes) out.push_back(static_cast<double>(b) / kMiB);
  return out;
}

TEST(MemoryViewer, ReuseOfFreedSpaceAndIndefiniteAllocations) {
  AssignmentBuilder m = TwoSpaceModule();
  auto r = ComputeMemoryViewer(m.proto, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Temporary heap before each event: 0, 1, 1.5, 0.5, 2.5, 2, then 0 at the end;
  // parameter + live-out add 0.5 MiB everywhere.
  EXPECT_EQ(InMib(r->heap_bytes), (std::vector<double>{0.5, 1.5, 2, 1, 3, 2.5, 0.5}));
  EXPECT_EQ(r->peak_heap_bytes, 3 * kMiB);
  EXPECT_EQ(r->peak_heap_size_position, 3);  // the event (ALLOC c) that reaches the peak
  // Unpadded at the peak: b holds 400000 bytes of data, c 2 MiB, plus the 0.5 MiB of indefinite allocations.
  EXPECT_EQ(r->peak_unpadded_heap_bytes, 400000 + 2 * kMiB + 512 * kKiB);
  EXPECT_EQ(r->unpadded_heap_bytes[2], 1 * kMiB + 400000 + 512 * kKiB);
  // Live at the peak: the parameter and the output (whole program), then b and c.
  ASSERT_EQ(r->max_heap.size(), 4u);
  EXPECT_EQ(r->max_heap[0].instruction_name, "p0");
  EXPECT_EQ(r->max_heap[0].group_name, "Parameter");
  EXPECT_EQ(r->max_heap[1].instruction_name, "out");
  EXPECT_EQ(r->max_heap[1].group_name, "Output");
  EXPECT_EQ(r->max_heap[2].instruction_name, "b");
  EXPECT_EQ(r->max_heap[3].instruction_name, "c");
  EXPECT_EQ(r->max_heap[3].group_name, "Temporary");
  EXPECT_EQ(r->max_heap[3].op_code, "exponential");
  EXPECT_EQ(r->max_heap[3].tf_op_name, "jit(f)/exp2");
  EXPECT_EQ(r->max_heap[3].source_file, "model.py");
  EXPECT_EQ(r->max_heap[3].source_line, 40);
  EXPECT_EQ(r->max_heap[3].shape_string, "f32[524288]{0}");
  EXPECT_EQ(r->max_heap[3].label, "c: f32[524288]{0} # jit(f)/exp2");
  int64_t sum = 0;
  for (const auto& o : r->max_heap) sum += o.size_bytes;
  EXPECT_EQ(sum, r->peak_heap_bytes);
  // By size: c, b, then p0 and out (equal sizes keep program order).
  EXPECT_EQ(r->by_size_to_max_heap, (std::vector<int32_t>{3, 2, 0, 1}));
  EXPECT_EQ(r->max_heap_to_by_size, (std::vector<int32_t>{2, 3, 1, 0}));
  // Spans: a from its ALLOC (0) to its FREE (2); b 1..4; c 3..5.
  EXPECT_EQ(r->logical_buffer_spans.at(1), std::make_pair(0, 2));
  EXPECT_EQ(r->logical_buffer_spans.at(2), std::make_pair(1, 4));
  EXPECT_EQ(r->logical_buffer_spans.at(3), std::make_pair(3, 5));
  EXPECT_EQ(r->entry_computation_parameters_bytes, 256 * kKiB);
  EXPECT_EQ(r->maybe_live_out_bytes, 256 * kKiB);
  EXPECT_EQ(r->indefinite_buffer_allocation_bytes, 512 * kKiB);
  EXPECT_EQ(r->total_buffer_allocation_bytes, 3 * kMiB + 512 * kKiB);
  EXPECT_EQ(r->non_reusable_bytes, 0);
  ASSERT_EQ(r->indefinite_lifetimes.size(), 2u);
  EXPECT_EQ(r->indefinite_lifetimes[0].attributes,
            (std::vector<std::string>{"entry computation parameter", "reusable"}));
  EXPECT_EQ(r->indefinite_lifetimes[1].attributes, (std::vector<std::string>{"may-be live out", "reusable"}));
  EXPECT_EQ(r->indefinite_lifetimes[1].common_shape, "f32[65536]{0}");
}

TEST(MemoryViewer, SecondMemorySpaceAndSmallBuffers) {
  AssignmentBuilder m = TwoSpaceModule();
  EXPECT_EQ(MemorySpacesOf(m.proto), (std::vector<int64_t>{0, 1}));
  MemoryViewerOptions options;
  options.memory_color = 1;
  auto r = ComputeMemoryViewer(m.proto, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Color 1 has no indefinite allocation: 0, 64 KiB, 65 KiB, 1 KiB, 0.
  EXPECT_EQ(r->heap_bytes, (std::vector<int64_t>{0, 64 * kKiB, 65 * kKiB, 1 * kKiB, 0}));
  EXPECT_EQ(r->peak_heap_bytes, 65 * kKiB);
  ASSERT_EQ(r->max_heap.size(), 2u);
  EXPECT_EQ(r->max_heap[0].instruction_name, "v0");
  EXPECT_EQ(r->max_heap[1].label, "small (<16384 bytes)");
  EXPECT_EQ(r->max_heap[1].logical_buffer_id, -1);
  EXPECT_EQ(r->max_heap[1].size_bytes, 1 * kKiB);
  EXPECT_EQ(r->total_buffer_allocation_bytes, 65 * kKiB);
  // A color without buffers: no trace, nothing live.
  options.memory_color = 5;
  auto none = ComputeMemoryViewer(m.proto, options);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->heap_bytes.empty());
  EXPECT_EQ(none->peak_heap_bytes, 0);
}

TEST(MemoryViewer, AliasedBuffersShareTheirCanonicalBytes) {
  AssignmentBuilder m;
  m.InstWithBuffer(1, "a", "exponential", 1 * kMiB);
  m.InstWithBuffer(2, "b", "dynamic-update-slice", 1 * kMiB);
  m.InstWithBuffer(3, "c", "exponential", 2 * kMiB);
  m.Allocation(0, 3 * kMiB, {1, 2, 3});
  auto* t = m.Trace();
  AssignmentBuilder::Event(t, kAlloc, 1);
  AssignmentBuilder::Event(t, kShare, 2, 1);  // b updates a in place
  AssignmentBuilder::Event(t, kFree, 1);      // a's bytes stay: b still holds them
  AssignmentBuilder::Event(t, kAlloc, 3);
  AssignmentBuilder::Event(t, kFree, 2);      // last reference: a's 1 MiB goes
  AssignmentBuilder::Event(t, kFree, 3);
  auto r = ComputeMemoryViewer(m.proto, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(InMib(r->heap_bytes), (std::vector<double>{0, 1, 1, 1, 3, 2, 0}));
  EXPECT_EQ(r->peak_heap_bytes, 3 * kMiB);
  ASSERT_EQ(r->max_heap.size(), 2u);  // a (standing for b too) and c
  EXPECT_EQ(r->max_heap[0].instruction_name, "a");
  EXPECT_EQ(r->max_heap[1].instruction_name, "c");
  EXPECT_EQ(r->logical_buffer_spans.at(1), std::make_pair(0, 4));  // ends at b's FREE
  EXPECT_EQ(r->logical_buffer_spans.count(2), 0u);                // b has no span of its own
}

TEST(MemoryViewer, ShareAfterFreeRevivesTheCanonicalBuffer) {
  AssignmentBuilder m;
  m.InstWithBuffer(1, "a", "exponential", 1 * kMiB);
  m.InstWithBuffer(2, "b", "bitcast", 1 * kMiB);
  m.Allocation(0, 1 * kMiB, {1, 2});
  auto* t = m.Trace();
  AssignmentBuilder::Event(t, kAlloc, 1);
  AssignmentBuilder::Event(t, kFree, 1);
  AssignmentBuilder::Event(t, kShare, 2, 1);
  AssignmentBuilder::Event(t, kFree, 2);
  auto r = ComputeMemoryViewer(m.proto, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(InMib(r->heap_bytes), (std::vector<double>{0, 1, 0, 1, 0}));
  EXPECT_EQ(r->peak_heap_bytes, 1 * kMiB);
  EXPECT_EQ(r->peak_heap_size_position, 0);  // the first time the peak is reached
}

TEST(MemoryViewer, ErrorsOnDoubleFreeAndOnTracesOverSeveralAllocations) {
  AssignmentBuilder m;
  m.InstWithBuffer(1, "a", "exponential", 1 * kMiB);
  m.InstWithBuffer(2, "b", "exponential", 1 * kMiB);
  m.Allocation(0, 1 * kMiB, {1});
  m.Allocation(1, 1 * kMiB, {2});
  auto* t = m.Trace();
  AssignmentBuilder::Event(t, kAlloc, 1);
  AssignmentBuilder::Event(t, kAlloc, 2);
  AssignmentBuilder::Event(t, kFree, 1);
  AssignmentBuilder::Event(t, kFree, 2);
  EXPECT_FALSE(ComputeMemoryViewer(m.proto, {}).ok());
  AssignmentBuilder::Event(t, kFree, 1);
  auto r = ComputeMemoryViewer(m.proto, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("freed more than once"), std::string::npos);
}

TEST(MemoryViewer, JsonHasPreprocessResultNames) {
  AssignmentBuilder m = TwoSpaceModule();
  auto r = ComputeMemoryViewer(m.proto, {});
  ASSERT_TRUE(r.ok());
  json::object o = json::parse(MemoryViewerToJson(*r)).as_object();
  for (const char* key : {"heapSizes", "unpaddedHeapSizes", "hloInstructionNames", "maxHeap", "maxHeapBySize",
                          "logicalBufferSpans", "maxHeapToBySize", "bySizeToMaxHeap", "moduleName",
                          "entryComputationName", "peakHeapMib", "peakUnpaddedHeapMib", "peakHeapSizePosition",
                          "entryComputationParametersMib", "nonReusableMib", "maybeLiveOutMib",
                          "totalBufferAllocationMib", "indefiniteBufferAllocationMib", "indefiniteLifetimes",
                          "allocationTimeline"}) {
    EXPECT_TRUE(o.contains(key)) << key;
  }
  EXPECT_EQ(o.at("moduleName").as_string(), "jit_mem");
  EXPECT_EQ(o.at("peakHeapMib").to_number<double>(), 3.0);
  EXPECT_EQ(o.at("heapSizes").as_array().size(), 7u);
  const json::object& c = o.at("maxHeapBySize").as_array()[0].as_object();
  EXPECT_EQ(c.at("instructionName").as_string(), "c");
  EXPECT_EQ(c.at("logicalBufferSizeMib").to_number<double>(), 2.0);
  EXPECT_EQ(c.at("sourceInfo").at("fileName").as_string(), "model.py");
  EXPECT_EQ(c.at("sourceInfo").at("lineNumber").to_number<int64_t>(), 40);
  EXPECT_EQ(o.at("logicalBufferSpans").at("3").at("start").to_number<int64_t>(), 3);
  EXPECT_EQ(o.at("logicalBufferSpans").at("3").at("limit").to_number<int64_t>(), 5);
  // int64 fields as protobuf's JSON mapping writes them: strings.
  EXPECT_EQ(o.at("indefiniteLifetimes").as_array()[0].at("id").as_string(), "0");
  EXPECT_EQ(o.at("indefiniteLifetimes").as_array()[0].at("logicalBuffers").as_array()[0].at("id").as_string(), "0");
}

TEST(MemoryViewer, UnpaddedSizesCountTuplesAsPointers) {
  xla::ShapeProto t;
  t.set_element_type(xla::TUPLE);
  *t.add_tuple_shapes() = F32(1000);
  *t.add_tuple_shapes() = F32(10);
  EXPECT_EQ(UnpaddedShapeBytes(t), 16);
  EXPECT_EQ(UnpaddedShapeBytes(F32(1000)), 4000);
}

// Every module with a buffer assignment in the real profiles: the peak is the
// highest point of the heap curve, and the buffers listed at the peak add up
// to it (within the indefinite allocations' padding beyond their largest buffer).
TEST(MemoryViewer, RealProfilesAreConsistent) {
  const std::vector<std::string> files = {
      "xplane/jax_tpu_v6e/tpu_inference_2.xplane.pb", "xplane/jax_rocm_mi300_gemm/tw003.xplane.pb",
      "xplane/jax_rocm_mi300_conv_8gpu/tw003.xplane.pb", "xplane/jax_rocm_mi355_fused_attn/934987a2fc2f.xplane.pb"};
  int checked = 0;
  for (const std::string& rel : files) {
    std::string path = std::string(TBPROF_TESTDATA) + "/" + rel;
    ASSERT_TRUE(std::filesystem::exists(path)) << "testdata missing: " << path;
    auto model = LoadXSpaceFile(path);
    ASSERT_TRUE(model.ok()) << model.status().message();
    HloPrograms programs = LoadHloPrograms(**model);
    ASSERT_FALSE(programs.empty()) << rel;
    for (const auto& [id, p] : programs.by_id) {
      if (p->proto().buffer_assignment().heap_simulator_traces().empty()) continue;
      for (int64_t color : MemorySpacesOf(p->proto())) {
        MemoryViewerOptions options;
        options.memory_color = color;
        auto r = ComputeMemoryViewer(p->proto(), options);
        ASSERT_TRUE(r.ok()) << rel << " " << p->name() << ": " << r.status().message();
        if (r->heap_bytes.empty()) continue;
        SCOPED_TRACE(rel + " " + p->name() + " color " + std::to_string(color));
        EXPECT_EQ(r->peak_heap_bytes, *std::max_element(r->heap_bytes.begin(), r->heap_bytes.end()));
        int64_t listed = 0;
        for (const auto& o : r->max_heap) listed += o.size_bytes;
        EXPECT_LE(listed, r->peak_heap_bytes);
        int64_t indefinite_padding = 0;  // allocation bytes beyond the buffer that stands for it
        for (const auto& a : r->indefinite_lifetimes) {
          int64_t largest = 0;
          for (const auto& lb : a.logical_buffers) largest = std::max(largest, lb.size_bytes);
          indefinite_padding += a.size_bytes - largest;
        }
        EXPECT_EQ(listed + indefinite_padding, r->peak_heap_bytes);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace tbprof
