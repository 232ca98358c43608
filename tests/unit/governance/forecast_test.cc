// Forecasts on closed-form series (constant, ramp, weekly pattern) and a seeded Monte-Carlo check
// of the interval's coverage; plus the series helpers (series.h) they stand on. The robust fit,
// late data and plan forecasts: forecast_robust_test.cc.
#include "aicost/governance/forecast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>

#include "governance/series_support.h"

namespace aicost::governance {
namespace {

using ledger::Day;

using governance::testing::Gaussian;
using governance::testing::make;
using governance::testing::monday;

TEST(Series, WeekdayOfKnownDates) {
  EXPECT_EQ(weekday(0), 3);  // 1970-01-01, a Thursday
  EXPECT_EQ(weekday(-1), 2);
  EXPECT_EQ(weekday(monday()), 0);
  EXPECT_EQ(weekday(ledger::days_from_civil(2024, 9, 1)), 6);  // a Sunday
}

TEST(Series, DenseFillsGapsWithZeroAndSumsDuplicates) {
  const DailySeries s = {{12, 5}, {10, 1}, {12, 2}, {20, 9}};
  const DailySeries d = dense(s, 10, 13);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].day, 10);
  EXPECT_DOUBLE_EQ(d[0].amount, 1);
  EXPECT_DOUBLE_EQ(d[1].amount, 0);
  EXPECT_DOUBLE_EQ(d[2].amount, 7);
  EXPECT_DOUBLE_EQ(d[3].amount, 0);  // day 20 is outside the range
  EXPECT_TRUE(dense(s, 5, 4).empty());
}

// 100/day for 56 days. Period: 10 days spent (1000) + 20 to come at 100 = 3000; no residuals, so
// the interval has zero width.
TEST(ForecastPeriod, ConstantSeriesExtrapolatesWithZeroWidthInterval) {
  const Day today = monday() + 56;
  const Forecast f =
      forecast_period(make(56, [](int) { return 100.0; }), today - 10, today + 20, today);
  EXPECT_EQ(f.method, "trend+weekly");
  EXPECT_EQ(f.history_days_used, 56);
  EXPECT_NEAR(f.spent, 1000, 1e-9);
  EXPECT_NEAR(f.remaining, 2000, 1e-6);
  EXPECT_NEAR(f.expected, 3000, 1e-6);
  EXPECT_NEAR(f.low, 3000, 1e-6);
  EXPECT_NEAR(f.high, 3000, 1e-6);
}

// y_t = 10 + 2t, t = 0..55; the next 14 days sum to Σ_{t=56}^{69} (10 + 2t) = 140 + 2·875 = 1890.
// With weekly factors too: the centred moving average of a ramp is the ramp, so all factors are 1.
TEST(ForecastPeriod, LinearRampExtrapolatesExactly) {
  const Day today = monday() + 56;
  const DailySeries ramp = make(56, [](int t) { return 10.0 + 2 * t; });
  for (bool weekly : {true, false}) {
    const Forecast f =
        forecast_period(ramp, today, today + 14, today, {.weekly = weekly, .anomaly = {}});
    EXPECT_EQ(f.method, weekly ? "trend+weekly" : "trend");
    EXPECT_NEAR(f.remaining, 1890, 1e-6);
    EXPECT_NEAR(f.trend_per_day, 2, 1e-9);
    EXPECT_NEAR(f.high - f.low, 0, 1e-6);
  }
}

