#include "convert/base/released_pages.h"

#include <sys/mman.h>
#include <unistd.h>

namespace tbprof {

void ReleasePagesWithin(const void* begin, const void* end) {
  static const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first = (reinterpret_cast<uintptr_t>(begin) + page - 1) & ~(page - 1);
  const uintptr_t last = reinterpret_cast<uintptr_t>(end) & ~(page - 1);
  if (first < last) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace tbprof
