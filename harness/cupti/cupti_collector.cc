#include "harness/cupti/cupti_collector.h"

#include <cxxabi.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "harness/cupti/cupti_loader.h"

#ifdef TBPROF_HAVE_CUPTI_HEADERS
#include <cuda.h>
#include <cupti.h>
#include <cuda_occupancy.h>
#endif

namespace tbprof::gpu {

std::string Demangle(const char* name) {
  if (name == nullptr) return "unknown kernel";
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return name;
  std::string s(out);
  std::free(out);
  return s;
}

std::string ApiCallEventName(const char* symbol_name, const char* function_name) {
  if (symbol_name != nullptr && *symbol_name != '\0') return Demangle(symbol_name);
  return function_name != nullptr && *function_name != '\0' ? function_name : "cuUnknown";
}

#ifndef TBPROF_HAVE_CUPTI_HEADERS

struct CuptiCollector::Impl {};
CuptiCollector::CuptiCollector(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CuptiCollector::~CuptiCollector() = default;
StatusOr<std::unique_ptr<CuptiCollector>> CuptiCollector::Start(const CollectorOptions&) {
  return Unimplemented(
      "this tbprof was built without the CUDA toolkit (no nvcc/CUPTI headers at configure time); "
      "rebuild on a machine with /usr/local/cuda to trace GPUs");
}
uint64_t CuptiCollector::NowNs() const { return 0; }
void CuptiCollector::PushAnnotation(std::string_view) {}
void CuptiCollector::PopAnnotation() {}
StatusOr<GpuTrace> CuptiCollector::Stop() { return Unimplemented("built without CUPTI"); }
StatusOr<std::string> DescribeCuptiLibrary() { return Unimplemented("built without the CUDA toolkit"); }

#else  // TBPROF_HAVE_CUPTI_HEADERS

namespace {

// Open op scopes of this thread, outermost first, with their start times.
thread_local std::vector<std::pair<std::string, uint64_t>> t_annotations;

// The CUPTI and driver entry points used, resolved with dlsym; the types come
// from the headers' declarations.
struct CuptiApi {
  std::shared_ptr<DynamicLibrary> lib;
  decltype(&cuptiGetVersion) GetVersion = nullptr;
  decltype(&cuptiGetResultString) GetResultString = nullptr;
  decltype(&cuptiGetTimestamp) GetTimestamp = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) ActivityRegisterCallbacks = nullptr;
  decltype(&cuptiActivityEnable) ActivityEnable = nullptr;
  decltype(&cuptiActivityDisable) ActivityDisable = nullptr;
  decltype(&cuptiActivityFlushAll) ActivityFlushAll = nullptr;
  decltype(&cuptiActivityGetNextRecord) ActivityGetNextRecord = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) ActivityGetNumDroppedRecords = nullptr;
  decltype(&cuptiSubscribe) Subscribe = nullptr;
  decltype(&cuptiUnsubscribe) Unsubscribe = nullptr;
  decltype(&cuptiEnableCallback) EnableCallback = nullptr;
  decltype(&cuptiGetCallbackName) GetCallbackName = nullptr;
  decltype(&cuptiGetDeviceId) GetDeviceId = nullptr;
};

struct DriverApi {
  std::shared_ptr<DynamicLibrary> lib;
  decltype(&cuDeviceGet) DeviceGet = nullptr;
  decltype(&cuDeviceGetAttribute) DeviceGetAttribute = nullptr;
  decltype(&cuDeviceTotalMem_v2) DeviceTotalMem = nullptr;
  decltype(&cuDeviceGetName) DeviceGetName = nullptr;
};

template <typename Fn>
bool Resolve(const DynamicLibrary& lib, const char* name, Fn& out, std::string& missing) {
  out = reinterpret_cast<Fn>(lib.Symbol(name));
  if (out == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
  return out != nullptr;
}

StatusOr<CuptiApi> LoadCupti() {
  ASSIGN_OR_RETURN(auto lib, DynamicLibrary::Open(CuptiLibraryCandidates(), "CUPTI (libcupti.so, the CUDA profiling library)"));
  CuptiApi api;
  api.lib = lib;
  std::string missing;
  const DynamicLibrary& l = *lib;
  Resolve(l, "cuptiGetVersion", api.GetVersion, missing);
  Resolve(l, "cuptiGetResultString", api.GetResultString, missing);
  Resolve(l, "cuptiGetTimestamp", api.GetTimestamp, missing);
  Resolve(l, "cuptiActivityRegisterCallbacks", api.ActivityRegisterCallbacks, missing);
  Resolve(l, "cuptiActivityEnable", api.ActivityEnable, missing);
  Resolve(l, "cuptiActivityDisable", api.ActivityDisable, missing);
  Resolve(l, "cuptiActivityFlushAll", api.ActivityFlushAll, missing);
  Resolve(l, "cuptiActivityGetNextRecord", api.ActivityGetNextRecord, missing);
  Resolve(l, "cuptiActivityGetNumDroppedRecords", api.ActivityGetNumDroppedRecords, missing);
  Resolve(l, "cuptiSubscribe", api.Subscribe, missing);
  Resolve(l, "cuptiUnsubscribe", api.Unsubscribe, missing);
  Resolve(l, "cuptiEnableCallback", api.EnableCallback, missing);
  Resolve(l, "cuptiGetCallbackName", api.GetCallbackName, missing);
  Resolve(l, "cuptiGetDeviceId", api.GetDeviceId, missing);
  if (!missing.empty()) return NotFound(l.path() + " lacks " + missing + " (CUPTI too old?)");
  uint32_t version = 0;
  api.GetVersion(&version);
  // Activity records are read with this build's struct layouts, which a
  // library of an older major version does not write.
  if (version / 10000 < CUPTI_API_VERSION / 10000)
    return NotFound(l.path() + " is CUPTI " + std::to_string(version) + ", older than the headers tbprof was built with (" +
                    std::to_string(CUPTI_API_VERSION) + ")");
  return api;
}

StatusOr<DriverApi> LoadDriver() {
  ASSIGN_OR_RETURN(auto lib, DynamicLibrary::Open(CudaDriverCandidates(), "NVIDIA CUDA driver library"));
  DriverApi api;
  api.lib = lib;
  std::string missing;
  Resolve(*lib, "cuDeviceGet", api.DeviceGet, missing);
  Resolve(*lib, "cuDeviceGetAttribute", api.DeviceGetAttribute, missing);
  Resolve(*lib, "cuDeviceTotalMem_v2", api.DeviceTotalMem, missing);
  Resolve(*lib, "cuDeviceGetName", api.DeviceGetName, missing);
  if (!missing.empty()) return NotFound((lib)->path() + " lacks " + missing);
  return api;
}

uint64_t WallNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

uint64_t ThreadId() { return static_cast<uint64_t>(syscall(SYS_gettid)); }

// The fields every timed CUPTI activity record carries, copied the same way
// for kernels, copies, memsets and synchronisations; and the device, which a
// synchronisation record does not name.
template <typename Activity, typename Record>
void CopyPlacement(const Activity& a, Record& r) {
  r.start_ns = a.start;
  r.end_ns = a.end;
  r.context_id = a.contextId;
  r.stream_id = a.streamId;
  r.correlation_id = a.correlationId;
  if constexpr (requires { r.device_id = a.deviceId; }) r.device_id = a.deviceId;
}

MemoryKind ToMemoryKind(unsigned k) { return k <= 7 ? static_cast<MemoryKind>(k) : MemoryKind::kUnknown; }

CopyDirection ToDirection(unsigned copy_kind) {
  switch (copy_kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return CopyDirection::kHtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return CopyDirection::kDtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return CopyDirection::kDtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return CopyDirection::kPtoP;
    default: return CopyDirection::kOther;
  }
}

const char* SyncTypeName(unsigned t) {
  switch (t) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "EventSynchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "StreamWaitEvent";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "StreamSynchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "ContextSynchronize";
    default: return "Synchronize";
  }
}

// Driver calls that put work on a device or wait for it.
bool IsTracedDriverCall(std::string_view name) {
  return name.starts_with("cuLaunch") || name.starts_with("cuMemcpy") || name.starts_with("cuMemset") ||
         name.starts_with("cuStreamSynchronize") || name.starts_with("cuCtxSynchronize") ||
         name.starts_with("cuEventSynchronize");
}

// Occupancy inputs read once per device.
struct DeviceLimits {
  cudaOccDeviceProp prop;
  bool valid = false;
};

}  // namespace

