// The robust fit (ForecastOptions::robust, the default) on closed-form series with spikes, level
// shifts and weekly jobs; days after the data (late data); and forecasts that come from a plan.
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

// The robust fit (ForecastOptions::robust, the default) on closed-form series.

// 100/day for 56 days with a 2-day spike of +400 on t = 40, 41; the period is t = 36..65, so the
// spike's 800 is spent and the 10 days to come cost 100 each: remaining 1000 (the flat truth).
// The detector flags both days (a flat series' sigma is floored at 1 % of the level), the fit
// reads the baseline 100 for them, so the forecast is exact. The old fit keeps the spike: level
// ā = 100 + 800/56, slope b = Σ(t − t̄)·400 / Sxx = 400·(12.5 + 13.5) / (56·(56² − 1)/12) =
// 10400/14630, remaining = 10·ā + b·Σ_{t=56}^{65}(t − 27.5) = 1142.86 + 0.71087·330 = 1377.45 (+38
// %).
TEST(RobustForecast, TwoDaySpikeDoesNotLiftTheForecast) {
  const Day today = monday() + 56;
  const DailySeries s = make(56, [](int t) { return t == 40 || t == 41 ? 500.0 : 100.0; });
  const Forecast f = forecast_period(s, today - 20, today + 10, today);
  EXPECT_NEAR(f.spent, 2800, 1e-9);
  EXPECT_NEAR(f.remaining, 1000, 1e-6);
  EXPECT_EQ(f.replaced_days, 2);
  EXPECT_EQ(f.level_shifts, 0);
  const Forecast old = forecast_period(s, today - 20, today + 10, today,
                                       {.weekly = false, .robust = false, .anomaly = {}});
  EXPECT_NEAR(old.remaining, 10 * (100 + 800.0 / 56) + 10400.0 / 14630 * 330, 1e-6);
  EXPECT_EQ(old.replaced_days, 0);
}

// The same with noise: y_t = 100·(1 + 0.05·N(0,1)) and the spike ×5 on t = 40, 41, weekday
// factors on. The truth of the 10 days to come is their expected value 1000; the forecast's own
// error has sd ≈ 5·sqrt(10 + 100/56 + 330²/14630) ≈ 20, so ±60 (3 sd) holds it, and seed by seed
// the old fit misses by ~+380.
TEST(RobustForecast, NoisySpikeForecastStaysNearTheFlatTruth) {
  Gaussian noise(42);
  const Day today = monday() + 56;
  for (int trial = 0; trial < 20; ++trial) {
    const DailySeries s = make(
        56, [&](int t) { return (t == 40 || t == 41 ? 500.0 : 100.0) * (1 + 0.05 * noise()); });
    const Forecast f = forecast_period(s, today - 20, today + 10, today);
    EXPECT_NEAR(f.remaining, 1000, 60) << "trial " << trial;
    EXPECT_GE(f.replaced_days, 2) << "trial " << trial;
    const Forecast old =
        forecast_period(s, today - 20, today + 10, today, {.robust = false, .anomaly = {}});
    EXPECT_GT(old.remaining, 1200) << "trial " << trial;
  }
}

// 100/day, then 200/day from t = 46: 10 days at the new level before today. The shift's episode
// has >= 3 anomalous days and is still running, so the days before it are scaled by 200/100 and
// the 10 days to come cost 2000. The old fit draws a line through the step: ā = 100 + 1000/56,
// b = 100·Σ_{t=46}^{55}(t − 27.5) / Sxx = 100·230/14630, remaining = 10·ā + b·330 = 1697.4 (−15 %).
TEST(RobustForecast, LastingLevelShiftBecomesTheNewLevel) {
  const Day today = monday() + 56;
  const DailySeries s = make(56, [](int t) { return t < 46 ? 100.0 : 200.0; });
  const Forecast f = forecast_period(s, today, today + 10, today);
  EXPECT_NEAR(f.remaining, 2000, 1e-6);
  EXPECT_EQ(f.level_shifts, 1);
  EXPECT_EQ(f.replaced_days, 0);
  const Forecast old = forecast_period(s, today, today + 10, today,
                                       {.weekly = false, .robust = false, .anomaly = {}});
  EXPECT_NEAR(old.remaining, 10 * (100 + 1000.0 / 56) + 100 * 230.0 / 14630 * 330, 1e-6);
}

// A step up that the detector took as the new normal (100 -> 200 from t = 20, 36 days before
// today) and that has long stopped being flagged: still the level, 10 days cost 2000.
TEST(RobustForecast, OldAcceptedShiftStaysTheLevel) {
  const Day today = monday() + 56;
  const DailySeries s = make(56, [](int t) { return t < 20 ? 100.0 : 200.0; });
  EXPECT_NEAR(forecast_period(s, today, today + 10, today).remaining, 2000, 1e-6);
}

