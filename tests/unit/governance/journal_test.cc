// The change journal's arithmetic (governance/journal.h) on tiny series with hand-derived answers.
#include "aicost/governance/journal.h"

#include <gtest/gtest.h>

#include <cmath>

#include "aicost/core/stats.h"

namespace aicost::governance {
namespace {

// before {9, 10, 11}: mean 10, s^2 = 1; after {7, 8, 9}: mean 8, s^2 = 1. se^2 = 1/3 + 1/3 = 2/3;
// df = (2/3)^2 / ((1/3)^2/2 + (1/3)^2/2) = 4; t_{0.975,4} = 2.776445105 (A&S table 26.10).
// effect = -2/10 = -20 %; half-width = 2.776445105 * sqrt(2/3) / 10 = 0.2266965...
TEST(WelchEffect, MatchesTheClosedForm) {
  const std::vector<double> before = {9, 10, 11}, after = {7, 8, 9};
  auto e = welch_effect(before, after);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->before, 10);
  EXPECT_DOUBLE_EQ(e->after, 8);
  EXPECT_NEAR(e->effect, -0.2, 1e-15);
  EXPECT_NEAR(e->df, 4, 1e-12);
  const double half = 2.776445105 * std::sqrt(2.0 / 3.0) / 10;
  EXPECT_NEAR(e->lo, -0.2 - half, 1e-8);
  EXPECT_NEAR(e->hi, -0.2 + half, 1e-8);
}

// Unequal variances and sizes: df from Satterthwaite, here by hand. before {1, 3} (mean 2, s^2 2),
// after {2, 2, 2, 6} (mean 3, s^2 4): v_b = 1, v_a = 1, df = 4 / (1/1 + 1/3) = 3.
TEST(WelchEffect, UnequalVariancesTakeSatterthwaitesDegrees) {
  const std::vector<double> before = {1, 3}, after = {2, 2, 2, 6};
  auto e = welch_effect(before, after);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->df, 3, 1e-12);
  EXPECT_NEAR(e->hi - e->effect, core::student_t_quantile(0.975, 3) * std::sqrt(2.0) / 2, 1e-12);
}

TEST(WelchEffect, TooFewValuesOrAZeroMeanGiveNothing) {
  const std::vector<double> one = {1}, two = {1, 2}, zeros = {0, 0};
  EXPECT_FALSE(welch_effect(one, two));
  EXPECT_FALSE(welch_effect(two, one));
  EXPECT_FALSE(welch_effect(zeros, two));
  // No spread at all: the interval is the point.
  const std::vector<double> flat = {2, 2}, half = {1, 1};
  auto e = welch_effect(flat, half);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->lo, -0.5);
  EXPECT_DOUBLE_EQ(e->hi, -0.5);
}

constexpr ledger::Day kChange = 100;

// Days kChange - 4 .. kChange + 3: cost `before`/`after` per GPU-hour alternating +-spread, 10
// GPU-hours a day, with `active` SM activity on observed hours and `tokens` a day.
std::vector<ScopeDay> days(double before, double after, double spread, double active_before = 0,
                           double active_after = 0, double tokens = 0) {
  std::vector<ScopeDay> out;
  for (ledger::Day d = kChange - 4; d < kChange + 4; ++d) {
    const double unit = (d < kChange ? before : after) + (d % 2 ? spread : -spread);
    const double active = d < kChange ? active_before : active_after;
    out.push_back({d, unit * 10, 10, active > 0 ? 10.0 : 0.0, active * 10, tokens});
  }
  return out;
}

ledger::Change change(std::vector<ledger::Guardrail> g = {}) {
  ledger::Change c;
  c.id = 1;
  c.day = kChange;
  c.lever = "pricing-reserved";
  c.guardrails = std::move(g);
  return c;
}

ChangeOptions options(ledger::Day as_of = kChange + 4) { return {as_of, 4, 0.95, {}}; }

TEST(MeasureChange, ALowerUnitCostBeyondDoubtIsKept) {
  const auto d = days(10, 8, 0.1);
  auto r = measure_change(change(), d, options());
  EXPECT_EQ(r.metric, UnitMetric::kPerGpuHour);
  EXPECT_EQ(r.days_before, 4);
  EXPECT_EQ(r.days_after, 4);
  ASSERT_TRUE(r.effect);
  EXPECT_NEAR(r.effect->effect, -0.2, 1e-12);
  EXPECT_EQ(r.verdict, Verdict::kKept);
}

TEST(MeasureChange, AnIntervalHoldingZeroIsNoEffect) {
  const auto d = days(10, 9.9, 1);
  auto r = measure_change(change(), d, options());
  ASSERT_TRUE(r.effect);
  EXPECT_LT(r.effect->lo, 0);
  EXPECT_GT(r.effect->hi, 0);
  EXPECT_EQ(r.verdict, Verdict::kNoEffect);
}