struct CuptiCollector::Impl {
  CuptiApi cupti;
  DriverApi driver;
  CollectorOptions options;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::vector<CUpti_ActivityKind> enabled_kinds;
  std::vector<DeviceLimits> limits;
  std::mutex mu;
  GpuTrace trace;  // guarded by mu while tracing

  static Impl* active;

  std::string Describe(CUptiResult r) const {
    const char* s = nullptr;
    cupti.GetResultString(r, &s);
    return std::string(s ? s : "CUPTI error") + " (" + std::to_string(static_cast<int>(r)) + ")";
  }

  uint64_t Now() const {
    uint64_t t = 0;
    cupti.GetTimestamp(&t);
    return t;
  }

  Status ReadDevices(int count) {
    for (int i = 0; i < count; ++i) {
      CUdevice dev;
      if (driver.DeviceGet(&dev, i) != CUDA_SUCCESS) return Internal("cuDeviceGet(" + std::to_string(i) + ") failed");
      auto attr = [&](CUdevice_attribute a) {
        int v = 0;
        driver.DeviceGetAttribute(&v, a, dev);
        return v;
      };
      DeviceInfo d;
      d.ordinal = static_cast<uint32_t>(i);
      char name[256] = {};
      driver.DeviceGetName(name, sizeof name - 1, dev);
      d.name = name;
      d.compute_cap_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
      d.compute_cap_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
      d.core_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
      d.clock_rate_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
      size_t mem = 0;
      driver.DeviceTotalMem(&mem, dev);
      d.memory_size = mem;
      // Double data rate: two transfers per memory clock over the bus width.
      const uint64_t mem_clock_khz = static_cast<uint64_t>(attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE));
      const uint64_t bus_bits = static_cast<uint64_t>(attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH));
      d.memory_bandwidth = 2 * mem_clock_khz * 1000 * bus_bits / 8;
      trace.devices.push_back(d);

