#include "convert/tools/model_image_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "convert/load/profile_format.h"
#include "convert/model/model_image.h"

namespace tbprof {
namespace {

constexpr char kMagic[] = "TBPIMG";
constexpr size_t kMagicBytes = 6;
constexpr uint16_t kFileVersion = 1;
constexpr size_t kHeaderBytes = kKeptFileHeadBytes;

// Reads the file front to back through a buffer: the image is many small
// pieces (each string, each metadata) between its large arrays, which are
// read straight into place.
class BufferedFile {
 public:
  BufferedFile(int fd, uint64_t size, std::string path) : fd_(fd), size_(size), path_(std::move(path)) {}

  Status Read(void* dst, size_t n) {
    char* out = static_cast<char*>(dst);
    const size_t from_buffer = std::min(n, buffer_.size() - at_);
    std::memcpy(out, buffer_.data() + at_, from_buffer);
    at_ += from_buffer;
    out += from_buffer;
    n -= from_buffer;
    if (n == 0) return Status::Ok();
    if (n >= kBufferBytes) return ReadAt(out, n);
    buffer_.resize(std::min<uint64_t>(kBufferBytes, size_ - offset_));
    if (buffer_.size() < n) return Short();
    RETURN_IF_ERROR(ReadAt(buffer_.data(), buffer_.size()));
    std::memcpy(out, buffer_.data(), n);
    at_ = n;
    return Status::Ok();
  }

 private:
  static constexpr size_t kBufferBytes = size_t{1} << 20;
  // Exactly `n` bytes at the file's next offset.
  Status ReadAt(char* out, size_t n) {
    if (ReadFullyAt(fd_, offset_, out, n) != 0) return Short();
    offset_ += n;
    return Status::Ok();
  }
  Status Short() const { return DataLoss(path_ + " ends early (it changed while it was read?)"); }
  int fd_;
  uint64_t size_, offset_ = 0;
  std::string path_;
  std::string buffer_;
  size_t at_ = 0;
};

}  // namespace

bool ModelImagePays(const std::string& profile_path) {
  const ProfileFormat format = ProfileFormatOfFile(profile_path);
  if (format == ProfileFormat::kKinetoTrace) return true;
  if (format != ProfileFormat::kXPlane) return false;
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(profile_path, ec);
  return !ec && size >= kXPlaneImageMinBytes;
}

std::string ModelImagePathFor(const std::string& summary_path, std::string_view suffix) {
  std::string_view path(summary_path);
  if (path.ends_with(kSummarySuffix)) path.remove_suffix(std::string_view(kSummarySuffix).size());
  return std::string(path).append(suffix);
}

Status WriteModelImageFile(const std::string& image_path, const ProfileIdentity& identity, const XSpaceModel& model) {
  return WriteSummaryFileInPieces(image_path, [&](const ByteSink& sink) {
    std::string header;
    PutKeptFileHead(header, std::string_view(kMagic, kMagicBytes), kFileVersion, identity);
    RETURN_IF_ERROR(sink(header));
    return WriteModelImage(model, sink);
  });
}

StatusOr<std::unique_ptr<XSpaceModel>> ReadModelImageFile(const std::string& image_path,
                                                          const ProfileIdentity& expected) {
  ASSIGN_OR_RETURN(UniqueFd fd, OpenSummaryFile(image_path));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return DataLoss(image_path + " is not a regular file");
  const auto size = static_cast<uint64_t>(st.st_size);
  std::string header(kHeaderBytes, '\0');
  BufferedFile file(fd.get(), size, image_path);
  if (size < kHeaderBytes || !file.Read(header.data(), kHeaderBytes).ok()) {
    return DataLoss("not a tbprof model image (no header)");
  }
  RETURN_IF_ERROR(CheckKeptFileHead(header, std::string_view(kMagic, kMagicBytes), kFileVersion, expected, "model image"));
  return ReadModelImage([&](void* dst, size_t n) { return file.Read(dst, n); }, size - kHeaderBytes);
}

std::unique_ptr<XSpaceModel> ReadModelImageFor(const std::string& profile_path, const ProfileIdentity& identity,
                                               const SummaryPolicy& policy) {
  for (const std::string& candidate : SummaryCandidates(profile_path, policy, kModelImageSuffix)) {
    auto model = ReadModelImageFile(candidate, identity);
    if (model.ok()) return std::move(*model);
    if (model.status().code() == ErrorCode::kResourceExhausted) return nullptr;  // no room: the import is refused too
    if (model.status().code() != ErrorCode::kNotFound) {
      LogSummaryLine(policy, "model image " + candidate + " ignored: " + model.status().message());
    }
  }
  return nullptr;
}

}  // namespace tbprof
