// The one JSON string and number writer of every tool. Profiles carry bytes
// from anywhere (op names, file paths, user annotations), and JSON must be
// UTF-8: invalid sequences become U+FFFD instead of making the whole
// response unparseable.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tbprof {

// Appends `s` as a quoted JSON string: `"` and `\` escaped, \n \r \t \b \f
// short-escaped, other control characters as \u00XX, invalid UTF-8 (bad
// lead or continuation bytes, overlong forms, surrogates, code points past
// U+10FFFF, truncated sequences) replaced byte by byte with U+FFFD.
void AppendJsonString(std::string& out, std::string_view s);

// Appends `key`, a member's quoted name with the punctuation around it (e.g.
// `,"name":`), then `value` as AppendJsonString writes it.
void AppendJsonStringMember(std::string& out, std::string_view key, std::string_view value);

// `s` as a quoted JSON string (AppendJsonString into a new string).
std::string JsonString(std::string_view s);

// Appends the shortest decimal form of `v` that reads back as `v`; the
// non-finite values, which JSON lacks, as the strings "NaN", "Infinity" and
// "-Infinity" (what protobuf's JSON mapping writes).
void AppendJsonDouble(std::string& out, double v);

// Length of the valid UTF-8 sequence that starts at s[i], or 0 when the
// bytes there are not one.
size_t Utf8SequenceLength(std::string_view s, size_t i);

// Whether every byte of `s` belongs to a valid UTF-8 sequence.
bool IsValidUtf8(std::string_view s);

// `s` with every byte that belongs to no valid UTF-8 sequence replaced by
// U+FFFD, the rule AppendJsonString applies; for text outputs (CSV) that are
// not JSON but must still be UTF-8.
std::string ValidUtf8(std::string_view s);

}  // namespace tbprof
