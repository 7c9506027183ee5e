// The helpers the request handler's files share (route_util.h).
#include "plugin/route_util.h"

#include <unistd.h>

#include <algorithm>

#include "convert/base/memory_grant.h"
#include "plugin/gzip.h"

namespace tbprof {
namespace {

constexpr size_t kGzipAheadMinBytes = 1024;  // smaller cached bodies are sent as they are

// Deflate writes at least one bit per 258 bytes out (1032:1 at most), so a
// single-member trailer stating more than that of the file cannot be true: the
// file is cut or damaged and its last four bytes are compressed data.
constexpr uint64_t kMaxDeflateRatio = 1032;
// What a gzip'ed profile whose trailer is no size is assumed to inflate to for
// admission (JSON traces inflate 5-15x); the work's claims ask for more.
constexpr uint64_t kAssumedGzipRatio = 8;

// The size `path`'s gzip trailer states: nullopt when not gzip'ed, 0 when the
// trailer cannot be read, UINT64_MAX when it cannot be true. The trailer is
// read through a confined descriptor (see route_util.h).
std::optional<uint64_t> GzipStatedSize(const std::string& path, uint64_t file_size) {
  auto fd = OpenForRead(path);
  if (!fd.ok() || file_size < 18) return std::nullopt;
  unsigned char head[2], tail[4];
  if (pread(fd->get(), head, 2, 0) != 2 || !HasGzipMagic(std::string_view(reinterpret_cast<char*>(head), 2))) {
    return std::nullopt;
  }
  if (pread(fd->get(), tail, 4, static_cast<off_t>(file_size - 4)) != 4) return 0;
  const uint64_t stated = uint64_t{tail[0]} | uint64_t{tail[1]} << 8 | uint64_t{tail[2]} << 16 | uint64_t{tail[3]} << 24;
  return stated > file_size * kMaxDeflateRatio ? UINT64_MAX : stated;
}

}  // namespace

std::optional<uint64_t> GzipInflationCap(const std::string& path, uint64_t file_size, uint64_t max_inflated) {
  const std::optional<uint64_t> stated = GzipStatedSize(path, file_size);
  if (!stated) return std::nullopt;
  if (*stated == 0 || *stated == UINT64_MAX) return max_inflated;
  return std::min(std::max(*stated, file_size) + 1, max_inflated);  // + 1: a stream of exactly the stated size passes
}

std::optional<uint64_t> GzipInflatedEstimate(const std::string& path, uint64_t file_size, uint64_t max_inflated) {
  const std::optional<uint64_t> stated = GzipStatedSize(path, file_size);
  if (!stated) return std::nullopt;
  if (*stated == 0) return max_inflated;
  if (*stated == UINT64_MAX) return std::min(file_size * kAssumedGzipRatio, max_inflated);
  return std::min(std::max(*stated, file_size) + 1, max_inflated);
}

void LimitInflationToEstimate(FileAccessScope& scope, const std::string& path, uint64_t max_inflated) {
  auto id = FileIdentityOf(path);
  if (!id.ok()) return;
  if (auto cap = GzipInflationCap(path, id->size, max_inflated)) scope.LimitInflation(path, *cap);
}

HttpResponse Text(int status, std::string body, std::string content_type) {
  HttpResponse r;
  r.status = status;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

HttpResponse FromStatus(const Status& s) {
  switch (s.code()) {
    case ErrorCode::kInvalidArgument:
      return Text(400, s.message());
    case ErrorCode::kPermissionDenied:
      return Text(403, s.message());
    case ErrorCode::kNotFound:
    case ErrorCode::kUnimplemented:
      return Text(404, s.message());
    case ErrorCode::kResourceExhausted:
      return Text(413, s.message());
    case ErrorCode::kDataLoss:
      // The request was fine; the file it names cannot be read (damaged, cut short or empty).
      return Text(422, s.message());
    case ErrorCode::kUnavailable: {
      HttpResponse r = Text(503, s.message());
      r.headers.emplace_back("Retry-After", "1");
      return r;
    }
    default:
      return Text(500, s.message());
  }
}

std::string HeaderOf(const HttpRequest& request, const std::string& lower_case_name) {
  auto it = request.headers.find(lower_case_name);
  return it == request.headers.end() ? std::string() : it->second;
}

StatusOr<std::string> ReadWholeFile(const std::string& path, uint64_t max_bytes) {
  MappedFile f;
  if (Status s = f.Open(path, max_bytes); !s.ok()) return s;
  std::string bytes(f.view());
  if (Status changed = f.CheckUnchanged(); !changed.ok()) return changed;
  return bytes;
}

StatusOr<CacheValue<CachedOutput>> MakeCachedOutput(StatusOr<ToolOutput> out) {
  if (!out.ok()) return out.status();
  auto cached = std::make_shared<CachedOutput>();
  cached->out = std::move(*out);
  // Converters reserve generously; the cache keeps only what the answer uses.
  // Trimming copies the answer, so the copy is claimed first: when the work
  // has no room for a second answer (a whole trace of 400 MB), the entry
  // keeps its slack instead of taking the process past its bound.
  std::string& body = cached->out.body;
  if (body.capacity() > body.size() + body.size() / 16 + 4096 &&
      ClaimMemory(body.size(), "the answer's trimmed copy").ok()) {
    const uint64_t copy = body.size();
    body.shrink_to_fit();
    ReleaseMemory(copy);
  }
  // What the entry really holds: the strings' capacity (not their size) and
  // the allocation of the entry itself.
  size_t bytes = sizeof(CachedOutput) + 64 + cached->out.body.capacity() + cached->out.content_type.capacity() +
                 cached->out.content_encoding.capacity();
  const std::string& type = cached->out.content_type;
  bool compresses = !(type.starts_with("image/") && type != "image/svg+xml") && !type.starts_with("font/") &&
                    type != "application/wasm";
  if (compresses && cached->out.content_encoding.empty() && cached->out.body.size() >= kGzipAheadMinBytes) {
    // Big results compress fast rather than small: they are written once per cache fill.
    auto gz = GzipCompress(cached->out.body, cached->out.body.size() > (8u << 20) ? 1 : 6);
    if (gz.ok()) {
      gz->shrink_to_fit();
      bytes += gz->capacity() + sizeof(std::string) + 64;
      cached->gzipped = std::make_shared<const std::string>(std::move(*gz));
    }
  }
  return CacheValue<CachedOutput>{std::shared_ptr<const CachedOutput>(std::move(cached)), bytes, {}};
}

HttpResponse FromCached(const std::shared_ptr<const CachedOutput>& c) {
  HttpResponse r;
  r.content_type = c->out.content_type;
  r.content_encoding = c->out.content_encoding;
  r.shared_body = std::shared_ptr<const std::string>(c, &c->out.body);  // shares ownership of the entry
  r.gzip_body = c->gzipped;
  r.from_cache = true;
  return r;
}

}  // namespace tbprof
