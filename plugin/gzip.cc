#include "plugin/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>

#include "convert/base/strings.h"

namespace tbprof {

StatusOr<std::string> GzipCompress(std::string_view data, int level) {
  z_stream zs{};
  // windowBits 15 + 16 selects the gzip wrapper instead of zlib's.
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Internal("gzip: deflateInit2 failed");
  }
  // zlib counts in 32-bit uInt: the input is fed, and the output given room,
  // at most kStep bytes per call, so bodies past 4 GiB are compressed whole.
  constexpr size_t kStep = size_t{1} << 30;
  std::string out;
  // Room for a typical ratio first, grown as needed: sizing for the worst
  // case (about the input's size) would write, and so make resident, a second
  // copy of a large answer that compresses to a tenth of it.
  const size_t bound = std::min<size_t>(deflateBound(&zs, static_cast<uLong>(std::min(data.size(), kStep))) + 32, kStep);
  out.resize(std::min(bound, std::max(data.size() / 8, size_t{1} << 16)));
  size_t fed = 0, produced = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (zs.avail_in == 0 && fed < data.size()) {
      const size_t n = std::min(data.size() - fed, kStep);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + fed));
      zs.avail_in = static_cast<uInt>(n);
      fed += n;
    }
    if (produced == out.size()) out.resize(out.size() + std::max(out.size() / 2, size_t{1} << 16));
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    zs.avail_out = static_cast<uInt>(std::min(out.size() - produced, kStep));
    const size_t room = zs.avail_out;
    rc = deflate(&zs, fed == data.size() ? Z_FINISH : Z_NO_FLUSH);
    produced += room - zs.avail_out;
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
      deflateEnd(&zs);
      return Internal("gzip: deflate failed (" + std::to_string(rc) + ")");
    }
  }
  deflateEnd(&zs);
  out.resize(produced);
  return out;
}

bool AcceptsGzip(std::string_view header) {
  for (std::string_view item : SplitNonEmpty(header, ',')) {
    size_t semi = std::min(item.find(';'), item.size());
    std::string coding;
    for (char c : item.substr(0, semi)) {
      if (!std::isspace(static_cast<unsigned char>(c))) coding += AsciiLower(c);
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
