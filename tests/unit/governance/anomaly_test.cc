// Anomaly detection on closed-form series: spikes, steps, outages, drifts and weekly patterns, the
// thresholds, episode merging, and root-cause ranking. Noise comes from seeded core::Rng.
#include "aicost/governance/anomaly.h"

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

// 100/day with sd 3 noise, one day at 250.
TEST(DetectAnomalies, SingleSpikeIsOneOneDayEpisode) {
  Gaussian noise(1);
  const DailySeries s = make(90, [&](int t) { return t == 50 ? 250.0 : 100 + 3 * noise(); });
  const std::vector<Anomaly> found = detect_anomalies(s);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].first_day, monday() + 50);
  EXPECT_EQ(found[0].last_day, monday() + 50);
  EXPECT_EQ(found[0].peak_day, monday() + 50);
  EXPECT_TRUE(found[0].increase);
  EXPECT_NEAR(found[0].impact, 150, 10);
  EXPECT_NEAR(found[0].peak_relative, 1.5, 0.1);
  EXPECT_GT(found[0].peak_deviation_sigma, 10);
}

// 100 → 200 from day 40 of 90. The new level is excluded from baselines until the episode has
// window_days/2 = 14 anomalous days, then it is the new normal: one episode, days 40..53.
TEST(DetectAnomalies, StepChangeIsOneEpisodeThatEnds) {
  Gaussian noise(2);
  const DailySeries s = make(90, [&](int t) { return (t < 40 ? 100.0 : 200.0) + 2 * noise(); });
  const std::vector<Anomaly> found = detect_anomalies(s);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].first_day, monday() + 40);
  EXPECT_EQ(found[0].last_day, monday() + 53);
  EXPECT_TRUE(found[0].increase);
  EXPECT_NEAR(found[0].impact, 14 * 100, 14 * 5);
  // A shorter window adapts sooner: 7 days.
  const std::vector<Anomaly> short_window = detect_anomalies(s, {.window_days = 14});
  ASSERT_EQ(short_window.size(), 1u);
  EXPECT_EQ(short_window[0].last_day, monday() + 46);
}

// +0.5 %/day compounding for 90 days (×1.57 overall), 1 % noise: the trailing mean lags by
// ~1.005^14.5 ≈ 7.5 %, well inside the 20 % threshold.
TEST(DetectAnomalies, SlowDriftIsNotAnomalous) {
  Gaussian noise(3);
  const DailySeries s =
      make(90, [&](int t) { return 100 * std::pow(1.005, t) * (1 + 0.01 * noise()); });
  EXPECT_TRUE(detect_anomalies(s).empty());
}

// Weekdays 100, weekends 20, 2 % noise, 12 weeks: weekends are expected low, not anomalous.
TEST(DetectAnomalies, WeeklyPatternIsNotAnomalous) {
  Gaussian noise(4);
  const DailySeries s =
      make(84, [&](int t) { return (t % 7 < 5 ? 100.0 : 20.0) * (1 + 0.02 * noise()); });
  EXPECT_TRUE(detect_anomalies(s).empty());
  for (const DayCheck& c : check_days(s)) {
    if (weekday(c.day) >= 5)
      EXPECT_NEAR(c.expected, 20, 1) << ledger::day_text(c.day);
    else
      EXPECT_NEAR(c.expected, 100, 3) << ledger::day_text(c.day);
  }
}

// Days 60..62 at zero: one episode of a drop, 3 × ~100 missing.
TEST(DetectAnomalies, OutageIsADecrease) {
  Gaussian noise(5);
  const DailySeries s =
      make(90, [&](int t) { return t >= 60 && t <= 62 ? 0.0 : 100 + 2 * noise(); });
  const std::vector<Anomaly> found = detect_anomalies(s);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0].increase);
  EXPECT_EQ(found[0].first_day, monday() + 60);
  EXPECT_EQ(found[0].last_day, monday() + 62);
  EXPECT_NEAR(found[0].impact, -300, 10);
  EXPECT_NEAR(found[0].peak_relative, 1, 1e-12);
}

// Flat 100, one day at 200 (+100 %): flagged at 20 %, hidden at 200 %.
TEST(DetectAnomalies, RelativeThresholdIsConfigurable) {
  const DailySeries s = make(60, [](int t) { return t == 40 ? 200.0 : 100.0; });
  EXPECT_EQ(detect_anomalies(s).size(), 1u);
  EXPECT_TRUE(detect_anomalies(s, {.relative_threshold = 2.0}).empty());
}

// Alternating 90/110, day 60 at 145. Window 32..59 holds 14 of each: mean 100, residual sd
// sqrt(2800/27) = 10.18, prediction sigma 10.18·sqrt(1 + 1/28) = 10.36. Deviation 45 = 4.3 sigma.
TEST(DetectAnomalies, KSigmaIsConfigurable) {
  const DailySeries s = make(90, [](int t) { return t == 60 ? 145.0 : (t % 2 ? 110.0 : 90.0); });
  const std::vector<DayCheck> checks = check_days(s, {.weekly = false});
  EXPECT_NEAR(checks[60 - 14].sigma, std::sqrt(2800.0 / 27) * std::sqrt(1 + 1.0 / 28), 1e-9);
  EXPECT_EQ(detect_anomalies(s, {.k_sigma = 4.0, .weekly = false}).size(), 1u);
  EXPECT_TRUE(detect_anomalies(s, {.k_sigma = 5.0, .weekly = false}).empty());
}

