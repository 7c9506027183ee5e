#include "convert/analysis/hlo/memory_viewer.h"

#include <algorithm>
#include <list>
#include <unordered_map>
#include <unordered_set>

#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/base/json.h"

namespace tbprof {
namespace {

using Event = xla::HeapSimulatorTrace::Event;

double Mib(int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

// An allocation whose buffers are live for the whole program: the heap
// simulator does not trace them, so they are added to every program point.
bool IsIndefinite(const xla::BufferAllocationProto& a) {
  return a.is_thread_local() || a.is_entry_computation_parameter() || a.is_constant() || a.maybe_live_out();
}

bool IsReusable(const xla::BufferAllocationProto& a) { return !a.is_thread_local() && !a.is_tuple(); }

std::string_view Category(const xla::BufferAllocationProto& a) {
  if (a.is_entry_computation_parameter()) return "Parameter";
  if (a.maybe_live_out()) return "Output";
  if (a.is_thread_local()) return "Thread-local";
  if (a.is_constant()) return "Constant";
  return "Temporary";
}

// The shape a logical buffer holds. Only the last shape-index step is applied
// (one tuple level), which is what the reference viewer has always shown.
const xla::ShapeProto& BufferShape(const xla::ShapeProto& shape, const google::protobuf::RepeatedField<int64_t>& index) {
  if (index.empty()) return shape;
  int64_t i = index[index.size() - 1];
  return i >= 0 && i < shape.tuple_shapes_size() ? shape.tuple_shapes(static_cast<int>(i)) : shape;
}

struct Buffer {
  const xla::LogicalBufferProto* proto = nullptr;
  const xla::BufferAllocationProto* allocation = nullptr;
  const xla::HloInstructionProto* instruction = nullptr;
  const xla::ShapeProto* shape = nullptr;
  int64_t unpadded = 0;
  std::optional<std::pair<int32_t, int32_t>> span;
  int64_t refs = 0;
  Buffer* canonical = nullptr;  // set by SHARE_WITH: this buffer's bytes are the canonical one's

  int64_t size() const { return proto->size(); }
  Buffer* Root() { return canonical ? canonical->Root() : this; }
  int64_t Inc() { return canonical ? canonical->Inc() : ++refs; }
  int64_t Dec() { return canonical ? canonical->Dec() : --refs; }
  std::string NameWithIndex() const {
    std::string name = instruction->name();
    const auto& index = proto->defined_at().shape_index();
    if (index.empty()) return name;
    name += '{';
    for (int i = 0; i < index.size(); ++i) name += (i ? "," : "") + std::to_string(index[i]);
    return name + '}';
  }
};

class Assignment {
 public:
  explicit Assignment(const xla::HloProto& proto) : proto_(proto) {
    std::unordered_map<int64_t, const xla::HloInstructionProto*> by_id;
    std::unordered_map<std::string_view, const xla::HloInstructionProto*> by_name;
    for (const auto& c : proto.hlo_module().computations()) {
      for (const auto& i : c.instructions()) {
        by_id.emplace(i.id(), &i);
        by_name.emplace(i.name(), &i);
      }
    }
    std::unordered_map<int64_t, const xla::LogicalBufferProto*> logical;
    for (const auto& b : proto.buffer_assignment().logical_buffers()) logical.emplace(b.id(), &b);
    const auto& allocations = proto.buffer_assignment().buffer_allocations();
    buffers_.reserve(logical.size());
    for (const auto& a : allocations) {
      for (const auto& assigned : a.assigned()) {
        auto lb = logical.find(assigned.logical_buffer_id());
        if (lb == logical.end()) continue;
        const auto& at = lb->second->defined_at();
        auto inst = by_id.find(at.instruction_id());
        const xla::HloInstructionProto* instruction = inst != by_id.end() ? inst->second : nullptr;
        // Old assignments name the instruction without an id.
        if (instruction == nullptr || (!at.instruction_name().empty() && instruction->name() != at.instruction_name())) {
          auto named = by_name.find(at.instruction_name());
          if (named != by_name.end()) instruction = named->second;
        }
        if (instruction == nullptr) continue;
        Buffer& b = buffers_[lb->first];
        b.proto = lb->second;
        b.allocation = &a;
        b.instruction = instruction;
        b.shape = &BufferShape(instruction->shape(), at.shape_index());
        b.unpadded = UnpaddedShapeBytes(*b.shape);
      }
    }
    // The trace of an allocation is found from its first event's buffer (the
    // trace's own allocation index is not reliable).
    const auto& traces = proto.buffer_assignment().heap_simulator_traces();
    for (int i = 0; i < traces.size(); ++i) {
      if (traces[i].events().empty()) continue;
      if (Buffer* b = Find(traces[i].events(0).buffer_id())) trace_of_allocation_[b->allocation->index()] = i;
    }
  }

  Buffer* Find(int64_t id) {
    auto it = buffers_.find(id);
    return it == buffers_.end() ? nullptr : &it->second;
  }

  std::vector<const xla::BufferAllocationProto*> Allocations(int64_t color) const {
    std::vector<const xla::BufferAllocationProto*> out;
    for (const auto& a : proto_.buffer_assignment().buffer_allocations()) {
      if (a.color() == color) out.push_back(&a);
    }
    std::sort(out.begin(), out.end(), [](auto* x, auto* y) { return x->index() < y->index(); });
    return out;
  }

  // The trace of the first temporary allocation of this color; failing that,
  // the trace with the most events on buffers of this color; -1 when none.
  int TraceFor(int64_t color) {
    for (const auto* a : Allocations(color)) {
      if (IsIndefinite(*a)) continue;
      auto it = trace_of_allocation_.find(a->index());
      if (it != trace_of_allocation_.end()) return it->second;
    }
    int best = -1;
    int64_t best_count = 0;
    const auto& traces = proto_.buffer_assignment().heap_simulator_traces();
    for (int i = 0; i < traces.size(); ++i) {
      int64_t count = 0;
      for (const Event& e : traces[i].events()) {
        const Buffer* b = Find(e.buffer_id());
        if (b != nullptr && b->proto->color() == color) ++count;
      }
      if (count > best_count) best = i, best_count = count;
    }
    return best;
  }

  const xla::HloProto& proto() const { return proto_; }

 private:
  const xla::HloProto& proto_;
  std::unordered_map<int64_t, Buffer> buffers_;
  std::unordered_map<int64_t, int> trace_of_allocation_;
};

struct Simulation {
  int64_t heap = 0, unpadded = 0, peak = 0, peak_unpadded = 0;
  int32_t peak_position = 0;
  std::list<int64_t> live;  // buffer ids in the order they were allocated
  std::list<int64_t> live_at_peak;
  // Root buffer id -> the buffer whose SHARE_WITH last revived the root's
  // memory: the one using those bytes, so the one shown for them.
  std::unordered_map<int64_t, int64_t> shown_as, shown_as_at_peak;
  std::vector<int64_t> heap_timeline, unpadded_timeline;
  std::vector<std::string> names;
  std::unordered_set<Buffer*> seen;
  std::unordered_set<const xla::BufferAllocationProto*> seen_allocations;
  int32_t event_count = 0;

  void Grow(Buffer* b, bool starts_span) {
    live.push_back(b->proto->id());
    heap += b->size();
    unpadded += b->unpadded;
    if (heap > peak) {  // a new peak only when strictly higher: the first point of a plateau
      peak = heap;
      peak_unpadded = unpadded;
      peak_position = static_cast<int32_t>(heap_timeline.size()) - 1;
      live_at_peak = live;
      shown_as_at_peak = shown_as;
    }
    if (starts_span) b->span.emplace(static_cast<int32_t>(heap_timeline.size()) - 1, event_count - 1);
  }

  Status Shrink(Buffer* b) {
    live.remove(b->proto->id());
    heap -= b->size();
    unpadded -= b->unpadded;
    if (heap < 0) return InvalidArgument("heap size became negative: " + std::to_string(heap));
    if (b->span) b->span->second = static_cast<int32_t>(heap_timeline.size()) - 1;
    return Status::Ok();
  }
};

Status Simulate(Assignment& assignment, int64_t color, Simulation& sim) {
  int trace_index = assignment.TraceFor(color);
  const auto& traces = assignment.proto().buffer_assignment().heap_simulator_traces();
  if (trace_index < 0 || trace_index >= traces.size()) return Status::Ok();
  const auto& trace = traces[trace_index];
  sim.event_count = trace.events_size();
  for (const Event& e : trace.events()) {
    sim.heap_timeline.push_back(sim.heap);
    sim.unpadded_timeline.push_back(sim.unpadded);
    sim.names.push_back(e.instruction_name());
    Buffer* b = assignment.Find(e.buffer_id());
    if (b == nullptr) continue;
    sim.seen.insert(b);
    sim.seen_allocations.insert(b->allocation);
    switch (e.kind()) {
      case Event::ALLOC:
        b->Inc();
        sim.Grow(b, true);
        break;
      case Event::FREE: {
        int64_t refs = b->Dec();
        if (refs < 0) return InvalidArgument("buffer " + std::to_string(b->proto->id()) + " is freed more than once");
        if (refs == 0) RETURN_IF_ERROR(sim.Shrink(b->Root()));
        // A sharer's own span ends where it is freed.
        if (b->span && b->canonical) b->span->second = static_cast<int32_t>(sim.heap_timeline.size()) - 1;
        break;
      }
      case Event::SHARE_WITH: {
        Buffer* canonical = assignment.Find(e.share_with_canonical_id());
        if (canonical == nullptr) break;
        b->canonical = canonical;
        // A share that revives a freed canonical buffer brings the bytes of
        // the chain's root back; they are the sharer's from here on (its span
        // starts here, and it is the buffer shown for them).
        if (canonical->Inc() == 1) {
          Buffer* root = canonical->Root();
          sim.shown_as[root->proto->id()] = b->proto->id();
          b->span.emplace(static_cast<int32_t>(sim.heap_timeline.size()) - 1, sim.event_count - 1);
          sim.Grow(root, false);
        }
        break;
      }
      default:
        return InvalidArgument("heap simulator event of unknown kind " + std::to_string(e.kind()));
    }
  }
  sim.heap_timeline.push_back(sim.heap);
  sim.unpadded_timeline.push_back(sim.unpadded);
  sim.names.emplace_back();
  if (sim.seen_allocations.size() != 1) {
    return InvalidArgument("a heap simulation works out of one buffer allocation; this trace touches " +
                           std::to_string(sim.seen_allocations.size()));
  }
  return Status::Ok();
}

HeapObjectInfo MakeHeapObject(const Buffer& b, int32_t color) {
  HeapObjectInfo o;
  o.color = color;
  const auto& md = b.instruction->metadata();
  o.shape_string = ShapeToString(*b.shape);
  o.label = b.instruction->name() + ": " + o.shape_string + " # " + md.op_name();
  o.logical_buffer_id = b.proto->id();
  o.size_bytes = b.size();
  o.unpadded_bytes = b.unpadded;
  o.instruction_name = b.NameWithIndex();
  o.group_name = Category(*b.allocation);
  o.tf_op_name = md.op_name();
  o.op_code = b.instruction->opcode();
  o.source_file = md.source_file();
  o.source_line = md.source_line();
  return o;
}

// The source of an instruction whose metadata names only a stack frame: the
// frame's own file location.
void FillSourceFromStack(const xla::HloModuleProto& module, const xla::HloInstructionProto& inst, HeapObjectInfo& o) {
  if (!o.source_file.empty() || inst.metadata().stack_frame_id() <= 0) return;
  const auto& index = module.stack_frame_index();
  int frame = inst.metadata().stack_frame_id() - 1;  // ids are 1-based
  if (frame >= index.stack_frames_size()) return;
  int loc = index.stack_frames(frame).file_location_id() - 1;
  if (loc < 0 || loc >= index.file_locations_size()) return;
  const auto& fl = index.file_locations(loc);
  int file = fl.file_name_id() - 1;
  if (file < 0 || file >= index.file_names_size()) return;
  o.source_file = index.file_names(file);
  o.source_line = fl.line();
}

}  // namespace

int64_t UnpaddedShapeBytes(const xla::ShapeProto& shape) {
  switch (shape.element_type()) {
    case xla::TUPLE:
      return 8 * static_cast<int64_t>(shape.tuple_shapes_size());
    case xla::OPAQUE_TYPE:
      return 8;
    case xla::TOKEN:
      return 0;
    default:
      return ElementCount(shape) * PrimitiveTypeBytes(shape.element_type());
  }
}

std::vector<int64_t> MemorySpacesOf(const xla::HloProto& proto) {
  std::vector<int64_t> colors;
  for (const auto& b : proto.buffer_assignment().logical_buffers()) {
    if (std::find(colors.begin(), colors.end(), b.color()) == colors.end()) colors.push_back(b.color());
  }
  std::sort(colors.begin(), colors.end());
  return colors;
}

StatusOr<MemoryViewerResult> ComputeMemoryViewer(const xla::HloProto& proto, const MemoryViewerOptions& options) {
  Assignment assignment(proto);
  Simulation sim;
  if (Status s = Simulate(assignment, options.memory_color, sim); !s.ok()) {
    return InvalidArgument("heap simulator trace: " + s.message());
  }

  MemoryViewerResult r;
  const auto& module = proto.hlo_module();
  r.module_name = module.name();
  r.entry_computation_name = module.entry_computation_name();

  // Buffers at the peak: the allocations that live throughout (their largest
  // buffer stands for the allocation), then the traced buffers live at the peak.
  int64_t indefinite_bytes = 0, small_bytes = 0;
  auto add = [&](const Buffer& b) {
    if (b.size() < options.small_buffer_size) {
      small_bytes += b.size();
      return;
    }
    HeapObjectInfo o = MakeHeapObject(b, static_cast<int32_t>(r.max_heap.size()));
    FillSourceFromStack(module, *b.instruction, o);
    r.max_heap.push_back(std::move(o));
  };
  std::vector<const xla::BufferAllocationProto*> allocations = assignment.Allocations(options.memory_color);
  for (const auto* a : allocations) {
    if (!IsIndefinite(*a)) continue;
    const Buffer* largest = nullptr;
    for (const auto& assigned : a->assigned()) {
      const Buffer* b = assignment.Find(assigned.logical_buffer_id());
      if (b != nullptr && b->size() > (largest ? largest->size() : 0)) largest = b;
    }
    if (largest == nullptr) continue;
    indefinite_bytes += a->size();
    add(*largest);
  }
  for (int64_t id : sim.live_at_peak) {
    auto shown = sim.shown_as_at_peak.find(id);
    const Buffer* b = assignment.Find(shown == sim.shown_as_at_peak.end() ? id : shown->second);
    if (b == nullptr) break;
    add(*b);
  }
  if (small_bytes != 0) {
    HeapObjectInfo o;
    o.color = static_cast<int32_t>(r.max_heap.size());
    o.label = "small (<" + std::to_string(options.small_buffer_size) + " bytes)";
    o.size_bytes = small_bytes;
    r.max_heap.push_back(std::move(o));
  }

  std::vector<int32_t> by_size(r.max_heap.size());
  for (size_t i = 0; i < by_size.size(); ++i) by_size[i] = static_cast<int32_t>(i);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](int32_t a, int32_t b) { return r.max_heap[a].size_bytes > r.max_heap[b].size_bytes; });
  r.by_size_to_max_heap = by_size;
  r.max_heap_to_by_size.resize(by_size.size());
  for (size_t i = 0; i < by_size.size(); ++i) r.max_heap_to_by_size[by_size[i]] = static_cast<int32_t>(i);

