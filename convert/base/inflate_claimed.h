// Inflation whose buffer stays claimed from the thread's memory grant
// (memory_grant.h) while the caller decodes it: the loaders hold the inflated
// bytes beside the model they build from them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "convert/base/file_bytes.h"
#include "convert/base/memory_grant.h"

namespace tbprof {

// Inflates the gzip'ed mapped file `f` and returns `decode(bytes)`, the
// inflated bytes claimed while it runs; a change of the file during the
// inflation outranks what was read.
template <typename Fn>
auto DecodeInflated(const MappedFile& f, const std::string& path, uint64_t max_bytes, Fn&& decode)
    -> decltype(decode(std::string_view())) {
  uint64_t claimed = 0;
  auto inflated = InflateKeepingClaim(f.view(), path, max_bytes, &claimed);
  if (Status changed = f.CheckUnchanged(); !changed.ok() || !inflated.ok()) {
    ReleaseMemory(claimed);
    return changed.ok() ? inflated.status() : changed;
  }
  auto decoded = decode(std::string_view(*inflated));
  ReleaseMemory(claimed);
  return decoded;
}

}  // namespace tbprof
