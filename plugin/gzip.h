// gzip (RFC 1952) compression of response bodies with zlib.
#pragma once

#include <string>
#include <string_view>

#include "convert/base/status.h"

namespace tbprof {

// Compresses `data` into a gzip member; `level` is zlib's 1 (fast) … 9 (small).
StatusOr<std::string> GzipCompress(std::string_view data, int level = 6);

// Inflates one gzip member; DataLoss on corrupt input. `max_bytes` bounds
// the output (a small bomb must not exhaust memory).
StatusOr<std::string> GzipDecompress(std::string_view data, size_t max_bytes = size_t{1} << 32);

// True when an Accept-Encoding header value allows gzip (a "gzip" or "*"
// coding whose q-value is not 0).
bool AcceptsGzip(std::string_view accept_encoding);

}  // namespace tbprof