// Weekdays 100, weekends 20 for 8 weeks: a week costs 5·100 + 2·20 = 540 and a weekend 40. The
// pattern alone must not read as a trend.
TEST(ForecastPeriod, WeeklyPatternForecastsWeekAndWeekendWithoutDrift) {
  const Day today = monday() + 56;
  const DailySeries s = make(56, [](int t) { return t % 7 < 5 ? 100.0 : 20.0; });
  const Forecast week = forecast_period(s, today, today + 7, today);
  EXPECT_NEAR(week.expected, 540, 540 * 0.01);
  EXPECT_NEAR(week.trend_per_day, 0, 1e-6);
  const Forecast weekend = forecast_period(s, today + 5, today + 7, today);
  EXPECT_NEAR(weekend.expected, 40, 40 * 0.01);
  // Without factors a weekend day is predicted like any other (~540/7 ≈ 77, less a spurious slope
  // that the pattern's phase puts into a plain linear fit).
  const Forecast flat =
      forecast_period(s, today + 5, today + 7, today, {.weekly = false, .anomaly = {}});
  EXPECT_GT(flat.expected, 100);
}

// y_t = 100 + 0.5t + 10·N(0,1): history t = 0..55, truth t = 56..83 (28 days). The 80 % interval
// should hold the true total in ~80 % of trials; with 500 trials the binomial sd is 1.8 points, so
// 70–90 % is a > 5 sd band. (Without the level and trend uncertainty it would cover ~45 %.)
TEST(ForecastPeriod, EightyPercentIntervalCoversAboutEightyPercent) {
  Gaussian noise(20240101);
  const Day today = monday() + 56;
  int covered = 0;
  constexpr int kTrials = 500;
  for (int trial = 0; trial < kTrials; ++trial) {
    const DailySeries history = make(56, [&](int t) { return 100 + 0.5 * t + 10 * noise(); });
    double truth = 0;
    for (int t = 56; t < 84; ++t) truth += 100 + 0.5 * t + 10 * noise();
    const Forecast f = forecast_period(history, today, today + 28, today);
    ASSERT_LT(f.low, f.expected);
    ASSERT_GT(f.high, f.expected);
    if (f.low <= truth && truth <= f.high) ++covered;
  }
  const double coverage = static_cast<double>(covered) / kTrials;
  EXPECT_GE(coverage, 0.70);
  EXPECT_LE(coverage, 0.90);
}

// 5 days 10..50: mean 30/day, 10 days to come → 300.
TEST(ForecastPeriod, FewerThanSevenDaysUsesTheMean) {
  const Day today = monday() + 5;
  const Forecast f =
      forecast_period(make(5, [](int t) { return 10.0 * (t + 1); }), today, today + 10, today);
  EXPECT_EQ(f.method, "mean");
  EXPECT_EQ(f.history_days_used, 5);
  EXPECT_NEAR(f.remaining, 300, 1e-9);
  EXPECT_LT(f.low, 300);
  EXPECT_GT(f.high, 300);
}

// Entries on days 0, 2, 4 of 100 and today = day 6: six days, 300 spent → 50/day.
TEST(ForecastPeriod, MissingDaysCountAsZero) {
  const DailySeries s = {{monday(), 100}, {monday() + 2, 100}, {monday() + 4, 100}};
  const Day today = monday() + 6;
  const Forecast f = forecast_period(s, today, today + 10, today);
  EXPECT_EQ(f.history_days_used, 6);
  EXPECT_NEAR(f.remaining, 500, 1e-9);
}

// 100 days: 1000/day for days 0..43, 100/day after. A 56-day window sees only the 100s.
TEST(ForecastPeriod, OnlyTheLastHistoryDaysAreFitted) {
  const Day today = monday() + 100;
  const DailySeries s = make(100, [](int t) { return t < 44 ? 1000.0 : 100.0; });
  const Forecast f = forecast_period(s, today, today + 10, today);
  EXPECT_EQ(f.history_days_used, 56);
  EXPECT_NEAR(f.remaining, 1000, 1e-6);
}