TEST(MeasureChange, AWindowNotOverIsTooEarlyUnlessAGuardrailIsCrossed) {
  const auto d = days(10, 8, 0.1, 0.6, 0.2);
  auto early = measure_change(change(), d, options(kChange + 3));
  EXPECT_FALSE(early.window_complete);
  EXPECT_EQ(early.verdict, Verdict::kTooEarly);
  EXPECT_EQ(early.days_after, 3);  // kChange + 3 is not yet in
  auto guarded = measure_change(change({{ledger::GuardrailKind::kMinGpuActivity, 0.4}}), d,
                                options(kChange + 3));
  EXPECT_EQ(guarded.verdict, Verdict::kStopLoss);
  ASSERT_EQ(guarded.guardrails.size(), 1u);
  EXPECT_TRUE(guarded.guardrails[0].crossed);
  EXPECT_NEAR(*guarded.guardrails[0].before, 0.6, 1e-12);
  EXPECT_NEAR(*guarded.guardrails[0].after, 0.2, 1e-12);
}

TEST(MeasureChange, AUnitCostRiseIsAStopLoss) {
  // Beyond doubt, without a guardrail.
  auto rise = measure_change(change(), days(10, 12, 0.1), options());
  EXPECT_EQ(rise.verdict, Verdict::kStopLoss);
  EXPECT_EQ(rise.why, "the unit cost rose");
  // Past the guardrail's limit on the point estimate: +5 % > 3 %, though the interval holds 0.
  auto guarded = measure_change(change({{ledger::GuardrailKind::kMaxUnitCostRise, 0.03}}),
                                days(10, 10.5, 1), options());
  ASSERT_TRUE(guarded.effect);
  EXPECT_LT(guarded.effect->lo, 0);
  EXPECT_EQ(guarded.verdict, Verdict::kStopLoss);
  EXPECT_TRUE(guarded.guardrails[0].crossed);
  auto within = measure_change(change({{ledger::GuardrailKind::kMaxUnitCostRise, 0.06}}),
                               days(10, 10.5, 1), options());
  EXPECT_EQ(within.verdict, Verdict::kNoEffect);
  EXPECT_FALSE(within.guardrails[0].crossed);
}

// A guardrails file's limits hold for a change recorded without one of their kind; a change's own
// limit of a kind wins over the file's.
TEST(MeasureChange, TheFilesGuardrailsHoldWhereTheChangeSetsNoneOfTheirKind) {
  const auto d = days(10, 10.5, 1, 0.5, 0.5);  // +5 %, the interval holding 0; activity 50 %
  auto o = options();
  o.guardrails = {{ledger::GuardrailKind::kMaxUnitCostRise, 0.03},
                  {ledger::GuardrailKind::kMinGpuActivity, 0.1}};
  // No limit of its own: both of the file's, the rise crossed (+5 % > 3 %), the activity not (50 %
  // > 10 %).
  auto bare = measure_change(change(), d, o);
  ASSERT_EQ(bare.guardrails.size(), 2u);
  EXPECT_EQ(bare.guardrails[0].guardrail.kind, ledger::GuardrailKind::kMaxUnitCostRise);
  EXPECT_TRUE(bare.guardrails[0].crossed);
  EXPECT_FALSE(bare.guardrails[1].crossed);
  EXPECT_EQ(bare.verdict, Verdict::kStopLoss);
  // Its own 6 % replaces the file's 3 %; the file's activity floor still holds (and is not
  // crossed).
  auto own = measure_change(change({{ledger::GuardrailKind::kMaxUnitCostRise, 0.06}}), d, o);
  ASSERT_EQ(own.guardrails.size(), 2u);
  EXPECT_DOUBLE_EQ(own.guardrails[0].guardrail.limit, 0.06);
  EXPECT_FALSE(own.guardrails[0].crossed);
  EXPECT_EQ(own.guardrails[1].guardrail.kind, ledger::GuardrailKind::kMinGpuActivity);
  EXPECT_EQ(own.verdict, Verdict::kNoEffect);
  // Without a file, the same change has no limit and no stop-loss.
  EXPECT_EQ(measure_change(change(), d, options()).verdict, Verdict::kNoEffect);
}

// Tokens first, then useful GPU-hours, then GPU-hours: per 1M tokens = cost / (tokens / 1e6).
TEST(MeasureChange, TheMetricIsTokensThenUsefulThenGpuHours) {
  auto tokens = measure_change(change(), days(10, 8, 0.1, 0.5, 0.5, 2e6), options());
  EXPECT_EQ(tokens.metric, UnitMetric::kPerMillionTokens);
  ASSERT_TRUE(tokens.effect);
  EXPECT_NEAR(tokens.effect->before, 10 * 10 / 2.0, 1e-9);  // 100 a day over 2M tokens
  // Busy half the time: a useful GPU-hour costs twice a GPU-hour.
  auto useful = measure_change(change(), days(10, 8, 0.1, 0.5, 0.5), options());
  EXPECT_EQ(useful.metric, UnitMetric::kPerUsefulGpuHour);
  EXPECT_NEAR(useful.effect->before, 20, 1e-9);
  auto plain = measure_change(change(), days(10, 8, 0.1), options());
  EXPECT_EQ(plain.metric, UnitMetric::kPerGpuHour);
}

}  // namespace
}  // namespace aicost::governance
