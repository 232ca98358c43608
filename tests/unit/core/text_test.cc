#include "aicost/core/text.h"

#include <gtest/gtest.h>

#include <string>

namespace aicost::core {
namespace {

using namespace std::string_literals;

const std::string kFffd = "\xEF\xBF\xBD";

TEST(Utf8, CleanTextIsKeptAsItIs) {
  for (const std::string& s :
       {""s, "plain ascii, 40 bytes long, 8 at a time"s, "M\xC3\xBCnchen"s, "\xE2\x82\xAC 12"s,
        "\xF0\x9D\x84\x9E"s /* U+1D11E */, "\xF4\x8F\xBF\xBF"s /* U+10FFFF, the last code point */,
        "\xED\x9F\xBF"s /* U+D7FF, just below the surrogates */}) {
    EXPECT_TRUE(utf8_clean(s)) << s;
    EXPECT_EQ(utf8_first_bad(s), s.size());
    EXPECT_EQ(utf8_repair(s), s);
  }
}

TEST(Utf8, Latin1ByteIsOneReplacementCharacter) {
  const std::string s = "M\xFCnchen";  // ü in Latin-1
  EXPECT_EQ(utf8_first_bad(s), 1u);
  EXPECT_EQ(utf8_repair(s), "M" + kFffd + "nchen");
}

TEST(Utf8, NulIsReplaced) {
  const std::string s = "a\0b"s;
  EXPECT_FALSE(utf8_clean(s));
  EXPECT_EQ(utf8_first_bad(s), 1u);
  EXPECT_EQ(utf8_repair(s), "a" + kFffd + "b");
}

TEST(Utf8, TruncatedSequenceIsOneReplacement) {
  EXPECT_EQ(utf8_repair("x\xE2\x82"), "x" + kFffd);  // a euro sign cut at the end
  EXPECT_EQ(utf8_repair("\xE2\x82x"), kFffd + "x");  // cut before an ASCII byte
  EXPECT_EQ(utf8_repair("\xF0\x9D\x84"), kFffd);     // 3 of 4 bytes
  EXPECT_EQ(utf8_repair("\xC3"), kFffd);             // a lone lead byte
  EXPECT_EQ(utf8_repair("\xBC"), kFffd);             // a lone continuation byte
}

TEST(Utf8, OverlongFormsAreReplacedBytewise) {
  EXPECT_EQ(utf8_repair("\xC0\xAF"), kFffd + kFffd);  // '/' in two bytes
  EXPECT_EQ(utf8_repair("\xC1\xBF"), kFffd + kFffd);
  EXPECT_EQ(utf8_repair("\xE0\x80\xAF"), kFffd + kFffd + kFffd);  // '/' in three bytes
  EXPECT_EQ(utf8_repair("\xF0\x80\x80\xAF"), kFffd + kFffd + kFffd + kFffd);
}

TEST(Utf8, SurrogatesAreNotUtf8) {
  EXPECT_EQ(utf8_first_bad("ab\xED\xA0\x80"), 2u);  // U+D800
  EXPECT_EQ(utf8_repair("\xED\xA0\x80"), kFffd + kFffd + kFffd);
  EXPECT_EQ(utf8_repair("\xED\xBF\xBF"), kFffd + kFffd + kFffd);  // U+DFFF
}

TEST(Utf8, NothingAboveU10FFFF) {
  EXPECT_EQ(utf8_repair("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // U+110000
  EXPECT_EQ(utf8_repair("\xF5\x80\x80\x80"), kFffd + kFffd + kFffd + kFffd);
  EXPECT_EQ(utf8_repair("\xFF\xFE"), kFffd + kFffd);
}

// Unicode 15, §3.9, Table 3-8: the standard's own example of maximal subparts.
TEST(Utf8, MaximalSubpartsAsTheStandardsExample) {
  EXPECT_EQ(utf8_repair("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            "a" + kFffd + kFffd + kFffd + "b" + kFffd + "c" + kFffd + kFffd + "d");
}

// The eight-bytes-at-a-time ASCII path must find a bad byte at any offset.
TEST(Utf8, BadByteFoundAtEveryOffsetOfTheFastPath) {
  for (std::size_t at = 0; at < 40; ++at) {
    for (char bad : {'\0', '\xFC', '\x80'}) {
      std::string s(40, 'a');
      s[at] = bad;
      EXPECT_EQ(utf8_first_bad(s), at) << at;
      std::string want = std::string(at, 'a') + kFffd + std::string(39 - at, 'a');
      EXPECT_EQ(utf8_repair(s), want) << at;
    }
  }
}

TEST(Utf8, PrefixNeverCutsACharacter) {
  EXPECT_EQ(utf8_prefix("a\xC3\xBC", 2), "a");
  EXPECT_EQ(utf8_prefix("a\xC3\xBC", 3), "a\xC3\xBC");
  EXPECT_EQ(utf8_prefix("ab\xE2\x82\xAC", 3), "ab");
  EXPECT_EQ(utf8_prefix("ab\xE2\x82\xAC", 4), "ab");
  EXPECT_EQ(utf8_prefix("\xF0\x9D\x84\x9Ex", 4), "\xF0\x9D\x84\x9E");
  EXPECT_EQ(utf8_prefix("abcdef", 3), "abc");
  EXPECT_TRUE(utf8_clean(utf8_prefix("M\xC3\xBC\xC3\xBC\xC3\xBC", 4)));
}

TEST(AsciiCase, LowersAsciiOnlyAndComparesWithoutCase) {
  EXPECT_EQ(ascii_lower("Content-Type: HTTPS"), "content-type: https");
  // Bytes outside A-Z stay as they are: "Ü" (C3 9C) is not lowered to "ü" (C3 BC).
  EXPECT_EQ(ascii_lower("M\xC3\x9Cnchen"), "m\xC3\x9Cnchen");
  EXPECT_TRUE(iequals("BilledCost", "billedcost"));
  EXPECT_TRUE(iequals("", ""));
  EXPECT_FALSE(iequals("BilledCost", "BilledCosts"));
  EXPECT_FALSE(iequals("@", "`"));  // 0x40 and 0x60 differ by the case bit but are not letters
}

}  // namespace
}  // namespace aicost::core