// A 5-day plateau that went back (100, 300 on t = 40..44, 100 after): more than shift_days
// anomalous days, but the days after it are at the old level, so it is a one-off.
TEST(RobustForecast, PlateauThatWentBackIsOneOff) {
  const Day today = monday() + 56;
  const DailySeries s = make(56, [](int t) { return t >= 40 && t < 45 ? 300.0 : 100.0; });
  const Forecast f = forecast_period(s, today, today + 10, today);
  EXPECT_NEAR(f.remaining, 1000, 1e-6);
  EXPECT_EQ(f.replaced_days, 5);
  EXPECT_EQ(f.level_shifts, 0);
}

// A spike inside a shift's episode (the detector merges them): 100/day, 200 from t = 40, and ×3
// (600) on t = 47, 48. Once the shift is taken out the spike stands out and is replaced; the
// weekdays it fell on do not keep its extra either. The 10 days to come cost 2000.
TEST(RobustForecast, SpikeInsideAShiftIsLeftOut) {
  const Day today = monday() + 56;
  const DailySeries s = make(56, [](int t) {
    return t < 40 ? 100.0 : t == 47 || t == 48 ? 600.0 : 200.0;
  });
  const Forecast f = forecast_period(s, today, today + 10, today);
  EXPECT_NEAR(f.remaining, 2000, 1e-6);
  EXPECT_EQ(f.level_shifts, 1);
  EXPECT_EQ(f.replaced_days, 2);
}

// A weekly job from some day on: 1000/day, Sundays 3000 from t = 28 (8 weeks of 84 days). The
// detector flags each Sunday as a one-day one-off (its baseline leaves flagged days out, so it
// never learns them); one-offs a week apart are a pattern and stay in the fit. The next 14 days
// hold 2 Sundays: 12·1000 + 2·3000 = 18000.
TEST(RobustForecast, NewWeeklyJobIsAPatternNotOneOffs) {
  const Day today = monday() + 84;
  const DailySeries s = make(84, [](int t) { return t >= 28 && t % 7 == 6 ? 3000.0 : 1000.0; });
  const Forecast f = forecast_period(s, today, today + 14, today);
  EXPECT_NEAR(f.remaining, 18000, 1e-6);
  EXPECT_EQ(f.replaced_days, 0);
}

// A drop that lasts (an outage of a workload, 100 -> 40 from t = 50) is followed the same way:
// 6 days at 40, the next 10 days cost 400.
TEST(RobustForecast, LastingDropBecomesTheNewLevel) {
  const Day today = monday() + 56;
  const DailySeries s = make(56, [](int t) { return t < 50 ? 100.0 : 40.0; });
  const Forecast f = forecast_period(s, today, today + 10, today);
  EXPECT_NEAR(f.remaining, 400, 1e-6);
  EXPECT_EQ(f.level_shifts, 1);
}

// shift_days is the boundary: 200/day on the last k days of a 100/day series. With k = 2 < 3 the
// episode is one-off (expected to end: 10 days at 100); with k = 3 it is the new level (10 at 200).
TEST(RobustForecast, ShiftDaysSeparatesOneOffFromLasting) {
  const Day today = monday() + 56;
  for (int k : {2, 3}) {
    const DailySeries s = make(56, [&](int t) { return t >= 56 - k ? 200.0 : 100.0; });
    const Forecast f = forecast_period(s, today, today + 10, today);
    EXPECT_NEAR(f.remaining, k < 3 ? 1000 : 2000, 1e-6) << k;
    // A larger shift_days keeps a 3-day run a one-off too.
    EXPECT_NEAR(
        forecast_period(s, today, today + 10, today, {.shift_days = 4, .anomaly = {}}).remaining,
        1000, 1e-6)
        << k;
  }
}

// Weekdays 100, weekends 20 from Monday 2024-01-01, with a ×5 Wednesday spike on 2024-03-06; today
// 2024-03-13, the period March 2024. Closed form: spent = the March days before the 13th
// (8 weekdays, 4 weekend days, and the spike's extra 400 on the 6th) = 800 + 80 + 400; to come,
// the 13th to the 31st: 13 weekdays and 6 weekend days = 1300 + 120. Weekday factors read from a
// cleaned series are exactly 1.667/0.333 of the level, so the fit is exact.
TEST(RobustForecast, WeeklyPatternMonthEndMatchesClosedForm) {
  const Day march = ledger::days_from_civil(2024, 3, 1),
            april = ledger::days_from_civil(2024, 4, 1);
  const Day today = ledger::days_from_civil(2024, 3, 13),
            spike = ledger::days_from_civil(2024, 3, 6);
  auto pattern = [](Day d) { return weekday(d) < 5 ? 100.0 : 20.0; };
  const DailySeries s = make(today - monday(), [&](int t) {
    const Day d = monday() + t;
    return d == spike ? 5 * pattern(d) : pattern(d);
  });
  double spent = 0, to_come = 0;
  for (Day d = march; d < april; ++d) (d < today ? spent : to_come) += pattern(d);
  spent += 400;
  ASSERT_NEAR(spent, 1280, 1e-9);
  ASSERT_NEAR(to_come, 1420, 1e-9);
  const Forecast f = forecast_period(s, march, april, today);
  EXPECT_EQ(f.method, "trend+weekly");
  EXPECT_EQ(f.replaced_days, 1);
  EXPECT_NEAR(f.spent, spent, 1e-9);
  EXPECT_NEAR(f.expected, spent + to_come, 1e-6);
}