  r.heap_bytes.reserve(sim.heap_timeline.size());
  for (size_t i = 0; i < sim.heap_timeline.size(); ++i) {
    r.heap_bytes.push_back(sim.heap_timeline[i] + indefinite_bytes);
    r.unpadded_heap_bytes.push_back(sim.unpadded_timeline[i] + indefinite_bytes);
  }
  r.hlo_instruction_names = std::move(sim.names);
  r.peak_heap_bytes = sim.peak + indefinite_bytes;
  r.peak_unpadded_heap_bytes = sim.peak_unpadded + indefinite_bytes;
  r.peak_heap_size_position = sim.peak_position;
  for (const Buffer* b : sim.seen) {
    if (b->span) r.logical_buffer_spans[b->proto->id()] = *b->span;
  }

  for (const auto* a : allocations) {
    if (a->is_entry_computation_parameter()) r.entry_computation_parameters_bytes += a->size();
    if (!IsReusable(*a)) r.non_reusable_bytes += a->size();
    if (a->maybe_live_out()) r.maybe_live_out_bytes += a->size();
    r.total_buffer_allocation_bytes += a->size();
    if (!IsIndefinite(*a)) continue;
    r.indefinite_buffer_allocation_bytes += a->size();
    BufferAllocationInfo info;
    info.id = a->index();
    info.size_bytes = a->size();
    if (a->is_entry_computation_parameter()) info.attributes.emplace_back("entry computation parameter");
    if (a->maybe_live_out()) info.attributes.emplace_back("may-be live out");
    if (IsReusable(*a)) info.attributes.emplace_back("reusable");
    for (const auto& assigned : a->assigned()) {
      LogicalBufferInfo lb;
      lb.id = assigned.logical_buffer_id();
      lb.size_bytes = assigned.size();
      if (const Buffer* b = assignment.Find(lb.id)) {
        lb.hlo_name = b->instruction->name();
        lb.shape_index.assign(b->proto->defined_at().shape_index().begin(), b->proto->defined_at().shape_index().end());
        lb.shape = ShapeToString(*b->shape);
      }
      info.logical_buffers.push_back(std::move(lb));
    }
    if (!info.logical_buffers.empty()) {
      const std::string& first = info.logical_buffers.front().shape;
      bool common = std::all_of(info.logical_buffers.begin(), info.logical_buffers.end(),
                                [&](const LogicalBufferInfo& lb) { return lb.shape == first; });
      if (common) info.common_shape = first;
    }
    r.indefinite_lifetimes.push_back(std::move(info));
  }
  return r;
}

