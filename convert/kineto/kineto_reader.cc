#include "convert/kineto/kineto_reader.h"

#include <algorithm>
#include <limits>

#include "convert/base/file_bytes.h"
#include "convert/base/inflate_claimed.h"
#include "convert/kineto/kineto_builder.h"

namespace tbprof {

using kineto_detail::KinetoBuilder;

namespace {

// `release_pages`: `json` is a file mapping whose read pages may be handed back.
StatusOr<std::unique_ptr<XSpaceModel>> Decode(std::string_view json, std::string_view source,
                                              const LoadOptions& options, bool release_pages) {
  KinetoBuilder builder(source, options.parallel_min_bytes);
  RETURN_IF_ERROR(builder.Parse(json, release_pages));
  return builder.Build();
}

}  // namespace

StatusOr<std::unique_ptr<XSpaceModel>> ParseKinetoTrace(std::string_view json, std::string_view source,
                                                        const LoadOptions& options) {
  return Decode(json, source, options, /*release_pages=*/false);
}

StatusOr<std::unique_ptr<XSpaceModel>> LoadKinetoFile(const std::string& path, const LoadOptions& options) {
  MappedFile f;
  const uint64_t max_bytes = options.max_bytes != 0 ? options.max_bytes : kMaxKinetoTraceBytes;
  RETURN_IF_ERROR(f.Open(path, max_bytes));
  if (HasGzipMagic(f.view())) {
    // The inflated text is as large as the JSON: its pages go back behind
    // the parse too, so it is not held beside the whole model.
    return DecodeInflated(f, path, max_bytes, [&](std::string_view bytes) {
      return Decode(bytes, path, options, options.release_decoded_pages);
    });
  }
  auto model = Decode(f.view(), path, options, options.release_decoded_pages);
  RETURN_IF_ERROR(f.CheckUnchanged());
  return model;
}

std::string KinetoFileDamage(const std::string& path) {
  MappedFile f;
  if (!f.Open(path, std::numeric_limits<uint64_t>::max()).ok()) return "";
  const std::string_view bytes = f.view();
  if (bytes.empty()) return "empty";
  if (HasGzipMagic(bytes)) return "";
  // Only the first page or so is read: what leads a JSON object is white space.
  const std::string_view head = bytes.substr(0, std::min<size_t>(bytes.size(), 4096));
  const size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return head.size() < bytes.size() ? "" : "damaged";
  return head[first] == '{' ? "" : "damaged";
}

}  // namespace tbprof
