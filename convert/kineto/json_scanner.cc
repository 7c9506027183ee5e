#include "convert/kineto/json_scanner.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace tbprof {
namespace {

bool IsNumberChar(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// Bytes that end the plain run of a string: the quote, a backslash, control characters.
constexpr auto kStringStop = [] {
  std::array<bool, 256> stop{};
  for (int c = 0; c < 0x20; ++c) stop[c] = true;
  stop['"'] = stop['\\'] = true;
  return stop;
}();

// Whether any of the 8 bytes at `p` is a string stop (the classic SWAR
// tests for a zero byte and for a byte below a bound).
bool WordHasStringStop(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  auto has_zero = [](uint64_t x) { return (x - kOnes) & ~x & kHighs; };
  const uint64_t below_space = (w - kOnes * 0x20) & ~w & kHighs;
  return (has_zero(w ^ (kOnes * '"')) | has_zero(w ^ (kOnes * '\\')) | below_space) != 0;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

NumberShape ShapeOfNumber(std::string_view text) {
  size_t i = 0;
  auto digits = [&] {
    const size_t from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > from;
  };
  if (i < text.size() && text[i] == '-') ++i;
  if (!digits()) return NumberShape::kMalformed;
  NumberShape shape = NumberShape::kInteger;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digits()) return NumberShape::kMalformed;
    shape = NumberShape::kWithFraction;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!digits()) return NumberShape::kMalformed;
    shape = NumberShape::kWithExponent;
  }
  return i == text.size() ? shape : NumberShape::kMalformed;
}

size_t FindLikelyObjectElement(std::string_view text, size_t from, size_t limit) {
  limit = std::min(limit, text.size());
  auto space = [&](size_t i) { return i < limit && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'); };
  for (size_t i = text.find('}', from); i < limit; i = text.find('}', i + 1)) {
    size_t j = i + 1;
    while (space(j)) ++j;
    if (j >= limit || text[j] != ',') continue;
    ++j;
    while (space(j)) ++j;
    if (j + 1 < limit && text[j] == '{') {
      size_t k = j + 1;
      while (space(k)) ++k;
      if (k < limit && text[k] == '"') return j;
    }
  }
  return std::string_view::npos;
}

void JsonScanner::ResumeInArray(size_t pos, int depth) {
  pos_ = std::min(pos, text_.size());
  depth_ = std::clamp(depth, 1, kMaxJsonDepth);
  has_member_[depth_] = 0;
  is_object_[depth_] = 0;
}

void JsonScanner::ContinueAfterContainer(size_t pos) {
  pos_ = std::min(pos, text_.size());
  if (depth_ > 0) --depth_;
}

bool JsonScanner::Fail(std::string what) {
  if (error_.empty()) {
    error_ = std::move(what) + " at byte " + std::to_string(pos_);
    error_offset_ = pos_;
  }
  pos_ = text_.size();
  return false;
}

void JsonScanner::SkipSpace() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
    ++pos_;
  }
}

JsonType JsonScanner::Peek() {
  if (failed()) return JsonType::kInvalid;
  SkipSpace();
  if (pos_ >= text_.size()) return JsonType::kEnd;
  switch (text_[pos_]) {
    case '{': return JsonType::kObject;
    case '[': return JsonType::kArray;
    case '"': return JsonType::kString;
    case 't': return JsonType::kTrue;
    case 'f': return JsonType::kFalse;
    case 'n': return JsonType::kNull;
    case '}':
    case ']': return JsonType::kEnd;
    default: return IsNumberChar(text_[pos_]) ? JsonType::kNumber : JsonType::kInvalid;
  }
}

bool JsonScanner::EnterObject() { return Enter(JsonType::kObject); }

bool JsonScanner::EnterArray() { return Enter(JsonType::kArray); }

bool JsonScanner::Enter(JsonType container) {
  const bool object = container == JsonType::kObject;
  if (Peek() != container) return Fail(object ? "expected an object" : "expected an array");
  if (depth_ >= kMaxJsonDepth) return Fail("JSON nested deeper than " + std::to_string(kMaxJsonDepth));
  ++pos_;
  has_member_[++depth_] = 0;
  is_object_[depth_] = object ? 1 : 0;
  return true;
}

