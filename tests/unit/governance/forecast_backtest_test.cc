// The month-end forecast's back-test (forecast_backtest.h): the synthetic series it plants events
// in, the rolling origin, and the bound the robust forecast must keep on the seeded patterns
// (docs/GOVERNANCE.md; tools/forecast_backtest prints the full table).
#include "aicost/governance/forecast_backtest.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "governance/series_support.h"

namespace aicost::governance {
namespace {

using governance::testing::monday;
using ledger::Day;

TEST(SyntheticSpend, SameSeedSameSeriesAndEventsArePlanted) {
  SyntheticSpend spec;
  spec.spikes_per_30_days = 1;
  spec.shifts_per_30_days = 0.5;
  const SyntheticSeries a = synthetic_spend(spec, monday(), 365, 9),
                        b = synthetic_spend(spec, monday(), 365, 9);
  ASSERT_EQ(a.series.size(), 365u);
  ASSERT_EQ(a.events.size(), b.events.size());
  for (std::size_t i = 0; i < a.series.size(); ++i)
    EXPECT_EQ(a.series[i].amount, b.series[i].amount);
  int spikes = 0, shifts = 0;
  for (const PlantedEvent& e : a.events) {
    EXPECT_GE(e.first_day, monday() + 28);
    (e.kind == PlantedKind::kSpike ? spikes : shifts)++;
  }
  // Events start at rate 1.5/30 on days outside the 7 quiet days after each: several of each kind.
  EXPECT_GE(spikes, 3);
  EXPECT_GE(shifts, 2);
}

// Without noise or events: weekdays 1000, weekends 400, exactly.
TEST(SyntheticSpend, NoiselessWeeklyPatternIsExact) {
  SyntheticSpend spec;
  spec.noise = 0;
  spec.weekend_factor = 0.4;
  const SyntheticSeries s = synthetic_spend(spec, monday(), 14, 1);
  for (const DayAmount& p : s.series) EXPECT_DOUBLE_EQ(p.amount, weekday(p.day) < 5 ? 1000 : 400);
  EXPECT_TRUE(s.events.empty());
}

TEST(Backtest, ClassifiesOrigins) {
  const Day d = monday() + 100;
  const std::vector<PlantedEvent> events = {{PlantedKind::kSpike, d, d + 1},
                                            {PlantedKind::kShift, d + 40, d + 40}};
  EXPECT_EQ(classify_origin(events, d + 2, d + 20), OriginKind::kHolds);  // the spike is history
  EXPECT_EQ(classify_origin(events, d - 5, d + 20), OriginKind::kAhead);  // the spike is to come
  EXPECT_EQ(classify_origin(events, d + 1, d + 20),
            OriginKind::kAhead);  // its second day is to come
  EXPECT_EQ(classify_origin(events, d + 43, d + 60), OriginKind::kNewShift);
  EXPECT_EQ(classify_origin(events, d + 48, d + 60), OriginKind::kHolds);  // 8 days on: settled
}

// Constant 100/day over January..March 2024: every forecast is exact, and the origins are every day
// of each whole month from the 2nd, after 28 days of history: Jan 29..31 (3), Feb 2..29 (28),
// Mar 2..31 (30).
TEST(Backtest, RollingOriginOverWholeMonths) {
  const Day jan = ledger::days_from_civil(2024, 1, 1), apr = ledger::days_from_civil(2024, 4, 1);
  DailySeries s;
  for (Day d = jan; d < apr; ++d) s.push_back({d, 100});
  const auto points = backtest_month_end(s, {});
  ASSERT_EQ(points.size(), 61u);
  EXPECT_EQ(points.front().origin, ledger::days_from_civil(2024, 1, 29));
  EXPECT_NEAR(points[5].truth, 2900, 1e-9);  // February 2024: 29 days
  for (const BacktestPoint& p : points) EXPECT_NEAR(p.error(), 0, 1e-9);
  EXPECT_NEAR(abs_error_quantile(points, 0.9), 0, 1e-9);
  // A last month cut at the series' end: March 2024 without its last 11 days gives no new origins
  // unless partial_last_month, which then ends the period on the 20th.
  const DailySeries cut(s.begin(), s.end() - 11);
  EXPECT_EQ(backtest_month_end(cut, {}).size(), 31u);
  const auto partial = backtest_month_end(cut, {}, 28, true);
  ASSERT_EQ(partial.size(), 31u + 19u);
  EXPECT_NEAR(partial.back().truth, 2000, 1e-9);
}

TEST(Backtest, AbsErrorQuantileInterpolates) {
  std::vector<BacktestPoint> p;
  for (double e : {0.3, -0.1, 0.2, 0.0}) p.push_back({0, 0, 0, 100, 100 * (1 + e)});
  EXPECT_NEAR(abs_error_quantile(p, 0.5), 0.15, 1e-12);  // |e| sorted 0, .1, .2, .3
  EXPECT_NEAR(abs_error_quantile(p, 1.0), 0.3, 1e-12);
  EXPECT_EQ(abs_error_quantile({}, 0.5), 0);
}

// The bound of issue 18: on data whose pattern holds, the month-end forecast lands within 10 % of
// the month's truth. Seeded (3 seeds x 2 years per pattern), so the figures are fixed; the plain
// fit of every day as it is misses it where one-off spikes and shifts sit in the history.
TEST(Backtest, RobustForecastWithinTenPercentWherePatternHolds) {
  ForecastOptions plain;
  plain.robust = false;
  std::map<std::string, double> p90_robust, p90_plain;
  for (const NamedPattern& pattern : backtest_patterns()) {
    std::vector<BacktestPoint> robust_holds, plain_holds;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const SyntheticSeries s = synthetic_spend(pattern.spec, monday(), 730, seed);
      for (const BacktestPoint& p : backtest_month_end(s.series, {}))
        if (classify_origin(s.events, p.origin, p.period_end) == OriginKind::kHolds)
          robust_holds.push_back(p);
      for (const BacktestPoint& p : backtest_month_end(s.series, plain))
        if (classify_origin(s.events, p.origin, p.period_end) == OriginKind::kHolds)
          plain_holds.push_back(p);
    }
    ASSERT_GT(robust_holds.size(), 500u) << pattern.name;
    p90_robust[pattern.name] = abs_error_quantile(robust_holds, 0.9);
    p90_plain[pattern.name] = abs_error_quantile(plain_holds, 0.9);
    EXPECT_LT(p90_robust[pattern.name], 0.10) << pattern.name;
    EXPECT_LT(abs_error_quantile(robust_holds, 0.5), 0.05) << pattern.name;
  }
  EXPECT_GT(p90_plain["spikes"], 0.10);
  EXPECT_GT(p90_plain["shifts"], 0.10);
  EXPECT_GT(p90_plain["mixed"], 0.10);
}

}  // namespace
}  // namespace aicost::governance
