#include <mma.h>

#include <type_traits>

#include "synthetic/cuda/gpu_kernels.cuh"

namespace tbprof::gpu {
namespace {

constexpr int kSimtTile = 16;

// Shared-memory tiled fp32 GEMM: FFMA only, no tensor cores.
__global__ void sgemm_simt_tiled(const float* a, const float* b, float* c, int m, int n, int k) {
  __shared__ float as[kSimtTile][kSimtTile + 1];
  __shared__ float bs[kSimtTile][kSimtTile + 1];
  const int row = blockIdx.y * kSimtTile + threadIdx.y;
  const int col = blockIdx.x * kSimtTile + threadIdx.x;
  float acc = 0.f;
  for (int t = 0; t < k; t += kSimtTile) {
    const int ak = t + threadIdx.x, bk = t + threadIdx.y;
    as[threadIdx.y][threadIdx.x] = (row < m && ak < k) ? a[(long)row * k + ak] : 0.f;
    bs[threadIdx.y][threadIdx.x] = (bk < k && col < n) ? b[(long)bk * n + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kSimtTile; ++i) acc += as[threadIdx.y][i] * bs[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[(long)row * n + col] = acc;
}

// 64x64 output tile per block of 4 warps, each warp 32x32 = 2x2 WMMA 16x16x16
// fragments. Tiles are staged in shared memory with zero fill, so M, N, K need
// not be multiples of anything. The name says HMMA because that is the
// instruction the tensor-core path compiles to (fp16 and bf16 alike).
constexpr int kBm = 64, kBn = 64, kBk = 32, kPad = 8;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr bool kArchHasBf16Mma = false;
#else
constexpr bool kArchHasBf16Mma = true;
#endif

template <typename T>
__device__ float ToFloat(T v) {
  if constexpr (std::is_same_v<T, __half>) return __half2float(v);
  else return __bfloat162float(v);
}

template <typename T>
__global__ void __launch_bounds__(128) hmma_gemm_wmma(const T* a, const T* b, float* c, int m, int n, int k) {
  if constexpr (std::is_same_v<T, __nv_bfloat16> && !kArchHasBf16Mma) {
    __trap();  // the host never launches bf16 below sm_80
  } else {
    using namespace nvcuda;
    __shared__ __align__(32) T as[kBm][kBk + kPad];
    __shared__ __align__(32) T bs[kBk][kBn + kPad];
    __shared__ __align__(32) float cs[kBm][kBn + 4];
    const int warp = threadIdx.x / 32;
    const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
    const int row0 = blockIdx.y * kBm, col0 = blockIdx.x * kBn;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.f);
    const T zero = T(0.f);
    for (int t = 0; t < k; t += kBk) {
      for (int idx = threadIdx.x; idx < kBm * kBk; idx += blockDim.x) {
        const int r = idx / kBk, cc = idx % kBk;
        const int gr = row0 + r, gc = t + cc;
        as[r][cc] = (gr < m && gc < k) ? a[(long)gr * k + gc] : zero;
      }
      for (int idx = threadIdx.x; idx < kBk * kBn; idx += blockDim.x) {
        const int r = idx / kBn, cc = idx % kBn;
        const int gr = t + r, gc = col0 + cc;
        bs[r][cc] = (gr < k && gc < n) ? b[(long)gr * n + gc] : zero;
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kBk; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa[2];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb[2];
#pragma unroll
        for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], &as[wm + 16 * i][kk], kBk + kPad);
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], &bs[kk][wn + 16 * j], kBn + kPad);
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
          for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 2; ++j)
        wmma::store_matrix_sync(&cs[wm + 16 * i][wn + 16 * j], acc[i][j], kBn + 4, wmma::mem_row_major);
    __syncthreads();
    for (int idx = threadIdx.x; idx < kBm * kBn; idx += blockDim.x) {
      const int r = idx / kBn, cc = idx % kBn;
      const int gr = row0 + r, gc = col0 + cc;
      if (gr < m && gc < n) c[(long)gr * n + gc] = cs[r][cc];
    }
  }
}

__global__ void relu_kernel(float* x, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    x[i] = fmaxf(x[i], 0.f);
}
__global__ void add_kernel(const float* a, const float* b, float* out, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    out[i] = a[i] + b[i];
}
__global__ void mul_kernel(const float* a, const float* b, float* out, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    out[i] = a[i] * b[i];
}
__global__ void scale_bias_kernel(float* x, long n, float scale, float bias) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    x[i] = x[i] * scale + bias;
}

__device__ float HashToUnit(unsigned i, unsigned seed) {
  unsigned h = i * 2654435761u ^ seed * 2246822519u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return (h & 0xffffff) / float(0x800000) - 1.f;
}

template <typename T>
__global__ void fill_random_kernel(T* x, long n, unsigned seed) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    x[i] = T(HashToUnit(static_cast<unsigned>(i), seed));
}

unsigned GridFor(long n) {
  const long blocks = (n + 255) / 256;
  return static_cast<unsigned>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

template <typename T>
void LaunchWmma(const T* a, const T* b, float* c, int m, int n, int k, cudaStream_t s) {
  dim3 grid((n + kBn - 1) / kBn, (m + kBm - 1) / kBm);
  hmma_gemm_wmma<T><<<grid, 128, 0, s>>>(a, b, c, m, n, k);
}

}  // namespace

void LaunchSgemmSimt(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t s) {
  dim3 block(kSimtTile, kSimtTile), grid((n + kSimtTile - 1) / kSimtTile, (m + kSimtTile - 1) / kSimtTile);
  sgemm_simt_tiled<<<grid, block, 0, s>>>(a, b, c, m, n, k);
}
void LaunchHmmaGemm(const __half* a, const __half* b, float* c, int m, int n, int k, cudaStream_t s) {
  LaunchWmma(a, b, c, m, n, k, s);
}
void LaunchHmmaGemm(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n, int k, cudaStream_t s) {
  LaunchWmma(a, b, c, m, n, k, s);
}
void LaunchRelu(float* x, long n, cudaStream_t s) { relu_kernel<<<GridFor(n), 256, 0, s>>>(x, n); }
void LaunchAdd(const float* a, const float* b, float* out, long n, cudaStream_t s) {
  add_kernel<<<GridFor(n), 256, 0, s>>>(a, b, out, n);
}
void LaunchMul(const float* a, const float* b, float* out, long n, cudaStream_t s) {
  mul_kernel<<<GridFor(n), 256, 0, s>>>(a, b, out, n);
}
void LaunchScaleBias(float* x, long n, float scale, float bias, cudaStream_t s) {
  scale_bias_kernel<<<GridFor(n), 256, 0, s>>>(x, n, scale, bias);
}
void FillRandom(float* x, long n, unsigned seed, cudaStream_t s) {
  fill_random_kernel<float><<<GridFor(n), 256, 0, s>>>(x, n, seed);
}
void FillRandom(__half* x, long n, unsigned seed, cudaStream_t s) {
  fill_random_kernel<__half><<<GridFor(n), 256, 0, s>>>(x, n, seed);
}
void FillRandom(__nv_bfloat16* x, long n, unsigned seed, cudaStream_t s) {
  fill_random_kernel<__nv_bfloat16><<<GridFor(n), 256, 0, s>>>(x, n, seed);
}

}  // namespace tbprof::gpu
