// The workload table and runners. cuBLAS is opened with dlopen so tbprof
// starts where it is not installed; the workloads that need it then skip.
#include <dlfcn.h>

#include <chrono>
#include <cmath>
#include <vector>
#include <cublas_api.h>
#include <memory>
#include <string>

#include "synthetic/cuda/gpu_workloads.h"
#include "synthetic/cuda/gpu_kernels.cuh"

namespace tbprof::gpu {
namespace {

Status CudaError(const char* what, cudaError_t e) {
  return Internal(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
#define TBPROF_CUDA(call)                                   \
  do {                                                      \
    if (cudaError_t e_ = (call); e_ != cudaSuccess) return CudaError(#call, e_); \
  } while (0)

// Device buffer freed on scope exit.
template <typename T>
struct DeviceBuffer {
  T* p = nullptr;
  Status Alloc(size_t n) {
    TBPROF_CUDA(cudaMalloc(&p, n * sizeof(T)));
    return Status::Ok();
  }
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
};

struct StreamHandle {
  cudaStream_t s = nullptr;
  ~StreamHandle() {
    if (s) cudaStreamDestroy(s);
  }
};

struct EventPair {
  cudaEvent_t begin = nullptr, end = nullptr;
  Status Create() {
    TBPROF_CUDA(cudaEventCreate(&begin));
    TBPROF_CUDA(cudaEventCreate(&end));
    return Status::Ok();
  }
  ~EventPair() {
    if (begin) cudaEventDestroy(begin);
    if (end) cudaEventDestroy(end);
  }
};

class Scope {
 public:
  Scope(OpAnnotator& a, const char* name) : a_(a) { a_.Push(name); }
  ~Scope() { a_.Pop(); }

 private:
  OpAnnotator& a_;
};

// --- cuBLAS, loaded at run time ------------------------------------------------
struct Cublas {
  decltype(&cublasCreate_v2) Create = nullptr;
  decltype(&cublasDestroy_v2) Destroy = nullptr;
  decltype(&cublasSetStream_v2) SetStream = nullptr;
  // Spelled out: the header also declares a C++ overload of cublasGemmEx.
  using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                      const void*, const void*, cudaDataType, int, const void*, cudaDataType, int,
                                      const void*, void*, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
  GemmExFn GemmEx = nullptr;
  std::string error;
};

const Cublas& LoadCublas() {
  static const Cublas lib = [] {
    Cublas c;
    void* h = nullptr;
    std::string tried;
    for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) {
      if ((h = dlopen(name, RTLD_NOW | RTLD_GLOBAL))) break;
      const char* why = dlerror();
      tried += std::string(" ") + name + " (" + (why ? why : "?") + ")";
    }
    if (!h) {
      c.error = "cuBLAS not found:" + tried;
      return c;
    }
    c.Create = reinterpret_cast<decltype(c.Create)>(dlsym(h, "cublasCreate_v2"));
    c.Destroy = reinterpret_cast<decltype(c.Destroy)>(dlsym(h, "cublasDestroy_v2"));
    c.SetStream = reinterpret_cast<decltype(c.SetStream)>(dlsym(h, "cublasSetStream_v2"));
    c.GemmEx = reinterpret_cast<decltype(c.GemmEx)>(dlsym(h, "cublasGemmEx"));
    if (!c.Create || !c.Destroy || !c.SetStream || !c.GemmEx) c.error = "libcublas lacks cublasGemmEx and friends";
    return c;
  }();
  return lib;
}

// --- workloads ------------------------------------------------------------------
constexpr int kBig = 4096;

// Runs `body(stream)` once unannotated (module load, cuBLAS heuristics), then
// `iters` times under the main op between two CUDA events.
template <typename Body>
Status TimedLoop(const WorkloadInfo& w, int iters, OpAnnotator& ann, cudaStream_t s, WorkloadRun& out, Body body) {
  EventPair ev;
  RETURN_IF_ERROR(ev.Create());
  RETURN_IF_ERROR(body(s));
  TBPROF_CUDA(cudaStreamSynchronize(s));
  TBPROF_CUDA(cudaEventRecord(ev.begin, s));
  {
    Scope op(ann, w.main_op.c_str());
    for (int i = 0; i < iters; ++i)
      RETURN_IF_ERROR(body(s));
  }
  TBPROF_CUDA(cudaEventRecord(ev.end, s));
  TBPROF_CUDA(cudaEventSynchronize(ev.end));
  float ms = 0;
  TBPROF_CUDA(cudaEventElapsedTime(&ms, ev.begin, ev.end));
  out.event_ms = ms;
  out.iters = iters;
  return Status::Ok();
}

struct Shape {
  int m, n, k;
};

// A stream and the three matrices of row-major C = A*B, with A and B filled
// with seeded random values, as every GEMM workload starts.
template <typename TIn, typename TOut>
struct GemmSetup {
  StreamHandle st;
  DeviceBuffer<TIn> a, b;
  DeviceBuffer<TOut> c;
  Status Prepare(Shape sh, unsigned seed, WorkloadRun& out) {
    TBPROF_CUDA(cudaStreamCreate(&st.s));
    RETURN_IF_ERROR(a.Alloc((size_t)sh.m * sh.k));
    RETURN_IF_ERROR(b.Alloc((size_t)sh.k * sh.n));
    RETURN_IF_ERROR(c.Alloc((size_t)sh.m * sh.n));
    FillRandom(a.p, (long)sh.m * sh.k, seed, st.s);
    FillRandom(b.p, (long)sh.k * sh.n, seed + 1, st.s);
    out.flops_per_iter = 2.0 * sh.m * sh.n * sh.k;
    return Status::Ok();
  }
};

float ToHost(float v) { return v; }
float ToHost(__half v) { return __half2float(v); }
float ToHost(__nv_bfloat16 v) { return __bfloat162float(v); }

// Checks 64 sampled entries of row-major C = A*B against a double-precision
// sum on the host, so the reported TFLOP/s are of a correct product.
template <typename TIn, typename TOut>
Status VerifyGemm(const TIn* a, const TIn* b, const TOut* c, Shape sh, cudaStream_t s, const char* what) {
  TBPROF_CUDA(cudaStreamSynchronize(s));
  std::vector<TIn> ha((size_t)sh.m * sh.k), hb((size_t)sh.k * sh.n);
  std::vector<TOut> hc((size_t)sh.m * sh.n);
  TBPROF_CUDA(cudaMemcpy(ha.data(), a, ha.size() * sizeof(TIn), cudaMemcpyDeviceToHost));
  TBPROF_CUDA(cudaMemcpy(hb.data(), b, hb.size() * sizeof(TIn), cudaMemcpyDeviceToHost));
  TBPROF_CUDA(cudaMemcpy(hc.data(), c, hc.size() * sizeof(TOut), cudaMemcpyDeviceToHost));
  unsigned state = 12345;
  for (int t = 0; t < 64; ++t) {
    state = state * 1664525u + 1013904223u;
    const int i = t == 0 ? sh.m - 1 : static_cast<int>(state % sh.m);  // include the ragged corner
    state = state * 1664525u + 1013904223u;
    const int j = t == 0 ? sh.n - 1 : static_cast<int>(state % sh.n);
    double ref = 0;
    for (int x = 0; x < sh.k; ++x) ref += double(ToHost(ha[(size_t)i * sh.k + x])) * ToHost(hb[(size_t)x * sh.n + j]);
    const double got = ToHost(hc[(size_t)i * sh.n + j]);
    // fp32 accumulation error grows like sqrt(k); a 16-bit output adds ~0.4% relative.
    const double tol = 1e-3 * std::sqrt(double(sh.k)) + (sizeof(TOut) == 2 ? 8e-3 : 1e-4) * std::fabs(ref);
    if (!(std::fabs(got - ref) <= tol))
      return Internal(std::string(what) + " computed a wrong product: C[" + std::to_string(i) + "," +
                      std::to_string(j) + "] = " + std::to_string(got) + ", expected " + std::to_string(ref));
  }
  return Status::Ok();
}

// One of our own GEMM kernels (`launch`) timed on C = A*B of shape `sh`
// filled from `seed`, then the product checked; `g` keeps the operands.
template <typename T>
Status TimedOwnGemm(GemmSetup<T, float>& g, const WorkloadInfo& w, Shape sh, unsigned seed, int iters, OpAnnotator& ann,
                    WorkloadRun& out, void (*launch)(const T*, const T*, float*, int, int, int, cudaStream_t)) {
  RETURN_IF_ERROR(g.Prepare(sh, seed, out));
  RETURN_IF_ERROR(TimedLoop(w, iters, ann, g.st.s, out, [&](cudaStream_t s) {
    launch(g.a.p, g.b.p, g.c.p, sh.m, sh.n, sh.k, s);
    return Status::Ok();
  }));
  return VerifyGemm(g.a.p, g.b.p, g.c.p, sh, g.st.s, w.name.c_str());
}

Status SimtGemm(const WorkloadInfo& w, Shape sh, int iters, OpAnnotator& ann, WorkloadRun& out) {
  GemmSetup<float, float> g;
  RETURN_IF_ERROR(TimedOwnGemm<float>(g, w, sh, 1, iters, ann, out, LaunchSgemmSimt));
  {  // the activation after the layer, as a model would have it
    Scope op(ann, "model/dense_fp32/Relu:Relu");
    LaunchRelu(g.c.p, (long)sh.m * sh.n, g.st.s);
  }
  TBPROF_CUDA(cudaStreamSynchronize(g.st.s));
  return Status::Ok();
}

template <typename T>
Status TensorCoreGemm(const WorkloadInfo& w, Shape sh, int iters, OpAnnotator& ann, WorkloadRun& out) {
  GemmSetup<T, float> g;
  return TimedOwnGemm<T>(g, w, sh, 3, iters, ann, out, LaunchHmmaGemm);
}

template <typename T>
Status CublasGemm(const WorkloadInfo& w, Shape sh, cudaDataType type, int iters, OpAnnotator& ann, WorkloadRun& out) {
  const Cublas& lib = LoadCublas();
  if (!lib.error.empty()) {
    out.skipped = lib.error;
    return Status::Ok();
  }
  GemmSetup<T, T> g;
  RETURN_IF_ERROR(g.Prepare(sh, 5, out));
  cublasHandle_t h = nullptr;
  if (cublasStatus_t r = lib.Create(&h); r != CUBLAS_STATUS_SUCCESS)
    return Internal("cublasCreate failed: status " + std::to_string(static_cast<int>(r)));
  std::unique_ptr<cublasContext, decltype(lib.Destroy)> owner(h, lib.Destroy);
  lib.SetStream(h, g.st.s);
  const float alpha = 1.f, beta = 0.f;
  // Row-major C = A*B is column-major C^T = B^T * A^T.
  RETURN_IF_ERROR(TimedLoop(w, iters, ann, g.st.s, out, [&](cudaStream_t) -> Status {
    cublasStatus_t r = lib.GemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, sh.n, sh.m, sh.k, &alpha, g.b.p, type, sh.n, g.a.p,
                                  type, sh.k, &beta, g.c.p, type, sh.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (r != CUBLAS_STATUS_SUCCESS)
      return Internal("cublasGemmEx failed: status " + std::to_string(static_cast<int>(r)));
    return Status::Ok();
  }));
  return VerifyGemm(g.a.p, g.b.p, g.c.p, sh, g.st.s, w.name.c_str());
}

Status Elementwise(const WorkloadInfo& w, int iters, OpAnnotator& ann, WorkloadRun& out) {
  // 64M floats: each kernel runs ~0.25 ms, so launch gaps stay far below the
  // 5% CUPTI-vs-event tolerance.
  const long n = 1L << 26;
  StreamHandle st;
  TBPROF_CUDA(cudaStreamCreate(&st.s));
  DeviceBuffer<float> x, y, z;
  RETURN_IF_ERROR(x.Alloc(n));
  RETURN_IF_ERROR(y.Alloc(n));
  RETURN_IF_ERROR(z.Alloc(n));
  FillRandom(x.p, n, 7, st.s);
  FillRandom(y.p, n, 8, st.s);
  out.flops_per_iter = static_cast<double>(n);
  RETURN_IF_ERROR(TimedLoop(w, iters, ann, st.s, out, [&](cudaStream_t s) {
    LaunchAdd(x.p, y.p, z.p, n, s);
    return Status::Ok();
  }));
  for (int i = 0; i < iters; ++i) {
    {
      Scope op(ann, "model/mul:Mul");
      LaunchMul(z.p, y.p, x.p, n, st.s);
    }
    Scope op(ann, "model/relu:Relu");
    LaunchRelu(x.p, n, st.s);
  }
  TBPROF_CUDA(cudaStreamSynchronize(st.s));
  return Status::Ok();
}

Status Copies(int iters, OpAnnotator& ann, WorkloadRun& out) {
  const size_t bytes = 64u << 20;
  StreamHandle st;
  TBPROF_CUDA(cudaStreamCreate(&st.s));
  DeviceBuffer<char> dev;
  RETURN_IF_ERROR(dev.Alloc(bytes));
  std::unique_ptr<char[]> pageable(new char[bytes]);
  char* pinned = nullptr;
  TBPROF_CUDA(cudaMallocHost(&pinned, bytes));
  std::unique_ptr<char, cudaError_t (*)(void*)> pinned_owner(pinned, cudaFreeHost);
  for (size_t i = 0; i < bytes; i += 4096) pageable[i] = pinned[i] = static_cast<char>(i >> 12);
  for (int i = 0; i < iters; ++i) {
    {
      Scope op(ann, "model/input/pageable:Identity");
      TBPROF_CUDA(cudaMemcpy(dev.p, pageable.get(), bytes, cudaMemcpyHostToDevice));
      TBPROF_CUDA(cudaMemcpy(pageable.get(), dev.p, bytes, cudaMemcpyDeviceToHost));
    }
    Scope op(ann, "model/input/pinned:Identity");
    TBPROF_CUDA(cudaMemcpyAsync(dev.p, pinned, bytes, cudaMemcpyHostToDevice, st.s));
    TBPROF_CUDA(cudaMemcpyAsync(pinned, dev.p, bytes, cudaMemcpyDeviceToHost, st.s));
    TBPROF_CUDA(cudaMemsetAsync(dev.p, 0, bytes, st.s));
    TBPROF_CUDA(cudaStreamSynchronize(st.s));
  }
  out.iters = iters;
  out.bytes_per_iter = 4.0 * bytes;
  return Status::Ok();
}

// Four streams, each a small dense layer (tensor-core GEMM + relu) under
// its own tower op, launched round-robin so they overlap on the device.
Status MultiStream(const WorkloadInfo& w, int iters, OpAnnotator& ann, WorkloadRun& out) {
  constexpr int kStreams = 4, kDim = 1024;
  StreamHandle st[kStreams];
  DeviceBuffer<__half> a[kStreams], b[kStreams];
  DeviceBuffer<float> c[kStreams];
  for (int i = 0; i < kStreams; ++i) {
    TBPROF_CUDA(cudaStreamCreateWithFlags(&st[i].s, cudaStreamNonBlocking));
    RETURN_IF_ERROR(a[i].Alloc(kDim * kDim));
    RETURN_IF_ERROR(b[i].Alloc(kDim * kDim));
    RETURN_IF_ERROR(c[i].Alloc(kDim * kDim));
    FillRandom(a[i].p, kDim * kDim, 10 + i, st[i].s);
    FillRandom(b[i].p, kDim * kDim, 20 + i, st[i].s);
  }
  static const char* kOps[kStreams][2] = {
      {"model/tower_0/MatMul:MatMul", "model/tower_0/Relu:Relu"},
      {"model/tower_1/MatMul:MatMul", "model/tower_1/Relu:Relu"},
      {"model/tower_2/MatMul:MatMul", "model/tower_2/Relu:Relu"},
      {"model/tower_3/MatMul:MatMul", "model/tower_3/Relu:Relu"},
  };
  for (int it = 0; it < iters; ++it)
    for (int i = 0; i < kStreams; ++i) {
      {
        Scope op(ann, kOps[i][0]);
        LaunchHmmaGemm(a[i].p, b[i].p, c[i].p, kDim, kDim, kDim, st[i].s);
      }
      Scope op(ann, kOps[i][1]);
      LaunchRelu(c[i].p, kDim * kDim, st[i].s);
    }
  for (auto& s : st) TBPROF_CUDA(cudaStreamSynchronize(s.s));
  TBPROF_CUDA(cudaGetLastError());
  (void)w;
  out.iters = iters;
  out.flops_per_iter = 2.0 * kDim * kDim * kDim * kStreams;
  return Status::Ok();
}

}  // namespace

const std::vector<WorkloadInfo>& Workloads() {
  static const std::vector<WorkloadInfo> w = {
      {"fp32_simt_gemm", "fp32 GEMM 2048^3 on CUDA cores (tiled FFMA)", "model/dense_fp32/MatMul:MatMul", false, true, 7},
      {"fp16_tc_gemm", "fp16 WMMA GEMM 4096^3 (dims divisible by 8)", "model/dense_fp16/MatMul:MatMul", true, true, 7},
      {"fp16_tc_gemm_odd", "fp16 WMMA GEMM 4001x3999x4003 (not divisible by 8)", "model/dense_fp16_odd/MatMul:MatMul",
       true, true, 7},
      {"bf16_tc_gemm", "bf16 WMMA GEMM 4096^3", "model/dense_bf16/MatMul:MatMul", true, true, 8},
      {"bf16_tc_gemm_odd", "bf16 WMMA GEMM 4001x3999x4003", "model/dense_bf16_odd/MatMul:MatMul", true, true, 8},
      {"cublas_fp16_gemm", "cublasGemmEx fp16 8192^3, fp32 compute", "model/cublas_fp16/MatMul:MatMul", true, false, 7},
      {"cublas_fp32_gemm", "cublasGemmEx fp32 4096^3, CUBLAS_COMPUTE_32F (no TF32)", "model/cublas_fp32/MatMul:MatMul",
       false, false, 7},
      {"elementwise", "AddV2, Mul, Relu over 64M floats", "model/add:AddV2", false, true, 7},
      {"copies", "64 MiB H2D/D2H, pageable (sync) and pinned (async), memset", "", false, true, 7},
      {"multi_stream", "4 streams of fp16 1024^3 GEMM + Relu", "", true, true, 7},
  };
  return w;
}

Status RunWorkload(const std::string& name, int iters, OpAnnotator& ann, WorkloadRun& out) {
  const WorkloadInfo* w = nullptr;
  for (const WorkloadInfo& x : Workloads())
    if (x.name == name) w = &x;
  if (w == nullptr) return InvalidArgument("unknown GPU workload '" + name + "'");
  int major = 0, minor = 0;
  std::string device;
  RETURN_IF_ERROR(DeviceComputeCapability(major, minor, device));
  if (major < w->min_compute_major) {
    out.skipped = "needs compute capability " + std::to_string(w->min_compute_major) + ".0, device has " +
                  std::to_string(major) + "." + std::to_string(minor);
    return Status::Ok();
  }
  Status s;
  if (name == "fp32_simt_gemm") s = SimtGemm(*w, {2048, 2048, 2048}, iters, ann, out);
  else if (name == "fp16_tc_gemm") s = TensorCoreGemm<__half>(*w, {kBig, kBig, kBig}, iters, ann, out);
  else if (name == "fp16_tc_gemm_odd") s = TensorCoreGemm<__half>(*w, {4001, 3999, 4003}, iters, ann, out);
  else if (name == "bf16_tc_gemm") s = TensorCoreGemm<__nv_bfloat16>(*w, {kBig, kBig, kBig}, iters, ann, out);
  else if (name == "bf16_tc_gemm_odd") s = TensorCoreGemm<__nv_bfloat16>(*w, {4001, 3999, 4003}, iters, ann, out);
  else if (name == "cublas_fp16_gemm") s = CublasGemm<__half>(*w, {8192, 8192, 8192}, CUDA_R_16F, iters, ann, out);
  else if (name == "cublas_fp32_gemm") s = CublasGemm<float>(*w, {kBig, kBig, kBig}, CUDA_R_32F, iters, ann, out);
  else if (name == "elementwise") s = Elementwise(*w, iters, ann, out);
  else if (name == "copies") s = Copies(iters, ann, out);
  else if (name == "multi_stream") s = MultiStream(*w, iters, ann, out);
  if (!s.ok()) return s;
  TBPROF_CUDA(cudaGetLastError());
  return Status::Ok();
}

Status RunSmallKernelLoop(int count, double& seconds) {
  const long n = 1L << 22;
  static float* x = nullptr;  // kept across calls: allocation is not what is measured
  static cudaStream_t s = nullptr;
  if (x == nullptr) {
    TBPROF_CUDA(cudaMalloc(&x, n * sizeof(float)));
    TBPROF_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    FillRandom(x, n, 99, s);
    LaunchScaleBias(x, n, 1.f, 0.f, s);
    TBPROF_CUDA(cudaStreamSynchronize(s));
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) LaunchScaleBias(x, n, 0.999f, 0.001f, s);
  TBPROF_CUDA(cudaStreamSynchronize(s));
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  TBPROF_CUDA(cudaGetLastError());
  return Status::Ok();
}

Status DeviceComputeCapability(int& major, int& minor, std::string& name) {
  cudaDeviceProp p;
  TBPROF_CUDA(cudaGetDeviceProperties(&p, 0));
  major = p.major;
  minor = p.minor;
  name = p.name;
  return Status::Ok();
}

}  // namespace tbprof::gpu
