// The forecast's daily path (Forecast::path): a closed-form trend fit day by day, the period's
// figures equal to the last day's exactly, the interval's coverage on a day inside the period, and
// the path of each method.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "aicost/governance/forecast.h"
#include "governance/series_support.h"

namespace aicost::governance {
namespace {

using ledger::Day;

using governance::testing::Gaussian;
using governance::testing::make;
using governance::testing::monday;

// z of the central 80 % interval: the 90th percentile of the standard normal.
constexpr double kZ80 = 1.2815515655446004;

// The path holds one day per day of [predicted_from, period_end), ascending; its totals and
// intervals never shrink, low never below spent; the last day is the period's figures, exactly.
void expect_well_formed(const Forecast& f, Day period_end, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(f.path.size(), static_cast<std::size_t>(period_end - f.predicted_from));
  for (std::size_t k = 0; k < f.path.size(); ++k) {
    const ForecastDay& d = f.path[k];
    EXPECT_EQ(d.day, f.predicted_from + static_cast<Day>(k));
    EXPECT_GE(d.low, f.spent);
    EXPECT_LE(d.low, d.expected);
    EXPECT_GE(d.high, d.expected);
    if (k == 0) continue;
    EXPECT_GE(d.expected, f.path[k - 1].expected);
    EXPECT_GE(d.high - d.expected, f.path[k - 1].high - f.path[k - 1].expected - 1e-9);
  }
  EXPECT_EQ(f.path.back().expected, f.expected);
  EXPECT_EQ(f.path.back().low, f.low);
  EXPECT_EQ(f.path.back().high, f.high);
}

// Eight days y_t = 100 + e_t with e = +1 −1 −1 +1 +1 −1 −1 +1: Σe = 0 and Σ(t − 3.5)·e = 0, so the
// plain trend fit (no weekday factors, not robust) is ā = 100, b = 0, residuals e, σ² = 8 / (8 − 2)
// = 4/3, Sxx = 2·(3.5² + 2.5² + 1.5² + 0.5²) = 42. Today is day 8; the first k predicted days
// (t = 8 .. 7 + k, t − t̄ = 4.5 .. 3.5 + k) total 100·k with variance σ²·(k + k²/8 + G_k²/42),
// G_k = Σ (t − 3.5) = 4.5·k + k·(k − 1)/2; the interval is that ± z·sd.
TEST(ForecastPath, TrendFitDayByDayMatchesTheClosedForm) {
  const int e[8] = {1, -1, -1, 1, 1, -1, -1, 1};
  const DailySeries s = make(8, [&](int t) { return 100.0 + e[t]; });
  const Day today = monday() + 8;
  const Forecast f = forecast_period(s, monday(), today + 5, today,
                                     {.weekly = false, .robust = false, .anomaly = {}});
  EXPECT_EQ(f.method, "trend");
  EXPECT_NEAR(f.spent, 800, 1e-9);
  ASSERT_EQ(f.path.size(), 5u);
  for (int k = 1; k <= 5; ++k) {
    const double g = 4.5 * k + k * (k - 1) / 2.0;
    const double sd = std::sqrt(4.0 / 3.0 * (k + k * k / 8.0 + g * g / 42));
    const ForecastDay& d = f.path[static_cast<std::size_t>(k - 1)];
    EXPECT_EQ(d.day, today + k - 1);
    EXPECT_NEAR(d.expected, 800 + 100.0 * k, 1e-9) << k;
    EXPECT_NEAR(d.high - d.expected, kZ80 * sd, 1e-9) << k;
    EXPECT_NEAR(d.expected - d.low, kZ80 * sd, 1e-9) << k;
  }
  expect_well_formed(f, today + 5, "closed form");
}

// Every way forecast_period reaches a path: the robust fit with weekday factors on a noisy series
// with a spike, the plain fit, the mean of few days, late data, a 95 % interval, a period that
// starts after today.
TEST(ForecastPath, TheLastDayIsThePeriodsIntervalExactly) {
  Gaussian noise(7);
  const DailySeries s = make(60, [&](int t) {
    return (t % 7 < 5 ? 100.0 : 30.0) * (1 + 0.1 * noise()) + (t == 50 ? 600.0 : 0.0);
  });
  const Day today = monday() + 60, start = monday() + 52, end = monday() + 82;
  expect_well_formed(forecast_period(s, start, end, today), end, "robust, weekly");
  expect_well_formed(forecast_period(s, start, end, today, {.robust = false, .anomaly = {}}), end,
                     "plain");
  expect_well_formed(forecast_period(s, start, end, today, {.interval = 0.95, .anomaly = {}}), end,
                     "95 %");
  expect_well_formed(forecast_period(s, start, end, today, {}, today - 4), end, "late data");
  expect_well_formed(forecast_period(s, today + 3, today + 33, today), today + 33, "future");
  const DailySeries few = make(5, [](int t) { return 10.0 * (t + 1); });
  const Forecast mean = forecast_period(few, monday(), monday() + 15, monday() + 5);
  EXPECT_EQ(mean.method, "mean");
  expect_well_formed(mean, monday() + 15, "mean");
}

// The 80 % interval of a day inside the period holds the spend up to that day as often as the
// period's holds the period's: y_t = 100 + 0.5t + 10·N(0,1), history t = 0..55, the truth of the
// first 10 of 28 predicted days. 500 trials: binomial sd 1.8 points, 70–90 % is a > 5 sd band.
TEST(ForecastPath, TheIntervalOfADayInsideThePeriodCoversItsShare) {
  Gaussian noise(20241202);
  const Day today = monday() + 56;
  int covered = 0;
  constexpr int kTrials = 500;
  for (int trial = 0; trial < kTrials; ++trial) {
    const DailySeries history = make(56, [&](int t) { return 100 + 0.5 * t + 10 * noise(); });
    double truth = 0;
    for (int t = 56; t < 66; ++t) truth += 100 + 0.5 * t + 10 * noise();
    const Forecast f = forecast_period(history, today, today + 28, today);
    ASSERT_EQ(f.path.size(), 28u);
    const ForecastDay& d = f.path[9];
    if (d.low <= truth && truth <= d.high) ++covered;
  }
  const double coverage = static_cast<double>(covered) / kTrials;
  EXPECT_GE(coverage, 0.70);
  EXPECT_LE(coverage, 0.90);
}

TEST(ForecastPath, NothingToPredictHasNoPathAndNoHistoryStaysAtSpent) {
  const DailySeries s = make(30, [](int) { return 100.0; });
  EXPECT_TRUE(forecast_period(s, monday(), monday() + 20, monday() + 30).path.empty());  // over
  const Forecast none = forecast_period({}, monday(), monday() + 30, monday() + 5);
  EXPECT_EQ(none.method, "none");
  ASSERT_EQ(none.path.size(), 25u);
  for (const ForecastDay& d : none.path) {
    EXPECT_EQ(d.expected, 0);
    EXPECT_EQ(d.low, 0);
    EXPECT_EQ(d.high, 0);
  }
}

// 10 days of 100 spent; the plan says 500 more over the 20 days left, ±20 %: day k of 20 carries
// 25·k, so the total is 1000 + 25k in [1000 + 20k, 1000 + 30k], ending at 1500 in [1400, 1600].
TEST(ForecastPath, APlanSpreadsItsRemainingEvenly) {
  const DailySeries s = make(10, [](int) { return 100.0; });
  const Day start = monday(), end = monday() + 30, today = monday() + 10;
  const Forecast f = plan_forecast(s, start, end, today, 500, 0.2);
  ASSERT_EQ(f.path.size(), 20u);
  for (int k = 1; k <= 20; ++k) {
    const ForecastDay& d = f.path[static_cast<std::size_t>(k - 1)];
    EXPECT_EQ(d.day, today + k - 1);
    EXPECT_NEAR(d.expected, 1000 + 25.0 * k, 1e-9) << k;
    EXPECT_NEAR(d.low, 1000 + 20.0 * k, 1e-9) << k;
    EXPECT_NEAR(d.high, 1000 + 30.0 * k, 1e-9) << k;
  }
  expect_well_formed(f, end, "plan");
  EXPECT_TRUE(plan_forecast(s, start, start + 5, today, 500, 0.2).path.empty());  // period over
}

}  // namespace
}  // namespace aicost::governance
