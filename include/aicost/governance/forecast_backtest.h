// Back-testing the month-end forecast (forecast.h): seeded synthetic daily spend with planted
// spikes, level shifts, growth and weekly patterns, and a rolling-origin evaluation of
// forecast_period on any dense daily series. Used by
// tests/unit/governance/forecast_backtest_test.cc and tools/forecast_backtest (the figures in
// docs/GOVERNANCE.md). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aicost/governance/forecast.h"
#include "aicost/governance/series.h"

namespace aicost::governance {

// What a synthetic series holds. Amounts in currency units per day.
struct SyntheticSpend {
  double level = 1000;            // weekday spend on the first day, before noise
  double noise = 0.05;            // each day × (1 + noise·N(0,1)), clamped at 0
  double weekend_factor = 1;      // Saturday and Sunday spend relative to weekdays (1: none)
  double growth_per_30_days = 0;  // linear: level·(1 + growth·t/30) on day t
  double spikes_per_30_days = 0;  // one-off spikes of 1-3 days, each day + (1..3)·the day's base
  double shifts_per_30_days = 0;  // lasting shifts of the level by ×0.5..0.8 or ×1.25..2
};

enum class PlantedKind { kSpike, kShift };

struct PlantedEvent {
  PlantedKind kind = PlantedKind::kSpike;
  ledger::Day first_day = 0;
  ledger::Day last_day = 0;  // inclusive; a shift's is its first day (it lasts)
};

struct SyntheticSeries {
  DailySeries series;  // dense, `days` days from first_day
  std::vector<PlantedEvent> events;
};

// The patterns the back-test reports, by name: "flat", "weekly", "growth", "spikes", "shifts",
// "mixed" (weekly + growth + spikes + shifts). Noise 5 % a day; weekends at 40 % where weekly.
struct NamedPattern {
  std::string name;
  SyntheticSpend spec;
};
std::vector<NamedPattern> backtest_patterns();

// `days` days of spend from `first_day`. Events start with probability rate/30 on a day, never
// within 7 days after the previous event ends, and not in the first 28 days (the detector's
// window). The same seed gives the same series on every platform (core::Rng).
SyntheticSeries synthetic_spend(const SyntheticSpend& spec, ledger::Day first_day, int days,
                                std::uint64_t seed);

// Whether an origin's month is one whose pattern holds, as the back-test reports it.
enum class OriginKind {
  kHolds,     // no event on [origin, period end), no shift started in the 7 days before origin
  kNewShift,  // a shift started in the 7 days before origin: its persistence is not yet known
  kAhead,     // an event on a day of [origin, period end): no forecast can know it
};
OriginKind classify_origin(const std::vector<PlantedEvent>& events, ledger::Day origin,
                           ledger::Day period_end);
std::string origin_kind_name(OriginKind k);  // "holds", "new shift", "event ahead"

// One month-end forecast made at `origin` (spend before it known) against what the month cost.
struct BacktestPoint {
  ledger::Day origin = 0;
  ledger::Day period_start = 0, period_end = 0;  // the calendar month holding origin
  double truth = 0;                              // the month's actual total
  double forecast = 0;                           // forecast_period(...).expected
  // (forecast − truth) / |truth|; 0 when both are 0, ±infinity when only truth is 0.
  double error() const;
};

// Rolling origin: every day `origin` of the dense series whose calendar month lies whole inside
// the series (or, with partial_last_month, a last month cut at the series' end, the period then
// ending there), with origin − period_start >= 1 (something spent) and >= min_history_days days of
// series before origin. Each forecast sees the series' days in
// [origin − history_days − anomaly.window_days (robust only), origin), as run_check passes them.
std::vector<BacktestPoint> backtest_month_end(const DailySeries& dense_series,
                                              const ForecastOptions& options,
                                              int min_history_days = 28,
                                              bool partial_last_month = false);

// The q-quantile (0..1, linear interpolation between order statistics) of |error| over `points`;
// 0 when empty.
double abs_error_quantile(const std::vector<BacktestPoint>& points, double q);

}  // namespace aicost::governance