// Before a member of the innermost container: its closing bracket (then
// `closed`) or, after an earlier member, a comma.
bool JsonScanner::ExpectSeparatorBeforeMember(bool* closed, char close) {
  *closed = false;
  if (failed()) return false;
  if (depth_ == 0) return Fail("no open container");
  SkipSpace();
  if (pos_ >= text_.size()) return Fail(std::string("unexpected end of input, expected '") + close + "'");
  if (text_[pos_] == close) {
    ++pos_;
    --depth_;
    *closed = true;
    return true;
  }
  if (has_member_[depth_]) {
    if (text_[pos_] != ',') return Fail(std::string("expected ',' or '") + close + "'");
    ++pos_;
    SkipSpace();
  }
  has_member_[depth_] = 1;
  return true;
}

bool JsonScanner::NextKey(std::string_view* key) {
  bool closed = false;
  if (!ExpectSeparatorBeforeMember(&closed, '}') || closed) return false;
  if (pos_ >= text_.size() || text_[pos_] != '"') return Fail("expected a member name");
  if (!ScanString(key, &key_scratch_)) return false;
  SkipSpace();
  if (pos_ >= text_.size() || text_[pos_] != ':') return Fail("expected ':' after a member name");
  ++pos_;
  return true;
}

bool JsonScanner::NextElement() {
  bool closed = false;
  return ExpectSeparatorBeforeMember(&closed, ']') && !closed;
}

bool JsonScanner::ScanString(std::string_view* out, std::string* scratch) {
  ++pos_;  // the opening quote
  const size_t start = pos_;
  // Fast path: no escape, the string is a view of the input; one table
  // lookup per byte finds the quote, a backslash or a control character.
  // Long strings (call stacks) go eight bytes a word first.
  const char* p = text_.data() + pos_;
  const char* const end = text_.data() + text_.size();
  while (end - p >= 8 && !WordHasStringStop(p)) p += 8;
  while (p != end && !kStringStop[static_cast<unsigned char>(*p)]) ++p;
  pos_ = static_cast<size_t>(p - text_.data());
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '"') {
      *out = text_.substr(start, pos_ - start);
      ++pos_;
      return true;
    }
    if (c == '\\') break;
    if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in a string");
    ++pos_;
  }
  if (pos_ >= text_.size()) return Fail("unterminated string");
  scratch->assign(text_.data() + start, pos_ - start);
  while (pos_ < text_.size()) {
    char c = text_[pos_++];
    if (c == '"') {
      *out = *scratch;
      return true;
    }
    if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in a string");
    if (c != '\\') {
      scratch->push_back(c);
      continue;
    }
    if (pos_ >= text_.size()) break;
    char e = text_[pos_++];
    switch (e) {
      case '"': scratch->push_back('"'); break;
      case '\\': scratch->push_back('\\'); break;
      case '/': scratch->push_back('/'); break;
      case 'b': scratch->push_back('\b'); break;
      case 'f': scratch->push_back('\f'); break;
      case 'n': scratch->push_back('\n'); break;
      case 'r': scratch->push_back('\r'); break;
      case 't': scratch->push_back('\t'); break;
      case 'u': {
        auto hex4 = [&](uint32_t* v) {
          if (pos_ + 4 > text_.size()) return false;
          *v = 0;
          for (int i = 0; i < 4; ++i) {
            int h = HexValue(text_[pos_ + i]);
            if (h < 0) return false;
            *v = *v * 16 + static_cast<uint32_t>(h);
          }
          pos_ += 4;
          return true;
        };
        uint32_t cp = 0;
        if (!hex4(&cp)) return Fail("bad \\u escape");
        if (cp >= 0xD800 && cp < 0xDC00) {
          uint32_t low = 0;
          if (pos_ + 2 <= text_.size() && text_[pos_] == '\\' && text_[pos_ + 1] == 'u') {
            pos_ += 2;
            if (!hex4(&low)) return Fail("bad \\u escape");
          }
          // An unpaired surrogate becomes U+FFFD, so the text stays valid UTF-8.
          cp = low >= 0xDC00 && low < 0xE000 ? 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00) : 0xFFFD;
        } else if (cp >= 0xDC00 && cp < 0xE000) {
          cp = 0xFFFD;
        }
        AppendUtf8(cp, scratch);
        break;
      }
      default: return Fail("bad escape in a string");
    }
  }
  return Fail("unterminated string");
}

bool JsonScanner::ReadString(std::string_view* out) {
  if (Peek() != JsonType::kString) return Fail("expected a string");
  return ScanString(out, &scratch_);
}

