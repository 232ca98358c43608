// Spend anomalies: days whose cost leaves its recent normal, merged into episodes, with the
// dimension values (services, teams...) that explain them.
//
// The rule is Kubecost's (reference/finops.md §3: deviation from the mean of the previous N days
// by more than a relative threshold, ignoring small costs) made weekday-aware and noise-aware: a
// day must also be k standard deviations away, so a noisy series does not alert on its own noise
// and a series with quiet weekends does not alert every Saturday. Pure functions; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "aicost/governance/series.h"

namespace aicost::governance {

struct AnomalyOptions {
  // Trailing days (before the day checked, never including it) the baseline is taken from.
  int window_days = 28;
  // A day is checked only once this many days of series precede it (at least 1).
  int min_history_days = 14;
  // |actual − expected| must exceed this fraction of |expected| (Kubecost's spendChange 0.20).
  double relative_threshold = 0.20;
  // ...and this many standard deviations of the baseline's prediction error...
  double k_sigma = 3.0;
  // ...and be at least this many currency units; smaller deviations are never anomalies.
  double min_impact = 0.0;
  // Weekday-aware baseline: each weekday's expected spend is that weekday's mean in the window
  // (= window level × normalised weekday factor). Used only when every weekday appears >= 2 times
  // among the window's baseline days; otherwise one mean for all days.
  bool weekly = true;
  // Anomalous days in the same direction separated by at most this many normal days form one
  // episode (one Anomaly, not one alert per day).
  int merge_gap_days = 1;
};

// The check of one day against its baseline. Amounts in currency units per day.
struct DayCheck {
  ledger::Day day = 0;
  double actual = 0;    // the day's spend
  double expected = 0;  // the baseline's prediction for that day
  double sigma = 0;     // standard deviation of (actual − expected) under the baseline, > 0
  bool anomalous = false;
};

// One episode: consecutive (up to merge_gap_days apart) anomalous days of one direction.
struct Anomaly {
  ledger::Day first_day = 0;  // first anomalous day
  ledger::Day last_day = 0;   // last anomalous day (inclusive)
  ledger::Day peak_day = 0;   // anomalous day with the largest |actual − expected|
  // Summed over every day of [first_day, last_day], the normal days inside merge gaps included.
  double actual = 0, expected = 0;
  double impact = 0;  // actual − expected: extra (> 0) or missing (< 0) spend, currency units
  double peak_deviation_sigma = 0;  // |actual − expected| / sigma on the peak day
  // |actual − expected| / |expected| on the peak day; +infinity when expected is 0.
  double peak_relative = 0;
  bool increase = true;  // spend above expected (false: a drop, e.g. an outage or a lost workload)
};

// Checks every day of `dense_series` that has >= min_history_days days of series before it, in
// order. The series should be dense (governance::dense); gaps are filled with zero spend anyway.
//
// Baseline of day i: the days of [i − window_days, i) that are "normal" (see below) give the level
// (mean of the weekday means when weekly, else the plain mean) and expected = level × factor of the
// day's weekday. sigma = standard deviation of the window's residuals (actual − expected, divided
// by the degrees of freedom left after the 1 or 7 fitted means) × sqrt(1 + 1/k), k = the days the
// day's mean was taken over (the prediction error of a mean of k days), floored at 1 % of |level|
// (a perfectly flat series does not alert on rounding noise) and at 1e-9.
// Anomalous: |actual − expected| > relative_threshold·|expected| and > k_sigma·sigma and
// >= min_impact.
//
// Which days are "normal" (episode rule): an anomalous day is left out of the baselines of later
// days — one spike neither lifts the mean nor widens sigma for the next window_days days (no
// masking of a second anomaly) — until its episode (the same grouping detect_anomalies uses)
// reaches max(1, window_days / 2) anomalous days. Then the shift is taken as the new normal: all
// the episode's days, past and future, join the baselines, and the episode ends once the baseline
// has caught up. So a spike is one one-day episode; a lasting step up or down is one episode of
// exactly max(1, window_days / 2) days; an outage shorter than that stays out of later baselines
// for good. If fewer than 2 normal days remain in a window, its days are all used.
std::vector<DayCheck> check_days(const DailySeries& dense_series,
                                 const AnomalyOptions& options = {});

// The anomalous days of check_days merged into episodes, oldest first.
std::vector<Anomaly> detect_anomalies(const DailySeries& dense_series,
                                      const AnomalyOptions& options = {});

// What one dimension value (a service, a team...) contributed to an episode.
struct Contribution {
  std::string value;
  double actual = 0, expected = 0;  // summed over [first_day, last_day], currency units
  double delta = 0;                 // actual − expected
  double share = 0;                 // delta / (sum of all values' deltas); 0 when that sum is 0
};

// Root cause of the episode [first_day, last_day] (inclusive): for each value, its own series is
// checked with check_days (same options, history from the earliest day of any value, missing days
// zero) and its expected is summed over the episode's days; a day too early to have a baseline
// counts as expected = actual. Sorted by |delta| descending, ties by value ascending.
std::vector<Contribution> rank_root_causes(const std::map<std::string, DailySeries>& by_value,
                                           ledger::Day first_day, ledger::Day last_day,
                                           const AnomalyOptions& options = {});

}  // namespace aicost::governance
