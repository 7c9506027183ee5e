#include "convert/base/strings.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace tbprof {
namespace {

using Pieces = std::vector<std::string_view>;

TEST(SplitNonEmpty, LeavesOutEmptyPieces) {
  EXPECT_EQ(SplitNonEmpty("a,,b,", ','), (Pieces{"a", "b"}));
  EXPECT_EQ(SplitNonEmpty(",x", ','), (Pieces{"x"}));
  EXPECT_EQ(SplitNonEmpty("", ','), Pieces{});
  EXPECT_EQ(SplitNonEmpty(",,,", ','), Pieces{});
}

TEST(SplitNonEmpty, KeepsSpacesAndOtherSeparators) {
  EXPECT_EQ(SplitNonEmpty(" a ,b=1&c", ','), (Pieces{" a ", "b=1&c"}));
  EXPECT_EQ(SplitNonEmpty("k=v&k2=v2", '&'), (Pieces{"k=v", "k2=v2"}));
}

TEST(SplitNonEmpty, PiecesPointIntoTheText) {
  const std::string_view text = "host1,host2";
  Pieces p = SplitNonEmpty(text, ',');
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[1].data(), text.data() + 6);
}

TEST(EscapeMarkup, TheFiveMarkupCharactersBecomeEntities) {
  EXPECT_EQ(EscapeMarkup("a<b> & \"c\" 'd'"), "a&lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;");
  EXPECT_EQ(EscapeMarkup("model.py:42"), "model.py:42");
  EXPECT_EQ(EscapeMarkup(""), "");
}

TEST(AsciiCase, FoldsOnlyAsciiLetters) {
  EXPECT_EQ(AsciiLowered("Accept-Encoding: GZIP_9"), "accept-encoding: gzip_9");
  EXPECT_EQ(AsciiLowered("\xc3\x89t\xc3\xa9"), "\xc3\x89t\xc3\xa9");  // UTF-8 bytes pass unchanged
  EXPECT_TRUE(StartsWithIgnoringAsciiCase("NcclAllReduce", "nccl"));
  EXPECT_TRUE(StartsWithIgnoringAsciiCase("iteratorgetnext", "IteratorGetNext"));
  EXPECT_FALSE(StartsWithIgnoringAsciiCase("ncc", "nccl"));
  EXPECT_FALSE(StartsWithIgnoringAsciiCase("MemcpyDtoH", "MemcpyHtoD"));
}

}  // namespace
}  // namespace tbprof
