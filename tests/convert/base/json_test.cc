// The one JSON string writer: escapes, and UTF-8 checked byte by byte.
#include "convert/base/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace tbprof {
namespace {

std::string Quote(std::string_view s) { return JsonString(s); }

TEST(Json, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(Quote("plain"), "\"plain\"");
  EXPECT_EQ(Quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(Quote("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(Quote(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(Quote(std::string("a\0b", 3)), "\"a\\u0000b\"");
  EXPECT_EQ(Quote("/"), "\"/\"");  // solidus needs no escape
}

TEST(Json, KeepsValidUtf8AsItIs) {
  EXPECT_EQ(Quote("\xc3\xa9"), "\"\xc3\xa9\"");                  // é, 2 bytes
  EXPECT_EQ(Quote("\xe2\x82\xac"), "\"\xe2\x82\xac\"");          // €, 3 bytes
  EXPECT_EQ(Quote("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"");  // U+1F600, 4 bytes
  EXPECT_EQ(Quote("\xf4\x8f\xbf\xbf"), "\"\xf4\x8f\xbf\xbf\"");  // U+10FFFF, the last code point
}

TEST(Json, ReplacesEachInvalidByteWithTheReplacementCharacter) {
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_EQ(Quote("\xff"), "\"" + fffd + "\"");
  EXPECT_EQ(Quote("\x80"), "\"" + fffd + "\"");          // lone continuation byte
  EXPECT_EQ(Quote("\xc0\xaf"), "\"" + fffd + fffd + "\"");  // overlong '/'
  EXPECT_EQ(Quote("\xe0\x80\xaf"), "\"" + fffd + fffd + fffd + "\"");  // overlong three-byte form
  EXPECT_EQ(Quote("\xed\xa0\x80"), "\"" + fffd + fffd + fffd + "\"");  // UTF-16 surrogate D800
  EXPECT_EQ(Quote("\xf4\x90\x80\x80"), "\"" + fffd + fffd + fffd + fffd + "\"");  // past U+10FFFF
  EXPECT_EQ(Quote("\xf8\x88\x80\x80\x80"), "\"" + fffd + fffd + fffd + fffd + fffd + "\"");
  EXPECT_EQ(Quote("ab\xe2\x82"), "\"ab" + fffd + fffd + "\"");  // truncated at the end
  EXPECT_EQ(Quote("\xc3("), "\"" + fffd + "(\"");                // bad continuation
}

TEST(Json, ValidatesUtf8) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("name:\xc3\xa9"));
  EXPECT_FALSE(IsValidUtf8("\xff"));
  EXPECT_FALSE(IsValidUtf8("\xed\xbf\xbf"));
}

TEST(Json, DoublesRoundTripAndNonFiniteValuesAreStrings) {
  auto d = [](double v) {
    std::string out;
    AppendJsonDouble(out, v);
    return out;
  };
  EXPECT_EQ(d(0.1), "0.1");
  EXPECT_EQ(d(2), "2");
  EXPECT_EQ(d(-1.5e-7), "-1.5e-07");
  EXPECT_EQ(d(std::numeric_limits<double>::quiet_NaN()), "\"NaN\"");
  EXPECT_EQ(d(std::numeric_limits<double>::infinity()), "\"Infinity\"");
  EXPECT_EQ(d(-std::numeric_limits<double>::infinity()), "\"-Infinity\"");
}

}  // namespace
}  // namespace tbprof