// y_t = 100 − 5t for 14 days (t = 0..13): the trend reaches 0 at t = 20 and goes negative after.
// Days t = 14..33 predict 30 + 25 + 20 + 15 + 10 + 5 + 0 + (clamped zeros) = 105.
TEST(ForecastPeriod, PredictedDaysAreClampedAtZero) {
  const Day today = monday() + 14;
  const DailySeries s = make(14, [](int t) { return 100.0 - 5 * t; });
  const Forecast f = forecast_period(s, today, today + 20, today, {.weekly = false, .anomaly = {}});
  EXPECT_NEAR(f.remaining, 105, 1e-6);
  EXPECT_NEAR(f.trend_per_day, -5, 1e-9);
}

// Spent 100 in the period so far, then a wide interval: its lower end stops at what is spent.
TEST(ForecastPeriod, LowNeverBelowSpent) {
  const Day today = monday() + 3;
  const DailySeries s = {{monday(), 0}, {monday() + 1, 100}, {monday() + 2, 0}};
  const Forecast f =
      forecast_period(s, monday(), today + 2, today, {.interval = 0.95, .anomaly = {}});
  EXPECT_NEAR(f.spent, 100, 1e-12);
  EXPECT_DOUBLE_EQ(f.low, f.spent);
  EXPECT_GT(f.high, f.expected);
}

TEST(ForecastPeriod, PeriodInTheFutureHasNothingSpent) {
  const Day today = monday() + 56;
  const Forecast f =
      forecast_period(make(56, [](int) { return 100.0; }), today + 7, today + 14, today);
  EXPECT_EQ(f.spent, 0);
  EXPECT_NEAR(f.expected, 700, 1e-6);
}

TEST(ForecastPeriod, PeriodOverIsWhatWasSpent) {
  const Forecast f = forecast_period(make(56, [](int) { return 100.0; }), monday() + 10,
                                     monday() + 40, monday() + 56);
  EXPECT_EQ(f.method, "actual");
  EXPECT_NEAR(f.spent, 3000, 1e-9);
  EXPECT_EQ(f.remaining, 0);
  EXPECT_EQ(f.expected, f.spent);
  EXPECT_EQ(f.low, f.spent);
  EXPECT_EQ(f.high, f.spent);
}

// The first predicted day: the known end (the day after the newest data, when that is before
// `today`), not before the period's start, and the period's end when nothing is left to predict.
TEST(ForecastPeriod, PredictedFromIsTheFirstDayRemainingCovers) {
  const auto flat = make(56, [](int) { return 100.0; });
  const Day today = monday() + 56;
  EXPECT_EQ(forecast_period(flat, today - 10, today + 20, today).predicted_from, today);
  const Forecast late =
      forecast_period(flat, today - 10, today + 20, today, {}, today - 4);  // 3 days unknown
  EXPECT_EQ(late.predicted_from, today - 3);
  EXPECT_NEAR(late.spent, 700, 1e-9);  // the spend of [period start, predicted_from)
  EXPECT_EQ(forecast_period(flat, today + 7, today + 14, today).predicted_from, today + 7);
  EXPECT_EQ(forecast_period(flat, monday() + 10, monday() + 40, today).predicted_from,
            monday() + 40);
  EXPECT_EQ(plan_forecast(flat, today - 10, today + 20, today, 500, 0.2).predicted_from, today);
  EXPECT_EQ(plan_forecast(flat, today + 3, today + 20, today, 500, 0.2).predicted_from, today + 3);
}

TEST(ForecastPeriod, EmptyHistoryGivesZeros) {
  const Forecast f = forecast_period({}, monday(), monday() + 30, monday() + 5);
  EXPECT_EQ(f.method, "none");
  EXPECT_EQ(f.history_days_used, 0);
  EXPECT_EQ(f.spent, 0);
  EXPECT_EQ(f.expected, 0);
  EXPECT_EQ(f.low, 0);
  EXPECT_EQ(f.high, 0);
  // History that starts only at `today` or later is no history either.
  EXPECT_EQ(forecast_period({{monday() + 5, 10}}, monday(), monday() + 30, monday() + 5).method,
            "none");
}

}  // namespace
}  // namespace aicost::governance