      DeviceLimits l;
      l.prop.computeMajor = d.compute_cap_major;
      l.prop.computeMinor = d.compute_cap_minor;
      l.prop.maxThreadsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
      l.prop.maxThreadsPerMultiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
      l.prop.regsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
      l.prop.regsPerMultiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
      l.prop.warpSize = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
      l.prop.sharedMemPerBlock = static_cast<size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
      l.prop.sharedMemPerMultiprocessor =
          static_cast<size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
      l.prop.numSms = d.core_count;
      l.prop.sharedMemPerBlockOptin = static_cast<size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
      l.prop.reservedSharedMemPerBlock = static_cast<size_t>(attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK));
      l.valid = l.prop.maxThreadsPerMultiprocessor > 0;
      limits.push_back(l);
    }
    return Status::Ok();
  }

  // TF's formula: resident blocks per SM × block size / max threads per SM.
  double Occupancy(const KernelRecord& k) const {
    if (k.device_id >= limits.size() || !limits[k.device_id].valid) return 0;
    const cudaOccDeviceProp& prop = limits[k.device_id].prop;
    const int block = k.block[0] * k.block[1] * k.block[2];
    cudaOccFuncAttributes attr;
    attr.maxThreadsPerBlock = prop.maxThreadsPerBlock;
    attr.numRegs = static_cast<int>(k.registers_per_thread);
    attr.sharedSizeBytes = static_cast<size_t>(k.static_shared);
    attr.maxDynamicSharedSizeBytes = static_cast<int>(prop.sharedMemPerBlockOptin);
    cudaOccDeviceState state;
    cudaOccResult result;
    if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &attr, &state, block,
                                                static_cast<size_t>(k.dynamic_shared)) != CUDA_OCC_SUCCESS)
      return 0;
    return 100.0 * result.activeBlocksPerMultiprocessor * block / prop.maxThreadsPerMultiprocessor;
  }

  void ConsumeBuffer(uint8_t* buffer, size_t valid) {
    CUpti_Activity* record = nullptr;
    std::lock_guard<std::mutex> lock(mu);
    while (cupti.ActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
          auto* a = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
          KernelRecord k;
          k.name = Demangle(a->name);
          CopyPlacement(*a, k);
          k.grid[0] = a->gridX, k.grid[1] = a->gridY, k.grid[2] = a->gridZ;
          k.block[0] = a->blockX, k.block[1] = a->blockY, k.block[2] = a->blockZ;
          k.registers_per_thread = a->registersPerThread;
          k.static_shared = a->staticSharedMemory;
          k.dynamic_shared = a->dynamicSharedMemory;
          trace.kernels.push_back(std::move(k));
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
          auto* a = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
          MemcpyRecord m;
          m.direction = ToDirection(a->copyKind);
          m.src_kind = ToMemoryKind(a->srcKind);
          m.dst_kind = ToMemoryKind(a->dstKind);
          m.bytes = a->bytes;
          CopyPlacement(*a, m);
          m.destination_device = a->deviceId;
          m.async = (a->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
          trace.memcpys.push_back(m);
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
          auto* a = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
          MemsetRecord m;
          m.kind = ToMemoryKind(a->memoryKind);
          m.bytes = a->bytes;
          CopyPlacement(*a, m);
          m.async = (a->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) != 0;
          trace.memsets.push_back(m);
          break;
        }
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
          auto* a = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
          SyncRecord s;
          s.type = SyncTypeName(a->type);
          CopyPlacement(*a, s);
          trace.syncs.push_back(std::move(s));
          break;
        }
        default:
          break;
      }
    }
  }

  static void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
    const size_t bytes = active ? active->options.buffer_bytes : (4u << 20);
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, bytes));
    *size = *buffer ? bytes : 0;
    *max_records = 0;
  }

  static void CUPTIAPI BufferCompleted(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
    if (active && buffer && valid > 0) {
      active->ConsumeBuffer(buffer, valid);
      size_t dropped = 0;
      if (active->cupti.ActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped > 0) {
        std::lock_guard<std::mutex> lock(active->mu);
        active->trace.dropped_records += dropped;
      }
    }
    std::free(buffer);
  }

  static void CUPTIAPI OnDriverCall(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId,
                                    const void* data) {
    auto* self = static_cast<Impl*>(userdata);
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API || self == nullptr) return;
    const auto* cb = static_cast<const CUpti_CallbackData*>(data);
    if (cb->callbackSite == CUPTI_API_ENTER) {
      if (cb->correlationData) *cb->correlationData = self->Now();
      return;
    }
    ApiCallRecord r;
    r.name = ApiCallEventName(cb->symbolName, cb->functionName);
    r.end_ns = self->Now();
    r.start_ns = cb->correlationData ? *cb->correlationData : r.end_ns;
    r.thread_id = ThreadId();
    r.correlation_id = cb->correlationId;
    uint32_t device = 0;
    if (cb->context && self->cupti.GetDeviceId(cb->context, &device) == CUPTI_SUCCESS) r.device_id = device;
    if (!t_annotations.empty()) r.annotation = t_annotations.front().first;
    std::lock_guard<std::mutex> lock(self->mu);
    self->trace.api_calls.push_back(std::move(r));
  }

  Status Enable(CUpti_ActivityKind kind, const char* what) {
    CUptiResult r = cupti.ActivityEnable(kind);
    if (r != CUPTI_SUCCESS) return Internal(std::string("cuptiActivityEnable(") + what + ") failed: " + Describe(r));
    enabled_kinds.push_back(kind);
    return Status::Ok();
  }

  void DisableAll() {
    for (CUpti_ActivityKind k : enabled_kinds) cupti.ActivityDisable(k);
    enabled_kinds.clear();
    if (subscriber) {
      cupti.Unsubscribe(subscriber);
      subscriber = nullptr;
    }
  }
};

