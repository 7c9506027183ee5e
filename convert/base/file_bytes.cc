#include "convert/base/file_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tbprof {

bool HasGzipMagic(std::string_view head) {
  return head.size() >= 2 && static_cast<uint8_t>(head[0]) == 0x1f && static_cast<uint8_t>(head[1]) == 0x8b;
}

StatusOr<std::string> Inflate(std::string_view in, const std::string& path, uint64_t max_bytes) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return Internal(path + ": zlib init failed");
  std::string out;
  out.resize(std::max<size_t>(in.size() * 4, 1 << 16));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(std::min<size_t>(in.size(), 1u << 30));
  size_t fed = zs.avail_in;
  size_t produced = 0;
  int rc = Z_OK;
  while (true) {
    if (produced == out.size()) {
      if (out.size() >= max_bytes) {
        inflateEnd(&zs);
        return InvalidArgument(path + ": decompressed size exceeds " + std::to_string(max_bytes) + " bytes");
      }
      out.resize(std::min<uint64_t>(out.size() * 2, max_bytes));
    }
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    zs.avail_out = static_cast<uInt>(std::min<size_t>(out.size() - produced, 1u << 30));
    size_t before = zs.avail_out;
    rc = inflate(&zs, Z_NO_FLUSH);
    produced += before - zs.avail_out;
    if (zs.avail_in == 0 && fed < in.size()) {
      size_t more = std::min<size_t>(in.size() - fed, 1u << 30);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + fed));
      zs.avail_in = static_cast<uInt>(more);
      fed += more;
    }
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      inflateEnd(&zs);
      return DataLoss(path + ": corrupt gzip data after " + std::to_string(zs.total_in) + " input bytes");
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && fed >= in.size()) {
      inflateEnd(&zs);
      return DataLoss(path + ": truncated gzip data (" + std::to_string(in.size()) + " bytes)");
    }
  }
  inflateEnd(&zs);
  out.resize(produced);
  return out;
}

MappedFile::~MappedFile() {
  if (data_ && data_ != MAP_FAILED) munmap(data_, size_);
  if (fd_ >= 0) close(fd_);
}

Status MappedFile::Open(const std::string& path, uint64_t max_bytes) {
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return NotFound(path + ": " + std::strerror(errno));
  struct stat st;
  if (fstat(fd_, &st) != 0) return NotFound(path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return InvalidArgument(path + ": not a regular file");
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return InvalidArgument(path + ": file is " + std::to_string(st.st_size) +
                           " bytes; files over " + std::to_string(max_bytes) +
                           " bytes are not supported");
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ == 0) return Status::Ok();
  data_ = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
  if (data_ == MAP_FAILED) return Internal(path + ": mmap failed: " + std::strerror(errno));
  madvise(data_, size_, MADV_SEQUENTIAL);
  return Status::Ok();
}

std::string_view MappedFile::view() const {
  return size_ == 0 ? std::string_view() : std::string_view(static_cast<const char*>(data_), size_);
}

}  // namespace tbprof
