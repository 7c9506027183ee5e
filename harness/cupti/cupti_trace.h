// What the CUPTI collector records, in plain structs with no CUDA types, so
// the XPlane conversion builds and is tested on machines without CUDA.
// Timestamps are CUPTI-clock nanoseconds (cuptiGetTimestamp); the trace keeps
// one (CUPTI, wall-clock) pair to place them on the host's wall clock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tbprof::gpu {

// Numbering of CUpti_ActivityMemoryKind.
enum class MemoryKind : uint8_t {
  kUnknown = 0, kPageable = 1, kPinned = 2, kDevice = 3, kArray = 4,
  kManaged = 5, kDeviceStatic = 6, kManagedStatic = 7,
};

// The device-line event kinds TF's collector names streams after, in the
// order the line name lists them.
enum class CopyDirection : uint8_t { kHtoD, kDtoH, kDtoD, kPtoP, kOther };

struct DeviceInfo {
  uint32_t ordinal = 0;
  std::string name;
  int compute_cap_major = 0, compute_cap_minor = 0;
  int core_count = 0;          // multiprocessors
  int clock_rate_khz = 0;
  uint64_t memory_size = 0;       // bytes
  uint64_t memory_bandwidth = 0;  // bytes per second
};

struct KernelRecord {
  std::string name;  // demangled
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device_id = 0, context_id = 0, stream_id = 0, correlation_id = 0;
  int32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  uint32_t registers_per_thread = 0;
  int32_t static_shared = 0, dynamic_shared = 0;
  double occupancy_pct = 0;
};

struct MemcpyRecord {
  CopyDirection direction = CopyDirection::kOther;
  MemoryKind src_kind = MemoryKind::kUnknown, dst_kind = MemoryKind::kUnknown;
  uint64_t bytes = 0;
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device_id = 0, context_id = 0, stream_id = 0, correlation_id = 0;
  uint32_t destination_device = 0;
  bool async = false;
};

struct MemsetRecord {
  MemoryKind kind = MemoryKind::kUnknown;
  uint64_t bytes = 0;
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device_id = 0, context_id = 0, stream_id = 0, correlation_id = 0;
  bool async = false;
};

// A host thread waiting on the device (CUPTI synchronization activity).
struct SyncRecord {
  std::string type;  // "StreamSynchronize", "ContextSynchronize", "EventSynchronize", ...
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t context_id = 0, stream_id = 0, correlation_id = 0;
};

// One CUDA API call on a host thread that targets a device (launch, copy, set).
struct ApiCallRecord {
  std::string name;  // a launch: its kernel; else the API function, e.g. "cuMemcpyHtoDAsync_v2"
  uint64_t start_ns = 0, end_ns = 0;
  uint64_t thread_id = 0;
  uint32_t device_id = 0, correlation_id = 0;
  // Outermost op annotation open on the thread at the call: the kernels of
  // this call carry it as their `tf_op`.
  std::string annotation;
};

// A TF-style op scope ("model/dense/MatMul:MatMul") on a host thread.
struct AnnotationRecord {
  std::string name;
  uint64_t start_ns = 0, end_ns = 0;
  uint64_t thread_id = 0;
};

struct GpuTrace {
  uint64_t start_walltime_ns = 0;  // wall clock at start
  uint64_t start_gpu_ns = 0;       // CUPTI clock at the same moment
  std::vector<DeviceInfo> devices;
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<SyncRecord> syncs;
  std::vector<ApiCallRecord> api_calls;
  std::vector<AnnotationRecord> annotations;
  uint64_t dropped_records = 0;
};

}  // namespace tbprof::gpu
