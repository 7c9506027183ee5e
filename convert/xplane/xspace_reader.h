// Loads a serialized XSpace (.xplane.pb, or gzip'ed .xplane.pb.gz) into the
// compact model with a hand-written wire decoder. libprotobuf's generated
// XSpace is the reference it is tested and benchmarked against.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "convert/base/status.h"
#include "convert/xplane/load_options.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

// Decodes `bytes`; `source` names the input in error messages.
StatusOr<std::unique_ptr<XSpaceModel>> ParseXSpace(std::string_view bytes, std::string_view source,
                                                   const LoadOptions& options = {});

// Maps (or, for .gz, inflates) and decodes a file.
StatusOr<std::unique_ptr<XSpaceModel>> LoadXSpaceFile(const std::string& path,
                                                      const LoadOptions& options = {});

// Reads a whole file, inflating gzip when the content starts with the gzip magic.
StatusOr<std::string> ReadFileMaybeGzip(const std::string& path, uint64_t max_bytes = kMaxXSpaceBytes);

}  // namespace tbprof
