// Small string helpers shared by the layers above (query strings, flag lists,
// header values, markup), so that each format is handled the same way everywhere.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tbprof {

// Splits `text` at every `separator` and leaves out the empty pieces:
// "a,,b," gives {"a", "b"}. The pieces point into `text`.
inline std::vector<std::string_view> SplitNonEmpty(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(separator, pos);
    if (end == std::string_view::npos) end = text.size();
    if (end > pos) pieces.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return pieces;
}

// Numbers for a message ("its steps: 1, 2, 3"), joined by ", ": the first
// `most` of them, then "…" when there are more.
template <typename Numbers>
std::string ListNumbers(const Numbers& numbers, size_t most) {
  std::string out;
  size_t listed = 0;
  for (const auto& n : numbers) {
    if (listed++ == most) return out + ", …";
    out += (out.empty() ? "" : ", ") + std::to_string(n);
  }
  return out;
}

// ASCII case folding, free of the locale: the names, categories and header
// fields compared this way are ASCII.
inline char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
inline std::string AsciiLowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = AsciiLower(c);
  return out;
}
// Whether `text` starts with `prefix`, ignoring ASCII case.
inline bool StartsWithIgnoringAsciiCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (AsciiLower(text[i]) != AsciiLower(prefix[i])) return false;
  }
  return true;
}

// `text` safe inside HTML or XML text and attribute values, quoted with
// either quote: the five characters markup gives meaning to become entities.
inline std::string EscapeMarkup(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace tbprof
