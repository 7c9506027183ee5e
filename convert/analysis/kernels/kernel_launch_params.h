// Step 1 of kernel_stats: what a kernel's `kernel_details` stat says of its
// launch (registers, shared memory, grid and block, occupancy). Each GPU
// profiler writes it as space-separated key:value words.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tbprof {

// A figure the details do not give is unknown (nullopt), not 0; dimensions
// the details do not give (or give malformed) stay 1.
struct KernelLaunchParams {
  std::optional<uint32_t> regs, static_shmem, dynamic_shmem;
  uint32_t block[3] = {1, 1, 1}, grid[3] = {1, 1, 1};
  std::optional<double> occupancy;
};

// CUDA's tracer writes "regs:R static_shared:S dynamic_shared:D grid:x,y,z
// block:x,y,z occ_pct:P"; ROCm's "grid:… block:… private_mem:P group_mem:G
// occ_pct:0". The group segment is the workgroup's LDS, AMD's shared memory
// (xprof reads no group_mem, and so shows every AMD kernel with 0 bytes). A
// kernel that ran had a theoretical occupancy above 0: ROCm's 0 means it
// was not computed. Words that are not one key:value pair are skipped.
KernelLaunchParams ParseKernelDetails(std::string_view details);

}  // namespace tbprof
