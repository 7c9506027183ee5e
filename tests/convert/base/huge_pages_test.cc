#include "convert/base/huge_pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tbprof {
namespace {

// The VmFlags of the mapping holding `address`, from /proc/self/smaps.
std::string VmFlagsAt(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return {};
}

bool KernelHasTransparentHugePages() {
  return std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled");
}

// Fresh anonymous memory of `bytes`, unmapped at the end of the test.
struct Mapping {
  explicit Mapping(size_t n) : bytes(n) {
    data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  }
  ~Mapping() { munmap(data, bytes); }
  // An address inside the mapping's 2 MiB-aligned part.
  const void* AlignedInside() const {
    const auto b = reinterpret_cast<uintptr_t>(data);
    return reinterpret_cast<const void*>(((b + (uintptr_t{2} << 20) - 1) & ~((uintptr_t{2} << 20) - 1)) + 64);
  }
  size_t bytes;
  void* data;
};

TEST(HugePages, LargeSpanIsAdvised) {
  Mapping m(size_t{16} << 20);
  ASSERT_NE(m.data, MAP_FAILED);
  EXPECT_EQ(VmFlagsAt(m.AlignedInside()).find(" hg"), std::string::npos);
  AdviseHugePages(m.data, m.bytes);
  EXPECT_EQ(VmFlagsAt(m.AlignedInside()).find(" hg") != std::string::npos, KernelHasTransparentHugePages())
      << VmFlagsAt(m.AlignedInside());
}

TEST(HugePages, SmallSpanIsLeftAlone) {
  Mapping m(kHugePageAdviceMinBytes - 4096);
  ASSERT_NE(m.data, MAP_FAILED);
  AdviseHugePages(m.data, m.bytes);
  EXPECT_EQ(VmFlagsAt(m.data).find(" hg"), std::string::npos) << VmFlagsAt(m.data);
}

TEST(HugePages, NullAndEmptyAreHarmless) {
  AdviseHugePages(nullptr, size_t{64} << 20);
  AdviseHugePages(&kHugePageAdviceMinBytes, 0);
}

TEST(HugePages, ReserveLargeReservesAndAdvises) {
  std::vector<uint64_t> v;
  ReserveLarge(v, size_t{4} << 20);  // 32 MiB
  ASSERT_GE(v.capacity(), size_t{4} << 20);
  EXPECT_TRUE(v.empty());
  const void* inside = v.data() + (size_t{3} << 20);  // 24 MiB in: within the aligned part
  EXPECT_EQ(VmFlagsAt(inside).find(" hg") != std::string::npos, KernelHasTransparentHugePages()) << VmFlagsAt(inside);
}

TEST(HugePages, AssignLargeReplacesTheContents) {
  std::vector<int32_t> v = {1, 2, 3};
  AssignLarge(v, size_t{3} << 20, -7);
  ASSERT_EQ(v.size(), size_t{3} << 20);
  EXPECT_EQ(v.front(), -7);
  EXPECT_EQ(v.back(), -7);
  AssignLarge(v, 2, 5);  // shrinking keeps the buffer
  EXPECT_EQ(v, (std::vector<int32_t>{5, 5}));
}

}  // namespace
}  // namespace tbprof
