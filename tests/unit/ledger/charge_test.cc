// parse_day, the one parser of a date a person writes: the calendar's month lengths and leap
// years, and the message for each way a date can be wrong. Expected day numbers are days since
// 1970-01-01 computed with Python's datetime ((date(y, m, d) - date(1970, 1, 1)).days).
#include "aicost/ledger/charge.h"

#include <gtest/gtest.h>

#include <string>

namespace aicost::ledger {
namespace {

// The message of a refused date, or "accepted" (so that a wrong acceptance fails readably).
std::string refusal(std::string_view text, DayForm form = DayForm::kDay) {
  const auto d = parse_day(text, form);
  if (d) return "accepted";
  EXPECT_EQ(d.error().code, core::ErrorCode::kInvalidInput) << text;
  return d.error().message;
}

TEST(ParseDay, AcceptsLeapDaysOfLeapYears) {
  // Divisible by 4 and not by 100 (2024), or by 400 (2000).
  EXPECT_EQ(parse_day("2024-02-29").value(), 19782);
  EXPECT_EQ(parse_day("2000-02-29").value(), 11016);
  EXPECT_EQ(parse_day("2025-12-31").value(), 20453);
  EXPECT_EQ(parse_day("2025-03-01").value(), 20148);
}

TEST(ParseDay, RefusesLeapDaysOfOtherYears) {
  EXPECT_EQ(refusal("2025-02-29"), "2025-02-29: February 2025 has 28 days");
  // Divisible by 100 and not by 400: no leap day.
  EXPECT_EQ(refusal("1900-02-29"), "1900-02-29: February 1900 has 28 days");
  EXPECT_EQ(refusal("2024-02-30"), "2024-02-30: February 2024 has 29 days");
}

TEST(ParseDay, RefusesDaysPastTheEndOfTheMonth) {
  EXPECT_EQ(refusal("2025-02-31"), "2025-02-31: February 2025 has 28 days");
  EXPECT_EQ(refusal("2025-04-31"), "2025-04-31: April 2025 has 30 days");
  EXPECT_EQ(refusal("2025-05-32"), "2025-05-32: May 2025 has 31 days");
}

TEST(ParseDay, RefusesMonthThirteenAndMonthZero) {
  EXPECT_EQ(refusal("2025-13-01"), "2025-13-01: there is no month 13; write 01 to 12");
  EXPECT_EQ(refusal("2025-00-10"), "2025-00-10: there is no month 00; write 01 to 12");
}

TEST(ParseDay, RefusesDayZero) {
  EXPECT_EQ(refusal("2025-02-00"), "2025-02-00: there is no day 00; days start at 01");
}

TEST(ParseDay, RefusesTrailingTextAndOtherShapes) {
  for (const char* text :
       {"2025-02-01x", "2025-02-01 ", "2025-02-01T00:00:00Z", " 2025-02-01", "2025-2-1", "25-02-01",
        "2025/02/01", "+025-02-01", "2025-02", "", "yesterday"}) {
    EXPECT_EQ(refusal(text), "'" + std::string(text) + "' is not a date; write YYYY-MM-DD") << text;
  }
}

TEST(ParseDay, AMonthAloneIsItsFirstDayOnlyWhereAsked) {
  EXPECT_EQ(parse_day("2024-02", DayForm::kDayOrMonth).value(), parse_day("2024-02-01").value());
  EXPECT_EQ(parse_day("2024-02-29", DayForm::kDayOrMonth).value(), 19782);
  EXPECT_EQ(refusal("2024-13", DayForm::kDayOrMonth),
            "2024-13: there is no month 13; write 01 to 12");
  EXPECT_EQ(refusal("2024-02x", DayForm::kDayOrMonth),
            "'2024-02x' is not a date; write YYYY-MM-DD (or YYYY-MM for the 1st)");
  EXPECT_EQ(refusal("2025-02-31", DayForm::kDayOrMonth), "2025-02-31: February 2025 has 28 days");
}

TEST(ParseDay, EveryDayOfFourHundredYearsRoundTripsThroughDayText) {
  // day_text is an independent inverse (Hinnant's civil_from_days): every day it prints parses
  // back to itself, and the day after the last of each month is refused.
  for (Day d = parse_day("2000-01-01").value(); d < parse_day("2400-01-01").value(); ++d) {
    const std::string text = day_text(d);
    ASSERT_EQ(parse_day(text).value(), d) << text;
    if (day_text(d + 1).ends_with("-01")) {
      const int past = std::stoi(text.substr(8)) + 1;
      const std::string after = text.substr(0, 8) + std::to_string(past);
      ASSERT_FALSE(parse_day(after)) << after;
    }
  }
}

TEST(DaysInMonth, FollowsTheGregorianCalendar) {
  const unsigned expected[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (unsigned m = 1; m <= 12; ++m) EXPECT_EQ(days_in_month(2025, m), expected[m - 1]) << m;
  EXPECT_EQ(days_in_month(2024, 2), 29u);
  EXPECT_EQ(days_in_month(2000, 2), 29u);
  EXPECT_EQ(days_in_month(1900, 2), 28u);
  EXPECT_EQ(days_in_month(2025, 0), 0u);
  EXPECT_EQ(days_in_month(2025, 13), 0u);
}

}  // namespace
}  // namespace aicost::ledger
