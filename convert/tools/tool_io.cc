#include "convert/tools/tool_io.h"

#include <charconv>
#include <exception>
#include <new>

#include "convert/base/file_name.h"
#include "convert/base/json.h"
#include "convert/base/strings.h"

namespace tbprof {

ProfileFormat ToolInput::FormatOf(size_t i) const {
  if (i < profile_formats.size()) return profile_formats[i];
  return i < profile_paths.size() ? ProfileFormatOfFile(profile_paths[i]) : ProfileFormat::kUnknown;
}

ToolFn Guarded(std::string tool, ToolFn fn) {
  return [tool = std::move(tool), fn = std::move(fn)](const ToolInput& in) -> StatusOr<ToolOutput> {
    try {
      return fn(in);
    } catch (const std::bad_alloc&) {
      return Internal(tool + ": out of memory while converting the profile");
    } catch (const std::exception& e) {
      return Internal(tool + ": conversion failed: " + e.what());
    } catch (...) {
      return Internal(tool + ": conversion failed with an unknown error");
    }
  };
}

namespace {

struct HostLeftOut {
  std::string host, reason;
};

// `left_out` as the first member of the answer's object (or of its first table's).
void NameHostsLeftOut(const std::vector<HostLeftOut>& left_out, ToolOutput& out) {
  if (out.content_type != "application/json" || !out.content_encoding.empty()) return;  // CSV has no place for it
  size_t at = out.body.find_first_not_of(" \n\t\r");
  if (at != std::string::npos && out.body[at] == '[') at = out.body.find_first_not_of(" \n\t\r", at + 1);
  if (at == std::string::npos || out.body[at] != '{') return;
  std::string member = "\"hosts_left_out\":[";
  for (size_t i = 0; i < left_out.size(); ++i) {
    member += i ? ",{" : "{";
    AppendJsonStringMember(member, "\"host\":", left_out[i].host);
    AppendJsonStringMember(member, ",\"reason\":", left_out[i].reason);
    member += '}';
  }
  member += ']';
  const size_t next = out.body.find_first_not_of(" \n\t\r", at + 1);
  if (next != std::string::npos && out.body[next] != '}') member += ',';
  out.body.insert(at + 1, member);
}

}  // namespace

ToolFn LeavingOutUnreadableHosts(ToolFn fn) {
  return [fn = std::move(fn)](const ToolInput& in) -> StatusOr<ToolOutput> {
    StatusOr<ToolOutput> first = fn(in);
    if (first.ok() || in.profile_paths.size() < 2) return first;
    // Each retry names the next unreadable file; the hosts read before are cached by file, so a retry
    // costs the combination, not the loads.
    ToolInput rest = in;
    std::vector<HostLeftOut> left_out;
    StatusOr<ToolOutput> r = first.status();
    while (!r.ok() && rest.profile_paths.size() > 1) {
      size_t i = 0;
      while (i < rest.profile_paths.size() && !IsUnreadableProfileFile(r.status(), rest.profile_paths[i])) ++i;
      if (i == rest.profile_paths.size()) return first;
      left_out.push_back({i < rest.hosts.size() ? rest.hosts[i] : FileNameOfPath(rest.profile_paths[i]),
                          r.status().message()});
      rest.profile_paths.erase(rest.profile_paths.begin() + static_cast<std::ptrdiff_t>(i));
      if (i < rest.hosts.size()) rest.hosts.erase(rest.hosts.begin() + static_cast<std::ptrdiff_t>(i));
      if (i < rest.profile_formats.size()) {
        rest.profile_formats.erase(rest.profile_formats.begin() + static_cast<std::ptrdiff_t>(i));
      }
      r = fn(rest);
    }
    if (!r.ok()) return first;
    NameHostsLeftOut(left_out, *r);
    return r;
  };
}

std::optional<std::string> PercentDecode(std::string_view s, bool plus_is_space) {
  auto hex = [](char h) -> int {
    if (h >= '0' && h <= '9') return h - '0';
    if (h >= 'a' && h <= 'f') return h - 'a' + 10;
    if (h >= 'A' && h <= 'F') return h - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

StatusOr<ToolParams> ParseQuery(std::string_view query) {
  ToolParams params;
  for (std::string_view item : SplitNonEmpty(query, '&')) {
    size_t eq = item.find('=');
    auto key = PercentDecode(item.substr(0, eq), true);
    auto value = PercentDecode(eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1), true);
    if (!key || !value) return InvalidArgument("malformed percent-encoding in the query string");
    params.emplace(std::move(*key), std::move(*value));  // first one wins
  }
  return params;
}

namespace {

// The whole value parsed as a number (no trailing bytes, no NaN), else `fallback`.
template <typename T>
T ParamNumber(const ToolParams& p, const std::string& key, T fallback) {
  auto it = p.find(key);
  if (it == p.end()) return fallback;
  const std::string& s = it->second;
  T v{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size() && v == v ? v : fallback;
}

}  // namespace

int64_t ParamInt(const ToolParams& p, const std::string& key, int64_t fallback) {
  return ParamNumber<int64_t>(p, key, fallback);
}

double ParamDouble(const ToolParams& p, const std::string& key, double fallback) {
  return ParamNumber<double>(p, key, fallback);
}

std::string ParamStr(const ToolParams& p, const std::string& key, const std::string& fallback) {
  auto it = p.find(key);
  return it == p.end() ? fallback : it->second;
}

}  // namespace tbprof