namespace {

void Key(std::string& out, std::string_view key) {
  if (out.back() != '{') out += ',';
  AppendJsonString(out, key);
  out += ':';
}
void Str(std::string& out, std::string_view key, std::string_view v) {
  Key(out, key);
  AppendJsonString(out, v);
}
void Num(std::string& out, std::string_view key, double v) {
  Key(out, key);
  AppendJsonDouble(out, v);
}
void Int(std::string& out, std::string_view key, int64_t v) {
  Key(out, key);
  out += std::to_string(v);
}
// protobuf's JSON mapping writes 64-bit integers as strings.
void Int64(std::string& out, std::string_view key, int64_t v) {
  Key(out, key);
  out += '"' + std::to_string(v) + '"';
}
template <typename T, typename Fn>
void Array(std::string& out, std::string_view key, const std::vector<T>& v, Fn write) {
  Key(out, key);
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    write(v[i]);
  }
  out += ']';
}

void WriteHeapObject(std::string& out, const HeapObjectInfo& o) {
  out += '{';
  Int(out, "numbered", o.color);
  Str(out, "label", o.label);
  Int(out, "logicalBufferId", o.logical_buffer_id);
  Num(out, "logicalBufferSizeMib", Mib(o.size_bytes));
  Num(out, "unpaddedShapeMib", Mib(o.unpadded_bytes));
  Str(out, "instructionName", o.instruction_name);
  Str(out, "shapeString", o.shape_string);
  Str(out, "tfOpName", o.tf_op_name);
  Str(out, "groupName", o.group_name);
  Str(out, "opCode", o.op_code);
  if (!o.source_file.empty()) {
    Key(out, "sourceInfo");
    out += '{';
    Str(out, "fileName", o.source_file);
    Int(out, "lineNumber", o.source_line);
    Str(out, "stackFrame", "");
    out += '}';
  }
  out += '}';
}

}  // namespace

