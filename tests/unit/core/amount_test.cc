#include "aicost/core/amount.h"

#include <gtest/gtest.h>

namespace aicost::core {
namespace {

std::int64_t nanos(std::string_view s) {
  auto a = parse_amount(s);
  EXPECT_TRUE(a) << s;
  return a ? a->nanos : -999;
}

TEST(Amount, PlainDecimalsAreExact) {
  EXPECT_EQ(nanos("12.5"), 12'500'000'000);
  EXPECT_EQ(nanos("-0.000000040"), -40);
  EXPECT_EQ(nanos("+3"), 3'000'000'000);
  EXPECT_EQ(nanos(".5"), 500'000'000);
  EXPECT_EQ(nanos("0"), 0);
  EXPECT_EQ(nanos("000123.000"), 123'000'000'000);
  EXPECT_EQ(nanos("0.1"), 100'000'000);  // no binary floating point on the way
}

TEST(Amount, ScientificNotation) {
  EXPECT_EQ(nanos("1.2E-06"), 1'200);
  EXPECT_EQ(nanos("1e3"), 1'000'000'000'000);
  EXPECT_EQ(nanos("2.5e+2"), 250'000'000'000);
  EXPECT_EQ(nanos("-4E-7"), -400);
}

TEST(Amount, DigitsBelowANanoRoundHalfToEven) {
  auto a = parse_amount("0.0000000015");  // 1.5 nano -> 2
  ASSERT_TRUE(a);
  EXPECT_EQ(a->nanos, 2);
  EXPECT_TRUE(a->rounded);
  EXPECT_EQ(parse_amount("0.0000000025")->nanos, 2);   // 2.5 -> 2 (even)
  EXPECT_EQ(parse_amount("0.00000000251")->nanos, 3);  // above the half
  EXPECT_EQ(parse_amount("-0.0000000035")->nanos, -4);
  EXPECT_EQ(parse_amount("1e-12")->nanos, 0);
  EXPECT_TRUE(parse_amount("1e-12")->rounded);
  EXPECT_EQ(parse_amount("6e-10")->nanos, 1);
  EXPECT_FALSE(parse_amount("0.123456789000")->rounded);  // trailing zeros lose nothing
}

TEST(Amount, RejectsWhatIsNotADecimal) {
  for (const char* bad :
       {"", "-", ".", "1,5", "12 USD", "NaN", "inf", "1e", "1e+", "0x10", "1..2", "--1", "e5"})
    EXPECT_FALSE(parse_amount(bad)) << bad;
  EXPECT_FALSE(parse_amount("9300000000"));  // beyond ±9.2e9 units
  EXPECT_TRUE(parse_amount("9200000000"));
}

// "out of range" is a different finding from "not a number": the reader says which (the max).
TEST(Amount, OutOfRangeIsToldFromNotADecimal) {
  bool range = true;
  EXPECT_FALSE(parse_amount("1,5", &range));
  EXPECT_FALSE(range);
  for (const char* big :
       {"9300000000", "-9.3e9", "9223372036.854775808", "1e2000", "9223372036.8547758075"}) {
    range = false;
    EXPECT_FALSE(parse_amount(big, &range)) << big;
    EXPECT_TRUE(range) << big;
  }
  range = true;
  ASSERT_TRUE(parse_amount(kMaxAmountText, &range));
  EXPECT_FALSE(range);
  EXPECT_EQ(parse_amount(kMaxAmountText)->nanos, INT64_MAX);
  EXPECT_EQ(parse_amount("-9223372036.854775807")->nanos, -INT64_MAX);
  for (const char* not_big : {"0e2000", "1e-2000", "1e2000x"}) {
    range = true;
    EXPECT_FALSE(parse_amount(not_big, &range)) << not_big;
    EXPECT_FALSE(range) << not_big;
  }
}

TEST(Amount, Formatting) {
  EXPECT_EQ(format_amount(12'345'678'901, 2), "12.35");
  EXPECT_EQ(format_amount(-1'500'000'000, 2), "-1.50");
  EXPECT_EQ(format_amount(-4, 2), "0.00");
  EXPECT_EQ(format_amount(WideNanos(INT64_MAX) * 4, 0), "36893488147");
  EXPECT_EQ(format_amount_exact(40), "0.00000004");
  EXPECT_EQ(format_amount_exact(12'000'000'000), "12");
  EXPECT_EQ(format_amount_exact(-3'500'000'000), "-3.5");
}

}  // namespace
}  // namespace aicost::core
