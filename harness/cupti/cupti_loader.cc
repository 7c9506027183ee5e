#include "harness/cupti/cupti_loader.h"

#include <dlfcn.h>

#include <cstdlib>

namespace tbprof::gpu {

StatusOr<std::shared_ptr<DynamicLibrary>> DynamicLibrary::Open(const std::vector<std::string>& candidates,
                                                               std::string_view what) {
  std::string tried;
  for (const std::string& c : candidates) {
    if (void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
      return std::shared_ptr<DynamicLibrary>(new DynamicLibrary(h, c));
    }
    const char* why = dlerror();
    tried += "\n  " + c + ": " + (why ? why : "not loadable");
  }
  return NotFound(std::string(what) + " not found; tried:" + tried);
}

void* DynamicLibrary::Symbol(const char* name) const { return dlsym(handle_, name); }

namespace {
void AddEnvCandidate(const char* var, std::vector<std::string>& out) {
  if (const char* v = std::getenv(var); v != nullptr && *v != '\0') out.emplace_back(v);
}
}  // namespace

std::vector<std::string> CuptiLibraryCandidates() {
  std::vector<std::string> c;
  AddEnvCandidate("TBPROF_CUPTI_LIBRARY", c);
  if (!c.empty()) return c;  // an explicit choice is not second-guessed
  c = {"libcupti.so.13", "libcupti.so.12", "libcupti.so"};
  for (const char* root : {static_cast<const char*>(std::getenv("CUDA_HOME")), "/usr/local/cuda"}) {
    if (root == nullptr || *root == '\0') continue;
    c.push_back(std::string(root) + "/lib64/libcupti.so");
    c.push_back(std::string(root) + "/extras/CUPTI/lib64/libcupti.so");
  }
  return c;
}

std::vector<std::string> CudaDriverCandidates() {
  std::vector<std::string> c;
  AddEnvCandidate("TBPROF_CUDA_DRIVER_LIBRARY", c);
  if (!c.empty()) return c;
  return {"libcuda.so.1"};
}

StatusOr<GpuProbe> ProbeGpu(const std::vector<std::string>& driver_candidates) {
  ASSIGN_OR_RETURN(auto lib, DynamicLibrary::Open(driver_candidates, "NVIDIA CUDA driver library (no GPU driver on this machine)"));
  // CUresult is an int-sized enum; these signatures hold for every driver.
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  using VersionFn = int (*)(int*);
  using ErrorNameFn = int (*)(int, const char**);
  auto init = reinterpret_cast<InitFn>((lib)->Symbol("cuInit"));
  auto count = reinterpret_cast<CountFn>((lib)->Symbol("cuDeviceGetCount"));
  auto version = reinterpret_cast<VersionFn>((lib)->Symbol("cuDriverGetVersion"));
  auto error_name = reinterpret_cast<ErrorNameFn>((lib)->Symbol("cuGetErrorName"));
  if (!init || !count || !version)
    return NotFound((lib)->path() + " lacks cuInit/cuDeviceGetCount/cuDriverGetVersion: not a CUDA driver");
  auto describe = [&](int rc) {
    const char* n = nullptr;
    if (error_name) error_name(rc, &n);
    // The toolkit's stub driver cannot name its own errors.
    if (n == nullptr && rc == 34) n = "CUDA_ERROR_STUB_LIBRARY";
    if (n == nullptr && rc == 35) n = "CUDA_ERROR_INSUFFICIENT_DRIVER";
    if (n == nullptr && rc == 100) n = "CUDA_ERROR_NO_DEVICE";
    return std::string(n ? n : "CUDA error") + " (" + std::to_string(rc) + ")";
  };
  GpuProbe probe;
  probe.driver_path = (lib)->path();
  if (int rc = init(0); rc != 0) return NotFound("cuInit failed: " + describe(rc) + ": no usable GPU");
  version(&probe.driver_version);
  if (int rc = count(&probe.device_count); rc != 0)
    return NotFound("cuDeviceGetCount failed: " + describe(rc));
  if (probe.device_count == 0) return NotFound("the CUDA driver reports no GPU device");
  return probe;
}

}  // namespace tbprof::gpu
