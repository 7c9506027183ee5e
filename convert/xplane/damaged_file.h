// What a user is told about a profile file that cannot be read: that it is
// empty, or damaged or cut short (and where), and to capture it again. The
// file is named without its directory (the messages reach clients).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "convert/base/status.h"

namespace tbprof {

// (An empty file: EmptyProfileFile, convert/base/file_name.h.)
// The error for `bytes` (all of a profile named `source`) that the decoder
// rejected at `error_offset`: DataLoss, naming the size and, for bytes cut
// short, the innermost message they end inside ("an event", "a stat", …).
Status DamagedFile(std::string_view bytes, std::string_view source, uint64_t error_offset);

// A cheap look at a listed profile, for marking it in host lists: "empty"
// (0 bytes), "damaged" (its top-level structure runs past its end or is not
// an XSpace's), or "" (it looks whole; decoding may still find damage inside).
std::string XSpaceFileDamage(const std::string& path);

}  // namespace tbprof
