#include "plugin/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>

namespace tbprof {

StatusOr<std::string> GzipCompress(std::string_view data, int level) {
  z_stream zs{};
  // windowBits 15 + 16 selects the gzip wrapper instead of zlib's.
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Internal("gzip: deflateInit2 failed");
  }
  std::string out;
  out.resize(deflateBound(&zs, static_cast<uLong>(data.size())) + 32);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  size_t written = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Internal("gzip: deflate failed (" + std::to_string(rc) + ")");
  out.resize(written);
  return out;
}

StatusOr<std::string> GzipDecompress(std::string_view data, size_t max_bytes) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return Internal("gzip: inflateInit2 failed");
  std::string out;
  char buf[1 << 16];
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&zs);
      return DataLoss("gzip: corrupt data (zlib error " + std::to_string(rc) + ")");
    }
    out.append(buf, sizeof buf - zs.avail_out);
    if (out.size() > max_bytes) {
      inflateEnd(&zs);
      return DataLoss("gzip: more than " + std::to_string(max_bytes) + " bytes when inflated");
    }
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
      inflateEnd(&zs);
      return DataLoss("gzip: truncated data");
    }
  }
  inflateEnd(&zs);
  return out;
}

bool AcceptsGzip(std::string_view header) {
  size_t pos = 0;
  while (pos < header.size()) {
    size_t comma = std::min(header.find(',', pos), header.size());
    std::string_view item = header.substr(pos, comma - pos);
    pos = comma + 1;
    size_t semi = std::min(item.find(';'), item.size());
    std::string coding;
    for (char c : item.substr(0, semi)) {
      if (!std::isspace(static_cast<unsigned char>(c))) coding += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (coding != "gzip" && coding != "*") continue;
    std::string params;
    for (char c : item.substr(semi)) {
      if (!std::isspace(static_cast<unsigned char>(c))) params += c;
    }
    // "q=0", "q=0.0", "q=0.000" refuse the coding.
    size_t q = params.find("q=");
    if (q != std::string::npos) {
      std::string v = params.substr(q + 2);
      if (!v.empty() && v.find_first_not_of("0.") == std::string::npos) continue;
    }
    return true;
  }
  return false;
}

}  // namespace tbprof
