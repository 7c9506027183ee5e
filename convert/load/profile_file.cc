#include "convert/load/profile_file.h"

#include <zlib.h>

#include <algorithm>

#include "convert/base/file_bytes.h"
#include "convert/kineto/kineto_reader.h"

namespace tbprof {
namespace {

constexpr size_t kSniffBytes = 64 << 10;

// The first `limit` bytes a gzip stream inflates to (fewer if it is shorter or corrupt).
std::string InflateHead(std::string_view in, size_t limit) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return {};
  std::string out(limit, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(std::min<size_t>(in.size(), 1u << 30));
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(limit);
  while (zs.avail_out > 0) {
    int rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK) break;
  }
  out.resize(limit - zs.avail_out);
  inflateEnd(&zs);
  return out;
}

}  // namespace

bool IsKinetoTraceFileName(std::string_view file_name) {
  return file_name.ends_with(".pt.trace.json") || file_name.ends_with(".pt.trace.json.gz");
}

bool IsJsonFileName(std::string_view file_name) {
  return file_name.ends_with(".json") || file_name.ends_with(".json.gz");
}

bool LooksLikeKinetoTrace(std::string_view head) {
  size_t i = head.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || head[i] != '{') return false;
  // Kineto writes schemaVersion and deviceProperties first and traceEvents
  // after them; other producers (HTA, TraceLens) may put metadata first.
  for (std::string_view key : {"\"traceEvents\"", "\"schemaVersion\"", "\"deviceProperties\""}) {
    if (head.find(key) != std::string_view::npos) return true;
  }
  return false;
}

bool FileLooksLikeKinetoTrace(const std::string& path) {
  MappedFile f;
  if (!f.Open(path, kMaxXSpaceBytes).ok()) return false;
  std::string_view view = f.view();
  std::string head = HasGzipMagic(view) ? InflateHead(view, kSniffBytes)
                                        : std::string(view.substr(0, std::min(view.size(), kSniffBytes)));
  return f.CheckUnchanged().ok() && LooksLikeKinetoTrace(head);
}

StatusOr<std::unique_ptr<XSpaceModel>> LoadProfileFile(const std::string& path, const LoadOptions& options) {
  if (IsJsonFileName(path)) return LoadKinetoFile(path, options);
  return LoadXSpaceFile(path, options);
}

}  // namespace tbprof
