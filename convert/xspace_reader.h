// Loads a serialized XSpace (.xplane.pb, or gzip'ed .xplane.pb.gz) into the
// compact model with a hand-written wire decoder. libprotobuf's generated
// XSpace is the reference it is tested and benchmarked against.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "convert/status.h"
#include "convert/xspace_model.h"

namespace tbprof {

// Files past this size are rejected with a clear error rather than decoded
// (event indices are 32-bit, and libprotobuf itself stops at 2 GiB).
inline constexpr uint64_t kMaxXSpaceBytes = uint64_t{4} << 30;

struct LoadOptions {
  // Return already-decoded pages of the mapped file to the kernel while
  // decoding, so the peak footprint is the model plus a small window.
  bool release_decoded_pages = true;
  uint64_t max_bytes = kMaxXSpaceBytes;
};

// Decodes `bytes`; `source` names the input in error messages.
StatusOr<std::unique_ptr<XSpaceModel>> ParseXSpace(std::string_view bytes, std::string_view source);

// Maps (or, for .gz, inflates) and decodes a file.
StatusOr<std::unique_ptr<XSpaceModel>> LoadXSpaceFile(const std::string& path,
                                                      const LoadOptions& options = {});

// Reads a whole file, inflating gzip when the content starts with the gzip magic.
StatusOr<std::string> ReadFileMaybeGzip(const std::string& path, uint64_t max_bytes = kMaxXSpaceBytes);

}  // namespace tbprof