// Without anomalies the robust fit is the plain one.
TEST(RobustForecast, SameAsPlainFitWithoutAnomalies) {
  Gaussian noise(7);
  const Day today = monday() + 56;
  const DailySeries s = make(56, [&](int t) { return 100 + 0.5 * t + 3 * noise(); });
  const Forecast robust = forecast_period(s, today, today + 20, today);
  const Forecast plain =
      forecast_period(s, today, today + 20, today, {.robust = false, .anomaly = {}});
  EXPECT_EQ(robust.replaced_days, 0);
  EXPECT_EQ(robust.level_shifts, 0);
  EXPECT_DOUBLE_EQ(robust.expected, plain.expected);
  EXPECT_DOUBLE_EQ(robust.high, plain.high);
}

// 100/day on days 0..50 from a Monday, then nothing: the export is 5 days late at today = day 56
// (days 51..55 missing). Period: days 42..71 (30 days). By hand, a flat month costs
// 30 · 100 = 3000: 9 days in the ledger (42..50, 900) and 21 to come (51..71, 2100), the 5 late
// days among them. The plain reading (the late days as zeros) sees 5 anomalous days at 0, a lasting
// shift, and forecasts 0 for the rest: 900.
TEST(LateData, DaysAfterTheDataAreForecastNotZero) {
  const Day today = monday() + 56, start = monday() + 42, end = monday() + 72;
  const DailySeries s = make(51, [](int) { return 100.0; });
  const Forecast f = forecast_period(s, start, end, today, {}, monday() + 50);
  EXPECT_EQ(f.method, "trend+weekly");
  EXPECT_EQ(f.history_days_used, 51);
  EXPECT_EQ(f.level_shifts, 0);
  EXPECT_NEAR(f.spent, 900, 1e-9);  // what the ledger holds
  EXPECT_NEAR(f.remaining, 2100, 1e-6);
  EXPECT_NEAR(f.expected, 3000, 1e-6);
  EXPECT_NEAR(f.high - f.low, 0, 1e-6);

  const Forecast zeros = forecast_period(s, start, end, today);
  EXPECT_EQ(zeros.level_shifts, 1);
  EXPECT_NEAR(zeros.expected, 900, 1e-6);
}

// Data through the day before today, or later: nothing is unknown, the same as no data_through.
TEST(LateData, FreshDataChangesNothing) {
  const Day today = monday() + 56;
  const DailySeries s = make(56, [](int t) { return 100.0 + t; });
  const Forecast plain = forecast_period(s, today - 10, today + 20, today);
  for (Day through : {today - 1, today, today + 3}) {
    const Forecast f = forecast_period(s, today - 10, today + 20, today, {}, through);
    EXPECT_DOUBLE_EQ(f.expected, plain.expected) << through - today;
    EXPECT_DOUBLE_EQ(f.high, plain.high) << through - today;
  }
}

// A period that ended before today but whose last 3 days the data does not cover yet is still
// forecast, not closed at what arrived: 100/day on days 0..52, period days 28..55 (28 days),
// today day 60: 25 days known (2500) + 3 forecast (300) = 2800, method not "actual".
TEST(LateData, AnEndedPeriodWithLateDaysIsForecast) {
  const DailySeries s = make(53, [](int) { return 100.0; });
  const Forecast f =
      forecast_period(s, monday() + 28, monday() + 56, monday() + 60, {}, monday() + 52);
  EXPECT_EQ(f.method, "trend+weekly");
  EXPECT_NEAR(f.spent, 2500, 1e-9);
  EXPECT_NEAR(f.expected, 2800, 1e-6);
}

// 10 days of 100 spent; the plan says 500 more, ±20 % → 1500 in [1400, 1600].
TEST(PlanForecast, RemainingComesFromThePlan) {
  const DailySeries s = make(10, [](int) { return 100.0; });
  const Day start = monday(), end = monday() + 30, today = monday() + 10;
  const Forecast f = plan_forecast(s, start, end, today, 500, 0.2);
  EXPECT_EQ(f.method, "plan");
  EXPECT_NEAR(f.spent, 1000, 1e-9);
  EXPECT_NEAR(f.remaining, 500, 1e-9);
  EXPECT_NEAR(f.expected, 1500, 1e-9);
  EXPECT_NEAR(f.low, 1400, 1e-9);
  EXPECT_NEAR(f.high, 1600, 1e-9);
  // ±150 %: the low end stops at what is already spent.
  const Forecast wide = plan_forecast(s, start, end, today, 500, 1.5);
  EXPECT_NEAR(wide.low, 1000, 1e-9);
  EXPECT_NEAR(wide.high, 2250, 1e-9);
  EXPECT_EQ(plan_forecast(s, start, end, today, -50, 0.2).remaining, 0);
  EXPECT_EQ(plan_forecast(s, start, start + 5, today, 500, 0.2).expected, 500);  // period over
}

}  // namespace
}  // namespace aicost::governance
