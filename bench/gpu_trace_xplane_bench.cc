// Cost of turning recorded CUPTI activity into XPlanes (paid once at the end
// of a GPU trace): kernels with launches and op annotations, per record.
#include <benchmark/benchmark.h>

#include "harness/cupti/cupti_xplane.h"

namespace {

tbprof::gpu::GpuTrace MakeTrace(int kernels) {
  tbprof::gpu::GpuTrace t;
  t.start_gpu_ns = 1'000'000;
  t.start_walltime_ns = 1'700'000'000'000'000'000ull;
  t.devices.push_back({});
  static const char* kOps[] = {"model/dense/MatMul:MatMul", "model/relu:Relu", "model/add:AddV2"};
  static const char* kNames[] = {"void hmma_gemm_wmma<__half>(__half const*, __half const*, float*, int, int, int)",
                                 "void relu_kernel(float*, long)", "void add_kernel(float const*, float const*, float*, long)"};
  for (int i = 0; i < kernels; ++i) {
    tbprof::gpu::KernelRecord k;
    k.name = kNames[i % 3];
    k.start_ns = t.start_gpu_ns + 10ull * i;
    k.end_ns = k.start_ns + 8;
    k.stream_id = 7 + i % 4;
    k.correlation_id = static_cast<uint32_t>(i + 1);
    k.grid[0] = 64, k.block[0] = 128, k.registers_per_thread = 64, k.occupancy_pct = 50;
    t.kernels.push_back(k);
    tbprof::gpu::ApiCallRecord c;
    c.name = "cuLaunchKernel";
    c.start_ns = k.start_ns - 5;
    c.end_ns = k.start_ns - 2;
    c.thread_id = 100;
    c.correlation_id = k.correlation_id;
    c.annotation = kOps[i % 3];
    t.api_calls.push_back(c);
  }
  return t;
}

void BM_GpuTraceToXSpace(benchmark::State& state) {
  const tbprof::gpu::GpuTrace trace = MakeTrace(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    tensorflow::profiler::XSpace space;
    tbprof::gpu::AddGpuTraceToXSpace(trace, space);
    benchmark::DoNotOptimize(space.planes_size());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_GpuTraceToXSpace)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
