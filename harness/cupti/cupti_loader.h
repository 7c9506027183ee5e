// Run-time loading of the CUDA driver and CUPTI (dlopen), so tbprof starts on
// machines without CUDA and says plainly what is missing when asked to trace.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "convert/base/status.h"

namespace tbprof::gpu {

class DynamicLibrary {
 public:
  // Opens the first candidate that loads. The error names what the library is
  // for and every candidate tried with the loader's reason.
  static StatusOr<std::shared_ptr<DynamicLibrary>> Open(const std::vector<std::string>& candidates,
                                                        std::string_view what);
  // Null when the symbol is absent.
  void* Symbol(const char* name) const;
  const std::string& path() const { return path_; }
  // Never dlclose: CUPTI and the driver may still call back into or hold
  // state from the library until process exit.
  ~DynamicLibrary() = default;

 private:
  DynamicLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_;
  std::string path_;
};

// $TBPROF_CUPTI_LIBRARY first when set, then the usual names and CUDA paths.
std::vector<std::string> CuptiLibraryCandidates();
// $TBPROF_CUDA_DRIVER_LIBRARY first when set, then libcuda.so.1.
std::vector<std::string> CudaDriverCandidates();

struct GpuProbe {
  std::string driver_path;
  int driver_version = 0;  // e.g. 13000
  int device_count = 0;
};

// Loads the driver, initialises it and counts devices. Errors say "no GPU"
// in words: driver missing, cuInit's error name, or zero devices.
StatusOr<GpuProbe> ProbeGpu(const std::vector<std::string>& driver_candidates = CudaDriverCandidates());

}  // namespace tbprof::gpu
