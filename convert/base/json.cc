#include "convert/base/json.h"

#include <charconv>
#include <cmath>

namespace tbprof {

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  // 0x80-0xc1 are continuation bytes or overlong two-byte leads; past 0xf4
  // a sequence would encode more than U+10FFFF.
  size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  }
  const auto c1 = static_cast<unsigned char>(s[i + 1]);
  if (c == 0xe0 && c1 < 0xa0) return 0;   // overlong three-byte form
  if (c == 0xed && c1 >= 0xa0) return 0;  // UTF-16 surrogate
  if (c == 0xf0 && c1 < 0x90) return 0;   // overlong four-byte form
  if (c == 0xf4 && c1 >= 0x90) return 0;  // past U+10FFFF
  return n;
}

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = Utf8SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void AppendJsonString(std::string& out, std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      // Most names are plain ASCII: copy the whole stretch at once.
      size_t j = i + 1;
      while (j < s.size()) {
        const auto d = static_cast<unsigned char>(s[j]);
        if (d < 0x20 || d >= 0x80 || d == '"' || d == '\\') break;
        ++j;
      }
      out.append(s.data() + i, j - i);
      i = j;
      continue;
    }
    switch (c) {
      case '"': out.append("\\\""); ++i; continue;
      case '\\': out.append("\\\\"); ++i; continue;
      case '\n': out.append("\\n"); ++i; continue;
      case '\r': out.append("\\r"); ++i; continue;
      case '\t': out.append("\\t"); ++i; continue;
      case '\b': out.append("\\b"); ++i; continue;
      case '\f': out.append("\\f"); ++i; continue;
      default: break;
    }
    if (c < 0x20) {
      out.append("\\u00");
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
      ++i;
    } else if (size_t n = Utf8SequenceLength(s, i); n != 0) {
      out.append(s.data() + i, n);
      i += n;
    } else {
      out.append("\xef\xbf\xbd");
      ++i;
    }
  }
  out.push_back('"');
}

std::string ValidUtf8(std::string_view s) {
  if (IsValidUtf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) {
    if (size_t n = Utf8SequenceLength(s, i); n != 0) {
      out.append(s.data() + i, n);
      i += n;
    } else {
      out.append("\xef\xbf\xbd");
      ++i;
    }
  }
  return out;
}

void AppendJsonStringMember(std::string& out, std::string_view key, std::string_view value) {
  out += key;
  AppendJsonString(out, value);
}

std::string JsonString(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  AppendJsonString(out, s);
  return out;
}

void AppendJsonDouble(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out.append(std::isnan(v) ? "\"NaN\"" : v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, r.ptr);
}

}  // namespace tbprof