bool JsonScanner::ReadNumberText(std::string_view* out) {
  if (Peek() != JsonType::kNumber) return Fail("expected a number");
  size_t start = pos_;
  while (pos_ < text_.size() && IsNumberChar(text_[pos_])) ++pos_;
  *out = text_.substr(start, pos_ - start);
  // The grammar is checked by hand (a trace holds millions of numbers); only
  // an exponent or some 309 digits push a well-formed number past a double's
  // range, so callers may convert any number this returns.
  const NumberShape shape = ShapeOfNumber(*out);
  if (shape == NumberShape::kMalformed ||
      ((shape == NumberShape::kWithExponent || out->size() > 300) && !JsonNumberToDouble(*out))) {
    return Fail("bad number '" + std::string(out->substr(0, 40)) + "'");
  }
  return true;
}

bool JsonScanner::ReadLiteral(JsonType* type) {
  *type = Peek();
  std::string_view word = *type == JsonType::kTrue ? "true" : *type == JsonType::kFalse ? "false" : "null";
  if ((*type != JsonType::kTrue && *type != JsonType::kFalse && *type != JsonType::kNull) ||
      text_.substr(pos_, word.size()) != word) {
    return Fail("expected a value");
  }
  pos_ += word.size();
  return true;
}

bool JsonScanner::SkipScalar() {
  std::string_view ignored;
  switch (Peek()) {
    case JsonType::kString: return ScanString(&ignored, &scratch_);
    case JsonType::kNumber: return ReadNumberText(&ignored);
    case JsonType::kTrue:
    case JsonType::kFalse:
    case JsonType::kNull: {
      JsonType t;
      return ReadLiteral(&t);
    }
    default: return Fail("expected a value");
  }
}

bool JsonScanner::SkipValue(std::string_view* raw) {
  const JsonType type = Peek();
  const size_t start = pos_;
  if (type != JsonType::kObject && type != JsonType::kArray) {
    if (!SkipScalar()) return false;
  } else {
    // Walked member by member with the checks a caller's walk would make.
    const int outer = depth_;
    if (!(type == JsonType::kObject ? EnterObject() : EnterArray())) return false;
    while (depth_ > outer) {
      std::string_view key;
      const bool member = is_object_[depth_] ? NextKey(&key) : NextElement();
      if (failed()) return false;
      if (!member) continue;  // that container closed
      const JsonType t = Peek();
      const bool ok = t == JsonType::kObject ? EnterObject() : t == JsonType::kArray ? EnterArray() : SkipScalar();
      if (!ok) return false;
    }
  }
  if (raw) *raw = text_.substr(start, pos_ - start);
  return true;
}

std::optional<double> JsonNumberToDouble(std::string_view text) {
  if (text.empty()) return std::nullopt;
  // JSON allows no leading '+'; from_chars neither.
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int64_t> JsonNumberToInt(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> JsonMicrosToNanos(std::string_view text) {
  // Integer and fraction digits are read exactly: a double would lose the
  // nanoseconds of an absolute time in microseconds (16 significant digits).
  constexpr int64_t kMaxMicros = std::numeric_limits<int64_t>::max() / 1000 - 1;
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && text[i] == '-') {
    negative = true;
    ++i;
  }
  int64_t micros = 0;
  size_t digits = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
    if (micros > kMaxMicros / 10) return std::nullopt;
    micros = micros * 10 + (text[i] - '0');
  }
  if (digits == 0) return std::nullopt;
  int64_t nanos = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    int scale = 100;
    size_t fraction_digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++fraction_digits) {
      int d = text[i] - '0';
      if (scale > 0) {
        nanos += d * scale;
        scale /= 10;
      } else if (fraction_digits == 3 && d >= 5) {
        nanos += 1;  // the first dropped digit rounds
      }
    }
    if (fraction_digits == 0) return std::nullopt;
  }
  if (i != text.size()) {
    // An exponent: rare in traces; through a double.
    std::optional<double> v = JsonNumberToDouble(text);
    if (!v || std::fabs(*v) > static_cast<double>(kMaxMicros)) return std::nullopt;
    return static_cast<int64_t>(std::llround(*v * 1000.0));
  }
  int64_t total = micros * 1000 + nanos;
  return negative ? -total : total;
}

}  // namespace tbprof
