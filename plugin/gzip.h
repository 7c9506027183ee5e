// gzip (RFC 1952) compression of response bodies with zlib.
#pragma once

#include <string>
#include <string_view>

#include "convert/base/status.h"

namespace tbprof {

// Compresses `data` into a gzip member; `level` is zlib's 1 (fast) … 9 (small).
StatusOr<std::string> GzipCompress(std::string_view data, int level = 6);

// Inflating is Inflate (convert/file_bytes.h), bounded by a limit.

// True when an Accept-Encoding header value allows gzip (a "gzip" or "*"
// coding whose q-value is not 0).
bool AcceptsGzip(std::string_view accept_encoding);

}  // namespace tbprof
