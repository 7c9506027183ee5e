// The names an XSpace is read by: planes, lines (the derived timelines the
// profiler adds to device planes), and stats, as TSL's xplane_schema spells
// them. Every analysis takes names from here; the stat ids of a model are
// resolved once (StatIds), not looked up by string per event.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "convert/model/xspace_model.h"

namespace tbprof::schema {

// Planes.
inline constexpr std::string_view kHostPlane = "/host:CPU";
inline constexpr std::string_view kGpuPlanePrefix = "/device:GPU:";
inline constexpr std::string_view kTpuPlanePrefix = "/device:TPU:";
inline constexpr std::string_view kCustomPlanePrefix = "/device:CUSTOM:";
inline constexpr std::string_view kMetadataPlane = "/host:metadata";
// Its plane stats link a scope range id (the stat's metadata id) to its parent's (the value).
inline constexpr std::string_view kScopeRangeIdTreePlane = "/host:__ScopeRangeCallStack__";
inline constexpr std::string_view kTaskEnvironmentPlane = "Task Environment";
// A TPU chip's SparseCore planes are named "/device:TPU:<n> SparseCore <m>".
inline constexpr std::string_view kSparseCorePlaneInfix = " SparseCore ";

// Lines of device planes (the derived timelines among them).
inline constexpr std::string_view kStepLine = "Steps";
inline constexpr std::string_view kXlaModuleLine = "XLA Modules";
inline constexpr std::string_view kXlaOpLine = "XLA Ops";
inline constexpr std::string_view kFrameworkOpLine = "Framework Ops";
inline constexpr std::string_view kFrameworkNameScopeLine = "Framework Name Scope";
inline constexpr std::string_view kSparseCoreStepLine = "Sparse Core Steps";
inline constexpr std::string_view kSparseCoreOpLine = "Sparse Core Ops";
inline constexpr std::string_view kSparseCoreModuleLine = "Sparse Core Modules";
inline constexpr std::string_view kSourceLine = "Source code";
inline constexpr std::string_view kKernelLaunchLine = "Launch Stats";
// TPU host-offload copies, one line per row: "Host Offload Ops row <n>".
inline constexpr std::string_view kHostOffloadOpLine = "Host Offload Ops";
// TensorFlow's names of the framework lines before they became "Framework …".
inline constexpr std::string_view kTensorFlowOpLine = "TensorFlow Ops";
inline constexpr std::string_view kTensorFlowNameScopeLine = "TensorFlow Name Scope";
// Current xprof derives one set of lines per GPU stream and names each
// "<line> - from #<stream line id>".
inline constexpr std::string_view kDerivedFromStreamInfix = " - from #";
// A line named "_counters_" holds counter samples.
inline constexpr std::string_view kCountersLine = "_counters_";

// Line ids of the derived timelines (TSL's trace_utils.h): a fixed range
// starting at 0xdeadbeef that no OS thread or GPU stream id reaches. Every
// analysis of raw device events skips lines with these ids.
inline constexpr int64_t kThreadIdDerivedMin = 0xdeadbeef;
inline constexpr int64_t kThreadIdStepInfo = kThreadIdDerivedMin;
inline constexpr int64_t kThreadIdKernelLaunch = kThreadIdDerivedMin + 1;
inline constexpr int64_t kThreadIdTfNameScope = kThreadIdDerivedMin + 2;
inline constexpr int64_t kThreadIdTfOp = kThreadIdDerivedMin + 3;
inline constexpr int64_t kThreadIdHloModule = kThreadIdDerivedMin + 4;
inline constexpr int64_t kThreadIdHloOp = kThreadIdDerivedMin + 5;
inline constexpr int64_t kThreadIdSource = kThreadIdDerivedMin + 7;
inline constexpr int64_t kThreadIdHostOffloadOpStart = kThreadIdDerivedMin + 8;
inline constexpr int64_t kThreadIdHostOffloadOpEnd = kThreadIdDerivedMin + 48;
inline constexpr int64_t kThreadIdHostXlaRegionEnd = kThreadIdDerivedMin + 49 + 240;
// Per-stream derived lines of GPU planes: 100 ids after the host XLA regions,
// six per stream (name scope, framework op, module, XLA op, overhead, source),
// in the order of the fixed ids above.
inline constexpr int64_t kThreadIdDeviceDerivedMin = kThreadIdHostXlaRegionEnd + 1;
inline constexpr int64_t kThreadIdDeviceDerivedMax = kThreadIdDeviceDerivedMin + 99;
inline constexpr int64_t kThreadIdDerivedMax = kThreadIdDeviceDerivedMax;
inline constexpr bool IsDerivedThreadId(int64_t id) { return id >= kThreadIdDerivedMin && id <= kThreadIdDerivedMax; }

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
// TensorFlow's eager runtime: the event of one op or function call, whose
// `is_func` says which (0: a single op).
inline constexpr std::string_view kEagerKernelExecute = "EagerKernelExecute";
inline constexpr std::string_view kIsFunc = "is_func";
// An input-pipeline stage (a PyGrain or tf.data stage TraceMe on the host):
// its id, and its category ("preprocessing", "read", "enqueue", …).
inline constexpr std::string_view kInputPipelineStageId = "_ipl_stage_id";
inline constexpr std::string_view kInputPipelineStageCategory = "_ipl_stage_cat";
inline constexpr std::string_view kFlops = "flops";
inline constexpr std::string_view kBytesAccessed = "bytes_accessed";
inline constexpr std::string_view kName = "name";
inline constexpr std::string_view kDeviceOffsetPs = "device_offset_ps";
inline constexpr std::string_view kDeviceDurationPs = "device_duration_ps";
// A TPU step's time waiting on the host.
inline constexpr std::string_view kStepIdleTimePs = "step_idle_time_ps";
inline constexpr std::string_view kGroupId = "group_id";
inline constexpr std::string_view kStepNum = "step_num";
inline constexpr std::string_view kStepName = "step_name";
inline constexpr std::string_view kIterNum = "iter_num";
// `id` is an iterator's own id on tf.data events and the step id on
// ExecutorState::Process events; `parent_id` is a tf.data iterator's parent,
// `element_id` the element a prefetch or map produced or consumed.
inline constexpr std::string_view kId = "id";
inline constexpr std::string_view kParentId = "parent_id";
inline constexpr std::string_view kElementId = "element_id";
inline constexpr std::string_view kCudaGraphExecId = "cuda_graph_exec_id";
// A kernel that is a node of a CUDA graph names the graph.
inline constexpr std::string_view kCudaGraphId = "cuda_graph_id";
inline constexpr std::string_view kScopeRangeId = "scope_range_id";
// The GPU a host-side kernel launch targets.
inline constexpr std::string_view kDeviceId = "device_id";
// An XLA op's Python line ("file:line").
inline constexpr std::string_view kSourceInfo = "source";
inline constexpr std::string_view kRawBytesAccessed = "raw_bytes_accessed";
inline constexpr std::string_view kShapeWithLayout = "shape_with_layout";
// TraceMe context stats: a step root (its level), an async event, and the
// producer/consumer pairs that link events across threads.
inline constexpr std::string_view kIsRoot = "_r";
// Stats xprof's preprocessing joins host and TPU events by (TPU runtime
// launches and request queues; ids as the runtime writes them).
inline constexpr std::string_view kRunId = "run_id";
inline constexpr std::string_view kQueueId = "queue_id";
inline constexpr std::string_view kDeviceOrdinal = "device_ordinal";
inline constexpr std::string_view kCoreType = "core_type";
inline constexpr std::string_view kRequestId = "request_id";
inline constexpr std::string_view kQueueAddr = "queue_addr";
// A TraceContext root's kind ("train", "eval"): it prefixes the step's name.
inline constexpr std::string_view kGraphType = "graph_type";
inline constexpr std::string_view kIsAsync = "_a";
inline constexpr std::string_view kProducerType = "_pt";
inline constexpr std::string_view kProducerId = "_p";
inline constexpr std::string_view kConsumerType = "_ct";
inline constexpr std::string_view kConsumerId = "_c";
// Links join only events of one process: an event's process is its plane's
// `process_id` stat (a plane stat, when the plane has one), or, for the
// consumer end, its own `_pid` stat.
inline constexpr std::string_view kConsumerPid = "_pid";
inline constexpr std::string_view kProcessId = "process_id";
// Plane stats (device capabilities).
inline constexpr std::string_view kDeviceVendor = "device_vendor";
inline constexpr std::string_view kComputeCapMajor = "compute_cap_major";
inline constexpr std::string_view kComputeCapMinor = "compute_cap_minor";
inline constexpr std::string_view kGpuDeviceName = "gpu_device_name";
inline constexpr std::string_view kDeviceTypeString = "device_type_string";
inline constexpr std::string_view kVendorNvidia = "Nvidia";
inline constexpr std::string_view kVendorAmd = "AMD";
// Plane stats of the Task Environment plane: the profiler session's walltime (ns).
inline constexpr std::string_view kProfileStartTime = "profile_start_time";
inline constexpr std::string_view kProfileStopTime = "profile_stop_time";

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
        step_num(space.Find(kStepNum)),
        ipl_stage_id(space.Find(kInputPipelineStageId)),
        ipl_stage_category(space.Find(kInputPipelineStageCategory)),
        group_id(space.Find(kGroupId)),
        cuda_graph_exec_id(space.Find(kCudaGraphExecId)),
        cuda_graph_id(space.Find(kCudaGraphId)),
        scope_range_id(space.Find(kScopeRangeId)),
        source_info(space.Find(kSourceInfo)),
        is_async(space.Find(kIsAsync)),
        device_id(space.Find(kDeviceId)) {}

  StrId tf_op, level0, hlo_op, hlo_module, hlo_category, program_id, correlation_id, kernel_details, equation,
      shape, is_eager, flops, bytes_accessed, name, device_offset_ps, device_duration_ps, step_num, ipl_stage_id,
      ipl_stage_category, group_id, cuda_graph_exec_id, cuda_graph_id, scope_range_id, source_info, is_async,
      device_id;

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
  // The XLA program a device op ran in: its own or its metadata's
  // `program_id` (as an integer, IntOrUintValue), none without the stat.
  std::optional<int64_t> ProgramId(const XPlaneModel& p, uint32_t e) const {
    const Stat* s = program_id == kNoStr ? nullptr : p.FindEventOrMetadataStat(e, program_id);
    return s ? std::optional<int64_t>(s->IntValue()) : std::nullopt;
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
