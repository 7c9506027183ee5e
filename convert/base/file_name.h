// A file named in a message without the directory it is in: answers go to
// clients, who must not learn where the server keeps its files.
#pragma once

#include <string>
#include <string_view>

namespace tbprof {

// The last component of `path` ("a/b/c.pb" gives "c.pb").
inline std::string FileNameOfPath(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace tbprof
