// End-of-period spend forecasts: how much a budget period will cost in total, with an interval.
//
// Two sources of the remaining spend: extrapolation of the daily history (forecast_period: a
// least-squares linear trend times weekday factors, like the run-rate forecasts of AWS Cost
// Explorer and OCI, reference/finops.md §3, §5), or a plan that already says what the rest of a run
// costs (plan_forecast). Pure functions of their arguments; thread-safe; nothing is read from a
// clock (`today` is passed in).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/governance/anomaly.h"
#include "aicost/governance/series.h"

namespace aicost::governance {

struct ForecastOptions {
  // Days before the known end (forecast_period) that the model fits (fewer when the history
  // starts later). Values < 1 count as 1. Default 56 = 8 whole weeks, so every weekday is seen
  // 8 times.
  int history_days = 56;
  // Central probability of [low, high], clamped to [0, 0.999999]; 0.8 = the 10th to 90th
  // percentile (AWS Cost Explorer's 80 % prediction interval; Kubecost uses 0.75).
  double interval = 0.8;
  // Estimate multiplicative weekday factors (needs >= 14 days of history; otherwise all 1).
  bool weekly = true;
  // Robust fit: the anomaly detector (check_days with `anomaly`) runs over the whole history first;
  // the anomalous days of a one-off episode are replaced by the detector's baseline, and a shift
  // that holds for `shift_days` anomalous days becomes the new level (see forecast_period). false:
  // every day is fitted as it is (the method before 2026-12; one two-day spike could lift a month's
  // forecast by a fifth).
  bool robust = true;
  // Anomalous days after which a running episode is a lasting level shift, not a one-off (at
  // least 1). Default 3, from the back-test in docs/GOVERNANCE.md: the smallest that does not take
  // a spike of up to 3 days for the new level while it runs.
  int shift_days = 3;
  // The detector the robust fit uses; run_check passes the budget file's `anomalies:` options.
  AnomalyOptions anomaly;
};

// The forecast's period total up to the end of one predicted day (00:00 UTC of the next), in
// currency units: the spend of [period_start, predicted_from) plus the predicted spend of
// [predicted_from, day], and the interval on that partial total (see forecast_period).
struct ForecastDay {
  ledger::Day day = 0;
  double expected = 0;
  double low = 0;  // never below Forecast::spent
  double high = 0;
};

// Totals for the whole period [period_start, period_end), in currency units.
struct Forecast {
  double spent = 0;  // actual spend on the days of the period the data covers (see forecast_period)
  double expected = 0;  // spent + remaining
  double low = 0;       // lower end of the interval on the period total; never below `spent`
  double high = 0;      // upper end of the interval on the period total
  double remaining =
      0;  // predicted spend on [max(known end, period_start), period_end); 0 when over
  // Slope of the fitted (deseasonalised) trend, currency units per day, per day; 0 unless the
  // method is "trend" or "trend+weekly". A weekly pattern alone gives ~0 here.
  double trend_per_day = 0;
  int history_days_used = 0;  // days of history the model fitted (0 for "plan", "actual", "none")
  // The first day `remaining` covers: max(known end, period_start), or period_end when nothing is
  // left to predict. `spent` is the spend of [period_start, predicted_from).
  ledger::Day predicted_from = 0;
  // Robust fit only: days of one-off anomaly episodes replaced by the detector's baseline within
  // the fitted days, and the level shifts the fitted days were brought to the newest level across.
  int replaced_days = 0;
  int level_shifts = 0;
  // The daily path: one entry per day of [predicted_from, period_end), ascending; empty when
  // nothing is left to predict (method "actual"). Its last entry's expected, low and high are the
  // period's `expected`, `low` and `high` above, exactly (the same sums, in the same order).
  std::vector<ForecastDay> path;
  // "trend+weekly", "trend", "mean" (fewer than 7 days of history), "plan" (plan_forecast),
  // "actual" (the period is over or empty: nothing left to predict), "none" (no history before
  // the known end: remaining is 0 and the interval collapses to `spent`).
  std::string method;
};

// Forecast of the total spend of [period_start, period_end) given the actual daily spend in
// `history` up to the known end: `today`, or the day after `data_through` if that is earlier (the
// newest day the billing data covers; exports arrive days late). Days from the known end on are
// unknown, not zero spend: entries of `history` there are ignored, the fit ends at the known end,
// and `remaining` covers [max(known end, period_start), period_end), so a late or stalled export
// is forecast like the rest of the period instead of read as spend that stopped. nullopt: every
// day before `today` is known.
//
// Model, on the last `history_days` days before the known end (from the first day of history if
// that is later; missing days are zero spend):
//  * n < 7 days: the mean daily spend, method "mean";
//  * otherwise y_t = f_{weekday(t)} · (a + b·t) + noise: weekday factors f (when `weekly` and
//    n >= 14; classical multiplicative decomposition, each weekday's mean ratio to the centred
//    7-day moving average, normalised to average 1), then a, b by least squares on y_t / f_t.
//    Method "trend+weekly" or "trend". Each predicted day is clamped at >= 0.
// Robust fit (options.robust, method "trend+weekly" or "trend" only): check_days(options.anomaly)
// runs over every day of `history` before the known end (so the first fitted days have a baseline
// when the history is longer than history_days), its days grouped into episodes as detect_anomalies
// does. Old level of an episode: each weekday's mean over the 28 days before it.
//  * Lasting shift: shift_days or more anomalous days, and either still running at the known end or
//    followed by days whose total is nearer the episode's level than the old one (the detector
//    cannot say "it went back": its baseline drifts to a new level through days it did not flag,
//    such as a shifted weekend, and then stops flagging). Every day before the episode gets, per
//    weekday, the mean after the change (up to the next change) less the old mean added, clamped
//    at 0, so the whole window reads at the newest level. Additive, not a ratio: a training run
//    adds its cost to a small base, and a ratio would multiply that base's own trend as much. A
//    weekday not seen since the change gets its old mean × (ratio of the totals − 1).
//  * One-off (any other episode, including one still running with fewer than shift_days anomalous
//    days: it is expected to end): each anomalous day is replaced by the detector's expected value
//    (the trailing weekday-aware baseline, which leaves flagged days out), so it neither lifts the
//    level nor tilts the slope; its money still counts in `spent`. Except one-off days with another
//    of the same sign 7 days before or after: a weekly pattern the detector has not learned (it
//    flags a new Sunday job every Sunday), kept as it is.
// Then the detector runs again on the cleaned days, for one-offs only: a spike inside a shift's
// episode (which the detector merges with the shift) stands out once the shift is gone. When it
// finds one, the cleaning starts over with those days left out of the levels after changes.
// Interval: remaining ± z·se with z = core::normal_quantile(0.5 + interval/2). se assumes
// independent daily errors (no autocorrelation, which makes it optimistic for sticky spend) with
// the residual standard deviation of the fit, and adds the uncertainty of the fitted level and
// trend (the usual OLS prediction variance); it ignores the uncertainty of the weekday factors.
// The path's interval on each day is the same formula over the predicted days up to it (the first
// k days' total instead of all of them), with the same fit, σ² and z, so it widens day by day to
// the period's interval on the last day. Method "none": the path stays at `spent`.
// Known end >= period_end: remaining 0, expected = low = high = spent, method "actual".
Forecast forecast_period(const DailySeries& history, ledger::Day period_start,
                         ledger::Day period_end, ledger::Day today,
                         const ForecastOptions& options = {},
                         std::optional<ledger::Day> data_through = std::nullopt);

// Forecast when a plan knows what the rest costs (e.g. a training run with an estimate): remaining
// = max(plan_remaining, 0) instead of an extrapolation, interval = spent + remaining·(1 ± fraction)
// (fraction < 0 counts as 0; low never below spent). Spent is read from `history` as in
// forecast_period. today >= period_end: remaining 0 (nothing more can land in the period).
// The path spreads `remaining` evenly over the predicted days, its interval in proportion (a plan
// gives no shape within the period). Method "plan".
Forecast plan_forecast(const DailySeries& history, ledger::Day period_start, ledger::Day period_end,
                       ledger::Day today, double plan_remaining, double plan_uncertainty_fraction);

}  // namespace aicost::governance