// Flat 100, one day at 130: 30 over, above the 20 % threshold and the 1 % sigma floor.
TEST(DetectAnomalies, MinImpactFiltersSmallAnomalies) {
  const DailySeries s = make(60, [](int t) { return t == 40 ? 130.0 : 100.0; });
  EXPECT_EQ(detect_anomalies(s).size(), 1u);
  EXPECT_EQ(detect_anomalies(s, {.min_impact = 30}).size(), 1u);
  EXPECT_TRUE(detect_anomalies(s, {.min_impact = 30.01}).empty());
}

TEST(CheckDays, NeedMinHistoryDays) {
  EXPECT_TRUE(check_days(make(10, [](int) { return 100.0; })).empty());
  EXPECT_TRUE(detect_anomalies(make(14, [](int t) { return t == 13 ? 1000.0 : 100.0; })).empty());
  const std::vector<DayCheck> checks = check_days(make(20, [](int) { return 100.0; }));
  ASSERT_EQ(checks.size(), 6u);
  EXPECT_EQ(checks[0].day, monday() + 14);
  EXPECT_DOUBLE_EQ(checks[0].expected, 100);
  EXPECT_DOUBLE_EQ(checks[0].sigma, 1);  // the 1 % floor of a flat series
  EXPECT_TRUE(check_days({}).empty());
}

TEST(CheckDays, GapsInTheInputAreZeroSpend) {
  DailySeries s = make(30, [](int) { return 100.0; });
  s.erase(s.begin() + 20);  // day 20 missing: spend 0, a drop
  const std::vector<Anomaly> found = detect_anomalies(s);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].first_day, monday() + 20);
  EXPECT_FALSE(found[0].increase);
}

// Spikes on days 40 and 42 with a normal day between: one episode over 40..42 (actual
// 200 + 100 + 200 = 500, expected 300); with merge_gap_days = 0, two.
TEST(DetectAnomalies, NearbyDaysMergeIntoOneEpisode) {
  const DailySeries s = make(60, [](int t) { return t == 40 || t == 42 ? 200.0 : 100.0; });
  const std::vector<Anomaly> merged = detect_anomalies(s);
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].first_day, monday() + 40);
  EXPECT_EQ(merged[0].last_day, monday() + 42);
  EXPECT_NEAR(merged[0].actual, 500, 1e-9);
  EXPECT_NEAR(merged[0].expected, 300, 1e-9);
  EXPECT_NEAR(merged[0].impact, 200, 1e-9);
  EXPECT_EQ(detect_anomalies(s, {.merge_gap_days = 0}).size(), 2u);
}

TEST(DetectAnomalies, OppositeDirectionsAreSeparateEpisodes) {
  const DailySeries s = make(60, [](int t) { return t == 40 ? 200.0 : t == 41 ? 0.0 : 100.0; });
  const std::vector<Anomaly> found = detect_anomalies(s);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_TRUE(found[0].increase);
  EXPECT_FALSE(found[1].increase);
  EXPECT_EQ(found[1].first_day, monday() + 41);
}

// compute ~100/day jumps to ~300 on days 50..52; storage ~50 and network ~20 stay put. The total
// shows one episode; compute explains it (delta ≈ 3 × 200, share ≈ 1).
TEST(RankRootCauses, TheServiceThatJumpedRanksFirst) {
  Gaussian noise(6);
  std::map<std::string, DailySeries> by_service;
  by_service["compute"] =
      make(70, [&](int t) { return (t >= 50 && t <= 52 ? 300.0 : 100.0) + 2 * noise(); });
  by_service["network"] = make(70, [&](int) { return 20 + 0.5 * noise(); });
  by_service["storage"] = make(70, [&](int) { return 50 + 1 * noise(); });
  DailySeries total = make(70, [](int) { return 0.0; });
  for (const auto& [name, s] : by_service)
    for (std::size_t i = 0; i < s.size(); ++i) total[i].amount += s[i].amount;

  const std::vector<Anomaly> found = detect_anomalies(total);
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].first_day, monday() + 50);
  ASSERT_EQ(found[0].last_day, monday() + 52);
  const std::vector<Contribution> causes =
      rank_root_causes(by_service, found[0].first_day, found[0].last_day);
  ASSERT_EQ(causes.size(), 3u);
  EXPECT_EQ(causes[0].value, "compute");
  EXPECT_NEAR(causes[0].delta, 600, 20);
  EXPECT_NEAR(causes[0].share, 1, 0.05);
  EXPECT_NEAR(causes[0].actual - causes[0].expected, causes[0].delta, 1e-9);
}

// A value with no history before the episode had an expected spend of 0: all of it is delta.
// Equal deltas rank by name.
TEST(RankRootCauses, NewValueIsAllDeltaAndTiesRankByName) {
  std::map<std::string, DailySeries> by_value;
  by_value["cpu"] = make(60, [](int) { return 100.0; });
  by_value["gpu"] = {{monday() + 50, 500}, {monday() + 51, 500}};
  by_value["b-flat"] = make(60, [](int) { return 10.0; });
  by_value["a-flat"] = make(60, [](int) { return 10.0; });
  const std::vector<Contribution> causes = rank_root_causes(by_value, monday() + 50, monday() + 51);
  ASSERT_EQ(causes.size(), 4u);
  EXPECT_EQ(causes[0].value, "gpu");
  EXPECT_DOUBLE_EQ(causes[0].expected, 0);
  EXPECT_DOUBLE_EQ(causes[0].delta, 1000);
  EXPECT_DOUBLE_EQ(causes[0].share, 1);
  EXPECT_EQ(causes[1].value, "a-flat");
  EXPECT_EQ(causes[2].value, "b-flat");
  EXPECT_EQ(causes[3].value, "cpu");
  EXPECT_DOUBLE_EQ(causes[3].delta, 0);
}

}  // namespace
}  // namespace aicost::governance
