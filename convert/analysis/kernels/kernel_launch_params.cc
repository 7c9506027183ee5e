#include "convert/analysis/kernels/kernel_launch_params.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace tbprof {
namespace {

std::optional<uint32_t> ParseCount(const std::string& v) {
  char* end = nullptr;
  unsigned long x = std::strtoul(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || v[0] == '-' || x > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(x);
}

// "x,y,z" into `out`; anything else leaves `out` as it was.
bool ParseDims(std::string_view v, uint32_t out[3]) {
  uint32_t tmp[3];
  int n = 0;
  size_t pos = 0;
  while (n < 3) {
    size_t comma = v.find(',', pos);
    std::string part(v.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
    char* end = nullptr;
    unsigned long x = std::strtoul(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0') return false;
    tmp[n++] = static_cast<uint32_t>(x);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (n != 3) return false;
  std::copy(tmp, tmp + 3, out);
  return true;
}

}  // namespace

KernelLaunchParams ParseKernelDetails(std::string_view details) {
  KernelLaunchParams lp;
  size_t pos = 0;
  while (pos <= details.size()) {
    size_t end = details.find_first_of(" \n", pos);
    std::string_view token = details.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? details.size() + 1 : end + 1;
    size_t colon = token.find(':');
    if (colon == std::string_view::npos || token.find(':', colon + 1) != std::string_view::npos) continue;
    std::string_view key = token.substr(0, colon);
    std::string value(token.substr(colon + 1));
    if (key == "regs") lp.regs = ParseCount(value);
    if (key == "static_shared" || key == "group_mem") lp.static_shmem = ParseCount(value);
    if (key == "dynamic_shared") lp.dynamic_shmem = ParseCount(value);
    if (key == "block") ParseDims(value, lp.block);
    if (key == "grid") ParseDims(value, lp.grid);
    if (key == "occ_pct") {
      char* end_of_number = nullptr;
      double pct = std::strtod(value.c_str(), &end_of_number);
      if (!value.empty() && *end_of_number == '\0' && pct > 0 && pct <= 100) lp.occupancy = pct;
    }
  }
  return lp;
}

}  // namespace tbprof
