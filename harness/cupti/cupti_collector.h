// Traces CUDA work with CUPTI loaded at run time: the Activity API for
// kernels, memcpy, memset and synchronization, and driver-API callbacks for
// the launches on host threads (as TF's GPU tracer does; runtime calls reach
// the driver, so cudaLaunchKernel is seen as cuLaunchKernel, and its host
// event takes the kernel's name: ApiCallEventName).
//
// Built with the CUPTI headers only when CMake found CUDA
// (TBPROF_HAVE_CUPTI_HEADERS); otherwise Start() explains that.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "convert/base/status.h"
#include "harness/cupti/cupti_trace.h"

namespace tbprof::gpu {

struct CollectorOptions {
  bool trace_memcpy = true;
  bool trace_memset = true;
  bool trace_sync = true;
  bool trace_api_calls = true;
  size_t buffer_bytes = 4u << 20;
};

class CuptiCollector {
 public:
  // One collector at a time per process (CUPTI allows one subscriber).
  static StatusOr<std::unique_ptr<CuptiCollector>> Start(const CollectorOptions& options = {});
  ~CuptiCollector();
  CuptiCollector(const CuptiCollector&) = delete;
  CuptiCollector& operator=(const CuptiCollector&) = delete;

  // CUPTI clock, the one every record uses.
  uint64_t NowNs() const;
  // TF-style op scope on the calling thread; launches inside it give their
  // kernels the outermost open scope as `tf_op`.
  void PushAnnotation(std::string_view name);
  void PopAnnotation();

  // Flushes CUPTI, stops tracing and returns everything recorded.
  StatusOr<GpuTrace> Stop();

  struct Impl;

 private:
  explicit CuptiCollector(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A kernel's name demangled (the mangled name when it is not a C++ one).
std::string Demangle(const char* name);

// The host event name of a driver API call, as TF's GPU tracer writes it: a
// kernel launch takes its kernel's name (CUPTI's symbolName, demangled), any
// other call the API function's ("cuMemcpyHtoDAsync_v2"). The "Launch
// Stats" line counts launches by that: it leaves out events named "cu…".
std::string ApiCallEventName(const char* symbol_name, const char* function_name);

// Loads CUPTI and resolves every entry point the collector uses, without
// touching a GPU: "<path> (CUPTI API version N)", or why it cannot be used.
StatusOr<std::string> DescribeCuptiLibrary();

// RAII form of Push/PopAnnotation; a null collector makes it a no-op.
class ScopedOpAnnotation {
 public:
  ScopedOpAnnotation(CuptiCollector* c, std::string_view name) : c_(c) {
    if (c_) c_->PushAnnotation(name);
  }
  ~ScopedOpAnnotation() {
    if (c_) c_->PopAnnotation();
  }
  ScopedOpAnnotation(const ScopedOpAnnotation&) = delete;
  ScopedOpAnnotation& operator=(const ScopedOpAnnotation&) = delete;

 private:
  CuptiCollector* c_;
};

}  // namespace tbprof::gpu