CuptiCollector::Impl* CuptiCollector::Impl::active = nullptr;

CuptiCollector::CuptiCollector(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CuptiCollector::~CuptiCollector() {
  if (impl_ && Impl::active == impl_.get()) {
    impl_->cupti.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    impl_->DisableAll();
    Impl::active = nullptr;
  }
}

StatusOr<std::unique_ptr<CuptiCollector>> CuptiCollector::Start(const CollectorOptions& options) {
  if (Impl::active != nullptr) return InvalidArgument("a CUPTI collector is already running in this process");
  ASSIGN_OR_RETURN(auto probe, ProbeGpu());
  ASSIGN_OR_RETURN(auto cupti, LoadCupti());
  ASSIGN_OR_RETURN(auto driver, LoadDriver());

  auto impl = std::make_unique<Impl>();
  impl->cupti = std::move(cupti);
  impl->driver = std::move(driver);
  impl->options = options;
  if (Status s = impl->ReadDevices(probe.device_count); !s.ok()) return s;

  Impl* self = impl.get();
  Impl::active = self;
  auto fail = [&](Status s) -> Status {
    self->DisableAll();
    Impl::active = nullptr;
    return s;
  };
  if (CUptiResult r = self->cupti.ActivityRegisterCallbacks(&Impl::BufferRequested, &Impl::BufferCompleted);
      r != CUPTI_SUCCESS)
    return fail(Internal("cuptiActivityRegisterCallbacks failed: " + self->Describe(r)));
  if (Status s = self->Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL"); !s.ok()) return fail(s);
  if (options.trace_memcpy)
    if (Status s = self->Enable(CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"); !s.ok()) return fail(s);
  if (options.trace_memset)
    if (Status s = self->Enable(CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET"); !s.ok()) return fail(s);
  if (options.trace_sync)
    if (Status s = self->Enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION"); !s.ok()) return fail(s);
  if (options.trace_api_calls) {
    if (CUptiResult r = self->cupti.Subscribe(&self->subscriber, &Impl::OnDriverCall, self); r != CUPTI_SUCCESS)
      return fail(Internal("cuptiSubscribe failed: " + self->Describe(r)));
    for (uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; ++cbid) {
      const char* name = nullptr;
      if (self->cupti.GetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) != CUPTI_SUCCESS || !name) continue;
      if (!IsTracedDriverCall(name)) continue;
      self->cupti.EnableCallback(1, self->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
    }
  }
  self->trace.start_gpu_ns = self->Now();
  self->trace.start_walltime_ns = WallNs();
  return std::unique_ptr<CuptiCollector>(new CuptiCollector(std::move(impl)));
}

StatusOr<std::string> DescribeCuptiLibrary() {
  ASSIGN_OR_RETURN(auto api, LoadCupti());
  uint32_t version = 0;
  api.GetVersion(&version);
  return api.lib->path() + " (CUPTI API version " + std::to_string(version) + ")";
}

uint64_t CuptiCollector::NowNs() const { return impl_->Now(); }

void CuptiCollector::PushAnnotation(std::string_view name) { t_annotations.emplace_back(std::string(name), NowNs()); }

void CuptiCollector::PopAnnotation() {
  if (t_annotations.empty()) return;
  AnnotationRecord a;
  a.name = std::move(t_annotations.back().first);
  a.start_ns = t_annotations.back().second;
  a.end_ns = NowNs();
  a.thread_id = ThreadId();
  t_annotations.pop_back();
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->trace.annotations.push_back(std::move(a));
}

StatusOr<GpuTrace> CuptiCollector::Stop() {
  if (Impl::active != impl_.get()) return InvalidArgument("collector already stopped");
  CUptiResult r = impl_->cupti.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  impl_->DisableAll();
  Impl::active = nullptr;
  if (r != CUPTI_SUCCESS) return Internal("cuptiActivityFlushAll failed: " + impl_->Describe(r));
  GpuTrace trace = std::move(impl_->trace);
  for (KernelRecord& k : trace.kernels) k.occupancy_pct = impl_->Occupancy(k);
  return trace;
}

#endif  // TBPROF_HAVE_CUPTI_HEADERS

}  // namespace tbprof::gpu
