// An HTTP request as the handler reads it and the response it gives,
// without any networking: routes.h answers them, http_server.h carries them
// over the wire, and the route helpers (route_util.h) build responses.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tbprof {

struct HttpRequest {
  std::string method = "GET";
  std::string target;  // path and query, as sent
  std::map<std::string, std::string> headers;  // lower-case names
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain";
  std::string body;
  // Set instead of `body` for cached results, which are shared, not copied.
  std::shared_ptr<const std::string> shared_body;
  std::string content_encoding;  // "gzip" when the body is already compressed
  // The body gzip-compressed ahead of time (cached tool results); empty if none.
  std::shared_ptr<const std::string> gzip_body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  // The body is shared with the cache (its memory is accounted there).
  bool from_cache = false;
  // For a failure caused by profile files: those files' versions. The server
  // logs such a failure once per version, not once per request.
  std::string failed_files;

  const std::string& Body() const { return shared_body ? *shared_body : body; }
};

}  // namespace tbprof
