// A pull scanner over JSON text: the caller walks the document value by
// value, so a trace of millions of events is read without building a tree of
// it. Strings without escapes are returned as views into the input; escaped
// ones are decoded into a scratch buffer that the next string reuses.
// Nesting deeper than kMaxJsonDepth is an error, so no input can exhaust the
// stack or loop forever: every call consumes input or fails.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tbprof {

inline constexpr int kMaxJsonDepth = 512;

enum class JsonType { kObject, kArray, kString, kNumber, kTrue, kFalse, kNull, kEnd, kInvalid };

class JsonScanner {
 public:
  explicit JsonScanner(std::string_view text) : text_(text) {}

  // The type of the next value, after white space and a separating comma or
  // colon; kEnd at the end of input or before a closing bracket.
  JsonType Peek();
  // Consumes '{' / '['. NextKey / NextElement then step through the members:
  // false when the container closed (its bracket consumed) or on an error.
  bool EnterObject();
  bool EnterArray();
  bool NextKey(std::string_view* key);
  bool NextElement();
  // A string value (decoded).
  bool ReadString(std::string_view* out);
  // A number's text, as written.
  bool ReadNumberText(std::string_view* out);
  // Skips one whole value of any type; `raw` (optional) receives its text.
  bool SkipValue(std::string_view* raw = nullptr);
  // true / false / null.
  bool ReadLiteral(JsonType* type);

  // Two scanners may share one array: this one starts at `pos`, the first
  // byte of an element of an array open at nesting `depth`, whose earlier
  // elements another scanner reads; it stops once that array closes.
  void ResumeInArray(size_t pos, int depth);
  // The rest of the innermost open container was read by another scanner,
  // which ended at `pos`, after its closing bracket.
  void ContinueAfterContainer(size_t pos);
  int depth() const { return depth_; }

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  size_t offset() const { return pos_; }
  // Where the first error was found; the text's size when it ended too soon.
  size_t error_offset() const { return error_offset_; }

 private:
  bool Fail(std::string what);
  void SkipSpace();
  bool ScanString(std::string_view* out, std::string* scratch);
  bool Enter(JsonType container);  // kObject or kArray
  bool ExpectSeparatorBeforeMember(bool* closed, char close);
  bool SkipScalar();

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  // Per open container: whether a member was read (a comma is due before the next).
  uint8_t has_member_[kMaxJsonDepth + 1] = {};
  uint8_t is_object_[kMaxJsonDepth + 1] = {};
  std::string scratch_, key_scratch_;
  std::string error_;
  size_t error_offset_ = 0;
};

// The offset of a '{' at or after `from` (and before `limit`) that looks like
// an array element following an object: `}`, a comma, then `{"`, with white
// space between. Only a guess (the bytes may lie inside a string): a reader
// that splits there confirms it by arriving at that offset; npos if none.
size_t FindLikelyObjectElement(std::string_view text, size_t from, size_t limit);

// The form of a number's text: JSON's grammar (leading zeros allowed).
enum class NumberShape { kMalformed, kInteger, kWithFraction, kWithExponent };
NumberShape ShapeOfNumber(std::string_view text);

// A JSON number's text as a double; nullopt when it is not a number.
std::optional<double> JsonNumberToDouble(std::string_view text);
// A JSON number's text as an integer (no fraction or exponent), nullopt otherwise or on overflow.
std::optional<int64_t> JsonNumberToInt(std::string_view text);
// A time in microseconds, written as an integer or a decimal fraction, as
// whole nanoseconds (rounded half away from zero at the first dropped digit);
// nullopt when the text is not a number or lies beyond ±9.2e15 µs.
std::optional<int64_t> JsonMicrosToNanos(std::string_view text);

// Steps `js`, at the start of a document, through the elements of the array
// that the top-level object's member `key` holds (a trace's "traceEvents"):
// `at_element` is called before each and reads or skips it; other members
// are skipped.
template <typename AtElement>
void ForEachElementOfMember(JsonScanner& js, std::string_view key, AtElement&& at_element) {
  std::string_view member;
  js.EnterObject();
  while (js.NextKey(&member)) {
    if (member != key) {
      js.SkipValue();
      continue;
    }
    js.EnterArray();
    while (js.NextElement()) at_element();
  }
}

}  // namespace tbprof
