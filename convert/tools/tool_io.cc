#include "convert/tools/tool_io.h"

#include <charconv>
#include <exception>
#include <new>

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
