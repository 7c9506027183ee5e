#include "convert/analysis/device/gpu_datasheets.h"

#include <array>
#include <cctype>

namespace tbprof {
namespace {

struct Entry {
  std::array<std::string_view, 4> names;  // without "NVIDIA " / "Tesla "; "" fills the rest
  GpuDatasheet sheet;
};

// Sources: NVIDIA's datasheets for Tesla V100, V100S, T4, A100 (40 GB and 80 GB),
// A10, L4, H100 and H200, and the Blackwell architecture technical brief for
// HGX B200 (the 1,000 W part). A DGX Station's "V100-DGXS" is the SXM2 module
// at SXM2 clocks (the DGX Station's 500 TFLOPS are four of its 125).
constexpr Entry kDatasheets[] = {
    {{"V100-SXM2-16GB", "V100-SXM2-32GB", "V100-DGXS-16GB", "V100-DGXS-32GB"},
     {"V100 SXM2", 15.7, -1, 125, -1, 900}},
    {{"V100-PCIE-16GB", "V100-PCIE-32GB"}, {"V100 PCIe", 14, -1, 112, -1, 900}},
    {{"V100S-PCIE-32GB"}, {"V100S PCIe", 16.4, -1, 130, -1, 1134}},
    {{"T4"}, {"T4", 8.1, -1, 65, -1, 320}},
    {{"A100-SXM4-40GB"}, {"A100 SXM4 40GB", 19.5, 156, 312, 312, 1555}},
    {{"A100-SXM4-80GB"}, {"A100 SXM4 80GB", 19.5, 156, 312, 312, 2039}},
    {{"A100-PCIE-40GB"}, {"A100 PCIe 40GB", 19.5, 156, 312, 312, 1555}},
    {{"A100 80GB PCIe", "A100-PCIE-80GB"}, {"A100 PCIe 80GB", 19.5, 156, 312, 312, 1935}},
    {{"A10"}, {"A10", 31.2, 62.5, 125, 125, 600}},
    {{"L4"}, {"L4", 30.3, 60, 121, 121, 300}},
    {{"H100 80GB HBM3"}, {"H100 SXM5 80GB", 67, 494.5, 989.5, 989.5, 3350}},
    {{"H100 PCIe"}, {"H100 PCIe", 51, 378, 756.5, 756.5, 2000}},
    {{"H200"}, {"H200 SXM", 67, 494.5, 989.5, 989.5, 4800}},
    {{"B200"}, {"HGX B200", 80, 1100, 2250, 2250, 8000}},
};

bool SameWithoutCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

std::string_view Trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

const GpuDatasheet* GpuDatasheetOf(std::string_view device_name) {
  std::string_view name = Trimmed(device_name);
  for (std::string_view brand : {"NVIDIA ", "Tesla "}) {
    if (name.size() > brand.size() && SameWithoutCase(name.substr(0, brand.size()), brand)) {
      name.remove_prefix(brand.size());
    }
  }
  for (const Entry& e : kDatasheets) {
    for (std::string_view alias : e.names) {
      if (!alias.empty() && SameWithoutCase(alias, name)) return &e.sheet;
    }
  }
  return nullptr;
}

}  // namespace tbprof
