// The names an XSpace is read by: planes, lines (the derived timelines the
// profiler adds to device planes), and stats, as TSL's xplane_schema spells
// them. Every analysis takes names from here; the stat ids of a model are
// resolved once (StatIds), not looked up by string per event.
#pragma once

#include <string_view>

#include "convert/xplane/xspace_model.h"

namespace tbprof::schema {

// Planes.
inline constexpr std::string_view kHostPlane = "/host:CPU";
inline constexpr std::string_view kGpuPlanePrefix = "/device:GPU:";
inline constexpr std::string_view kTpuPlanePrefix = "/device:TPU:";
inline constexpr std::string_view kCustomPlanePrefix = "/device:CUSTOM:";
inline constexpr std::string_view kMetadataPlane = "/host:metadata";
inline constexpr std::string_view kTaskEnvironmentPlane = "Task Environment";
// A TPU chip's SparseCore planes are named "/device:TPU:<n> SparseCore <m>".
inline constexpr std::string_view kSparseCorePlaneInfix = " SparseCore ";

// Lines of device planes (the derived timelines among them).
inline constexpr std::string_view kStepLine = "Steps";
inline constexpr std::string_view kXlaModuleLine = "XLA Modules";
inline constexpr std::string_view kXlaOpLine = "XLA Ops";
inline constexpr std::string_view kXlaAsyncOpLine = "Async XLA Ops";
inline constexpr std::string_view kFrameworkOpLine = "Framework Ops";
inline constexpr std::string_view kFrameworkNameScopeLine = "Framework Name Scope";
inline constexpr std::string_view kSparseCoreStepLine = "Sparse Core Steps";
inline constexpr std::string_view kSparseCoreOpLine = "Sparse Core Ops";
inline constexpr std::string_view kSparseCoreModuleLine = "Sparse Core Modules";

// Stats.
inline constexpr std::string_view kTfOp = "tf_op";
// TensorFlow up to 2.4 wrote a GPU kernel's framework op under this name.
inline constexpr std::string_view kLevel0 = "level 0";
inline constexpr std::string_view kHloOp = "hlo_op";
inline constexpr std::string_view kHloModule = "hlo_module";
inline constexpr std::string_view kHloCategory = "hlo_category";
inline constexpr std::string_view kProgramId = "program_id";
inline constexpr std::string_view kCorrelationId = "correlation_id";
inline constexpr std::string_view kKernelDetails = "kernel_details";
inline constexpr std::string_view kEquation = "equation";
inline constexpr std::string_view kShape = "shape";
inline constexpr std::string_view kIsEager = "is_eager";
inline constexpr std::string_view kFlops = "flops";
inline constexpr std::string_view kBytesAccessed = "bytes_accessed";
inline constexpr std::string_view kName = "name";
inline constexpr std::string_view kDeviceOffsetPs = "device_offset_ps";
inline constexpr std::string_view kDeviceDurationPs = "device_duration_ps";
inline constexpr std::string_view kGroupId = "group_id";
inline constexpr std::string_view kStepNum = "step_num";
inline constexpr std::string_view kStepName = "step_name";
inline constexpr std::string_view kIterNum = "iter_num";
// TraceMe context stats: a step root (its level), an async event, and the
// producer/consumer pairs that link events across threads.
inline constexpr std::string_view kIsRoot = "_r";
inline constexpr std::string_view kIsAsync = "_a";
inline constexpr std::string_view kProducerType = "_pt";
inline constexpr std::string_view kProducerId = "_p";
inline constexpr std::string_view kConsumerType = "_ct";
inline constexpr std::string_view kConsumerId = "_c";
// Plane stats (device capabilities).
inline constexpr std::string_view kDeviceVendor = "device_vendor";
inline constexpr std::string_view kComputeCapMajor = "compute_cap_major";
inline constexpr std::string_view kComputeCapMinor = "compute_cap_minor";
inline constexpr std::string_view kGpuDeviceName = "gpu_device_name";
inline constexpr std::string_view kDeviceTypeString = "device_type_string";
inline constexpr std::string_view kVendorNvidia = "Nvidia";
inline constexpr std::string_view kVendorAmd = "AMD";

// Host events of TensorFlow's allocator (instants, one per allocation and
// deallocation), read by the memory profile.
inline constexpr std::string_view kMemoryAllocationEvent = "MemoryAllocation";
inline constexpr std::string_view kMemoryDeallocationEvent = "MemoryDeallocation";
inline bool IsAllocatorEventName(std::string_view name) {
  return name == kMemoryAllocationEvent || name == kMemoryDeallocationEvent;
}

// The stat ids of one model, resolved once; kNoStr where no stat has the name.
struct StatIds {
  explicit StatIds(const XSpaceModel& space)
      : tf_op(space.Find(kTfOp)),
        level0(space.Find(kLevel0)),
        hlo_op(space.Find(kHloOp)),
        hlo_module(space.Find(kHloModule)),
        hlo_category(space.Find(kHloCategory)),
        program_id(space.Find(kProgramId)),
        correlation_id(space.Find(kCorrelationId)),
        kernel_details(space.Find(kKernelDetails)),
        equation(space.Find(kEquation)),
        shape(space.Find(kShape)),
        is_eager(space.Find(kIsEager)),
        flops(space.Find(kFlops)),
        bytes_accessed(space.Find(kBytesAccessed)),
        name(space.Find(kName)),
        device_offset_ps(space.Find(kDeviceOffsetPs)),
        device_duration_ps(space.Find(kDeviceDurationPs)),
        step_num(space.Find(kStepNum)) {}

  StrId tf_op, level0, hlo_op, hlo_module, hlo_category, program_id, correlation_id, kernel_details, equation,
      shape, is_eager, flops, bytes_accessed, name, device_offset_ps, device_duration_ps, step_num;

  // The string value of event e's stat `id` (own stat), kNoStr when absent or not a string.
  static StrId StrOf(const XPlaneModel& p, uint32_t e, StrId id) {
    const Stat* s = id == kNoStr ? nullptr : p.FindStat(e, id);
    return s && s->kind == StatKind::kStr ? s->str : kNoStr;
  }
  // A GPU kernel's framework op ("name:type"): `tf_op`, or `level 0` as
  // TensorFlow up to 2.4 wrote it; kNoStr when the kernel names none.
  StrId FrameworkOp(const XPlaneModel& p, uint32_t e) const {
    StrId op = StrOf(p, e, tf_op);
    return op != kNoStr ? op : StrOf(p, e, level0);
  }
};

inline bool IsGpuPlane(std::string_view name) { return name.starts_with(kGpuPlanePrefix); }
// A TPU TensorCore plane: "/device:TPU:<digits>" (not its SparseCores).
inline bool IsTpuCorePlane(std::string_view name) {
  if (!name.starts_with(kTpuPlanePrefix) || name.size() == kTpuPlanePrefix.size()) return false;
  for (char c : name.substr(kTpuPlanePrefix.size())) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}
inline bool IsSparseCorePlane(std::string_view name) {
  return name.starts_with(kTpuPlanePrefix) && name.find(kSparseCorePlaneInfix) != std::string_view::npos;
}

}  // namespace tbprof::schema
