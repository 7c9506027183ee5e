// Dense peak rates and memory bandwidth of NVIDIA datacenter GPUs as their
// public datasheets state them, keyed by the name the CUDA driver gives the
// device (cudaDeviceProp::name: Kineto's deviceProperties[].name, the
// gpu_device_name stat of an xplane's GPU plane). A PyTorch trace records
// that name but neither the clock nor the memory bandwidth, so without these
// figures its roofs would be unknown. Datasheets quote tensor rates "with
// sparsity"; the figures here are the dense ones (half of those).
#pragma once

#include <string_view>

namespace tbprof {

struct GpuDatasheet {
  std::string_view model;  // the datasheet's name of the part, e.g. "A100 SXM4 80GB"
  // TFLOP/s. Below 0: the GPU has no such unit (no TF32 or BF16 tensor cores before Ampere).
  double fp32_tflops = -1;         // CUDA cores, not tensor cores
  double tf32_tflops = -1;         // tensor cores
  double fp16_tflops = -1;         // tensor cores
  double bf16_tflops = -1;         // tensor cores
  double memory_gbps = -1;         // HBM (GDDR on T4, L4, A10), 10^9 bytes/s
};

// The datasheet of a device name as the driver reports it ("NVIDIA A100-SXM4-80GB",
// "Tesla V100-SXM2-16GB"; older drivers leave out "NVIDIA "), compared without case;
// nullptr for a device not in the table, whose peaks stay unknown.
const GpuDatasheet* GpuDatasheetOf(std::string_view device_name);

}  // namespace tbprof
