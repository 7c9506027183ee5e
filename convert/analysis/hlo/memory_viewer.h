// memory_viewer: the heap of one XLA program over its program order, from the
// module's BufferAssignmentProto. The heap-simulator trace of the selected
// memory space (color) is replayed event by event (ALLOC, FREE, SHARE_WITH
// with reference counts on the canonical buffer), allocations that live for
// the whole program (parameters, constants, live-out, thread-local) are added
// on top, and the buffers live at the peak are listed. The result has the
// fields of xprof's PreprocessResult and is written with its JSON names.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "convert/base/status.h"
#include "proto/hlo.pb.h"

namespace tbprof {

struct MemoryViewerOptions {
  int64_t memory_color = 0;                 // 0: HBM (the default memory space)
  int64_t small_buffer_size = 16 * 1024;    // buffers below this many bytes are summed into one entry
};

struct HeapObjectInfo {
  int32_t color = 0;                 // rank in max_heap, used by the UI for its palette
  std::string label;
  int64_t logical_buffer_id = -1;    // -1 for the "small" aggregate
  int64_t size_bytes = 0;
  int64_t unpadded_bytes = 0;
  std::string instruction_name;      // with "{shape index}" for tuple elements
  std::string shape_string;
  std::string tf_op_name;
  std::string group_name;            // Parameter, Output, Thread-local, Constant, Temporary
  std::string op_code;
  std::string source_file;           // empty: unknown
  int32_t source_line = 0;
};

struct LogicalBufferInfo {
  int64_t id = 0;
  std::string shape;
  int64_t size_bytes = 0;
  std::string hlo_name;
  std::vector<int64_t> shape_index;
};

struct BufferAllocationInfo {
  int64_t id = 0;
  int64_t size_bytes = 0;
  std::vector<std::string> attributes;
  std::vector<LogicalBufferInfo> logical_buffers;
  std::string common_shape;
};

struct MemoryViewerResult {
  // One entry per heap-simulator event (the heap before it) plus the final heap; bytes,
  // indefinite allocations included.
  std::vector<int64_t> heap_bytes;
  std::vector<int64_t> unpadded_heap_bytes;
  std::vector<std::string> hlo_instruction_names;
  std::vector<HeapObjectInfo> max_heap;  // live at the peak, in program order of their allocation
  std::vector<int32_t> max_heap_to_by_size;
  std::vector<int32_t> by_size_to_max_heap;
  std::map<int64_t, std::pair<int32_t, int32_t>> logical_buffer_spans;  // id -> [start, limit] event index
  std::string module_name;
  std::string entry_computation_name;
  int64_t peak_heap_bytes = 0;
  int64_t peak_unpadded_heap_bytes = 0;
  int32_t peak_heap_size_position = 0;
  int64_t entry_computation_parameters_bytes = 0;
  int64_t non_reusable_bytes = 0;
  int64_t maybe_live_out_bytes = 0;
  int64_t total_buffer_allocation_bytes = 0;
  int64_t indefinite_buffer_allocation_bytes = 0;
  std::vector<BufferAllocationInfo> indefinite_lifetimes;
};

StatusOr<MemoryViewerResult> ComputeMemoryViewer(const xla::HloProto& proto, const MemoryViewerOptions& options);

// xprof's PreprocessResult JSON (proto3 JSON names, scalars always printed,
// int64 fields as strings as protobuf's JSON mapping writes them).
std::string MemoryViewerToJson(const MemoryViewerResult& result);

// The memory spaces (colors) that have logical buffers in the assignment, sorted.
std::vector<int64_t> MemorySpacesOf(const xla::HloProto& proto);

// Bytes of a shape without padding, the way the memory viewer counts them:
// arrays as elements × element size, tuples as one 8-byte pointer per element.
int64_t UnpaddedShapeBytes(const xla::ShapeProto& shape);

}  // namespace tbprof
