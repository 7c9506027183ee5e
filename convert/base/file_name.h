// A file named in a message without the directory it is in: answers go to
// clients, who must not learn where the server keeps its files. And the two
// errors every importer gives for a file it cannot read, in one wording.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "convert/base/status.h"

namespace tbprof {

// The last component of `path` ("a/b/c.pb" gives "c.pb").
inline std::string FileNameOfPath(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// A profile file that cannot be read whole (damaged, or cut short): DataLoss
// naming the file, its size and `where` it breaks; it must be captured again.
inline Status DamagedProfileFile(std::string_view path, uint64_t bytes, std::string_view where) {
  return DataLoss(FileNameOfPath(path) + ": this profile file is damaged or incomplete (" + std::to_string(bytes) +
                  " bytes; " + std::string(where) + "); re-capture it");
}

// A profile file of 0 bytes (a capture that wrote nothing).
inline Status EmptyProfileFile(std::string_view path) {
  return DataLoss(FileNameOfPath(path) +
                  ": this profile file is empty (0 bytes): the profiler wrote nothing into it; re-capture it");
}

// Whether `s` is one of the two errors above for the file at `path`: what a run's other hosts can be
// combined without.
inline bool IsUnreadableProfileFile(const Status& s, std::string_view path) {
  return s.code() == ErrorCode::kDataLoss && s.message().starts_with(FileNameOfPath(path) + ": this profile file is ");
}

}  // namespace tbprof