std::string MemoryViewerToJson(const MemoryViewerResult& r) {
  std::string out = "{";
  auto mib = [&](int64_t b) { AppendJsonDouble(out, Mib(b)); };
  Array(out, "heapSizes", r.heap_bytes, mib);
  Array(out, "unpaddedHeapSizes", r.unpadded_heap_bytes, mib);
  Array(out, "hloInstructionNames", r.hlo_instruction_names, [&](const std::string& s) { AppendJsonString(out, s); });
  Array(out, "maxHeap", r.max_heap, [&](const HeapObjectInfo& o) { WriteHeapObject(out, o); });
  std::vector<const HeapObjectInfo*> by_size;
  for (int32_t i : r.by_size_to_max_heap) by_size.push_back(&r.max_heap[i]);
  Array(out, "maxHeapBySize", by_size, [&](const HeapObjectInfo* o) { WriteHeapObject(out, *o); });
  Key(out, "logicalBufferSpans");
  out += '{';
  for (const auto& [id, span] : r.logical_buffer_spans) {
    if (out.back() != '{') out += ',';
    out += '"' + std::to_string(id) + "\":{\"start\":" + std::to_string(span.first) +
           ",\"limit\":" + std::to_string(span.second) + '}';
  }
  out += '}';
  auto int_item = [&](int32_t v) { out += std::to_string(v); };
  Array(out, "maxHeapToBySize", r.max_heap_to_by_size, int_item);
  Array(out, "bySizeToMaxHeap", r.by_size_to_max_heap, int_item);
  Str(out, "moduleName", r.module_name);
  Str(out, "entryComputationName", r.entry_computation_name);
  Num(out, "peakHeapMib", Mib(r.peak_heap_bytes));
  Num(out, "peakUnpaddedHeapMib", Mib(r.peak_unpadded_heap_bytes));
  Int(out, "peakHeapSizePosition", r.peak_heap_size_position);
  Num(out, "entryComputationParametersMib", Mib(r.entry_computation_parameters_bytes));
  Num(out, "nonReusableMib", Mib(r.non_reusable_bytes));
  Num(out, "maybeLiveOutMib", Mib(r.maybe_live_out_bytes));
  Num(out, "totalBufferAllocationMib", Mib(r.total_buffer_allocation_bytes));
  Num(out, "indefiniteBufferAllocationMib", Mib(r.indefinite_buffer_allocation_bytes));
  Array(out, "indefiniteLifetimes", r.indefinite_lifetimes, [&](const BufferAllocationInfo& a) {
    out += '{';
    Int64(out, "id", a.id);
    Num(out, "sizeMib", Mib(a.size_bytes));
    Array(out, "attributes", a.attributes, [&](const std::string& s) { AppendJsonString(out, s); });
    Array(out, "logicalBuffers", a.logical_buffers, [&](const LogicalBufferInfo& lb) {
      out += '{';
      Int64(out, "id", lb.id);
      Str(out, "shape", lb.shape);
      Num(out, "sizeMib", Mib(lb.size_bytes));
      Str(out, "hloName", lb.hlo_name);
      Array(out, "shapeIndex", lb.shape_index, [&](int64_t v) { out += '"' + std::to_string(v) + '"'; });
      out += '}';
    });
    Str(out, "commonShape", a.common_shape);
    out += '}';
  });
  // The allocation timeline is a Graphviz rendering in the reference; without
  // one it carries the entry URL, which is empty here.
  Str(out, "allocationTimeline", "");
  out += '}';
  return out;
}

}  // namespace tbprof
