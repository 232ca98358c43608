#include "aicost/core/currency.h"

#include <gtest/gtest.h>

namespace aicost::core {
namespace {

TEST(Currency, Iso4217ListsActiveSpecialAndRecentCodes) {
  for (const char* code : {"USD", "EUR", "JPY", "CHF", "XXX", "XAU", "XDR", "ZWG", "XCG", "HRK"})
    EXPECT_TRUE(is_iso4217(code)) << code;
  for (const char* code : {"usd", "ABC", "US$", "EURO", "", "XX", "BTC"})
    EXPECT_FALSE(is_iso4217(code)) << code;
}

TEST(Currency, NormalisedToUpperCaseWithoutSpaces) {
  EXPECT_EQ(normalise_currency("usd"), "USD");
  EXPECT_EQ(normalise_currency(" Eur\t"), "EUR");
  EXPECT_EQ(normalise_currency("US$"), "US$");
  EXPECT_EQ(normalise_currency("\xC3\xBC"), "\xC3\xBC");  // only ASCII letters change
}

}  // namespace
}  // namespace aicost::core
