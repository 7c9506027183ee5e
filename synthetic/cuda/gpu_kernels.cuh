// Kernel launchers shared by the workload files (CUDA sources only).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace tbprof::gpu {

// Row-major C[M,N] = A[M,K] * B[K,N], fp32 on CUDA cores.
void LaunchSgemmSimt(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t s);
// Same with 16-bit inputs on tensor cores (WMMA), fp32 accumulate; any shape.
void LaunchHmmaGemm(const __half* a, const __half* b, float* c, int m, int n, int k, cudaStream_t s);
void LaunchHmmaGemm(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n, int k, cudaStream_t s);

void LaunchRelu(float* x, long n, cudaStream_t s);
void LaunchAdd(const float* a, const float* b, float* out, long n, cudaStream_t s);
void LaunchMul(const float* a, const float* b, float* out, long n, cudaStream_t s);
void LaunchScaleBias(float* x, long n, float scale, float bias, cudaStream_t s);

// Deterministic pseudo-random values in [-1, 1).
void FillRandom(float* x, long n, unsigned seed, cudaStream_t s);
void FillRandom(__half* x, long n, unsigned seed, cudaStream_t s);
void FillRandom(__nv_bfloat16* x, long n, unsigned seed, cudaStream_t s);

}  // namespace tbprof::gpu
