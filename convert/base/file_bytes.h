// The bytes of a profile file: mapped read-only (never copied, never
// written), or inflated when the file is gzip'ed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "convert/base/status.h"

namespace tbprof {

bool HasGzipMagic(std::string_view head);

// Inflates a gzip stream; `path` names it in errors; more than `max_bytes` out is an error.
StatusOr<std::string> Inflate(std::string_view in, const std::string& path, uint64_t max_bytes);

// A regular file mapped read-only for its lifetime.
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
  // Files over `max_bytes` are refused before anything is mapped.
  Status Open(const std::string& path, uint64_t max_bytes);
  std::string_view view() const;

 private:
  int fd_ = -1;
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace tbprof
