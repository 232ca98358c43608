#include "aicost/governance/forecast.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>

#include "aicost/core/stats.h"
#include "aicost/governance/anomaly.h"

namespace aicost::governance {
namespace {

using ledger::Day;
using Factors = std::array<double, 7>;

constexpr Factors kNoFactors = {1, 1, 1, 1, 1, 1, 1};
// Days whose weekday factor is below this (e.g. no spend at weekends) are left out of the trend
// fit: dividing by a near-zero factor would blow their noise up. They are still predicted as
// f·trend.
constexpr double kMinFactor = 0.05;

double spent_in(const DailySeries& history, Day from, Day to) {
  double sum = 0;
  for (const DayAmount& p : history)
    if (p.day >= from && p.day < to) sum += p.amount;
  return sum;
}

double z_for(double interval) {
  const double c = std::clamp(interval, 0.0, 0.999999);
  return c <= 0 ? 0.0 : core::normal_quantile(0.5 + c / 2);
}

// Classical multiplicative decomposition (Hyndman & Athanasopoulos, "Forecasting: Principles and
// Practice", 3rd ed., §3.4): the centred 7-day moving average follows any linear trend exactly, so
// ratios to it measure the weekday effect alone, unbiased by a ramp. Needs every weekday to have at
// least one ratio; otherwise no factors.
Factors weekday_factors(const std::vector<double>& y, Day first) {
  Factors sum{};
  std::array<int, 7> count{};
  for (std::size_t t = 3; t + 3 < y.size(); ++t) {
    double ma = 0;
    for (std::size_t k = t - 3; k <= t + 3; ++k) ma += y[k];
    ma /= 7;
    if (ma <= 0) continue;
    const int w = weekday(static_cast<Day>(first + static_cast<std::int64_t>(t)));
    sum[w] += y[t] / ma;
    ++count[w];
  }
  Factors f{};
  double mean = 0;
  for (int w = 0; w < 7; ++w) {
    if (count[w] == 0) return kNoFactors;
    f[w] = sum[w] / count[w];
    mean += f[w] / 7;
  }
  if (mean <= 0) return kNoFactors;
  for (double& x : f) x /= mean;
  return f;
}

struct Prediction {
  double remaining = 0;
  double variance = 0;  // of the remaining total
  double slope = 0;
};

// Fewer than 7 days: the mean day, its sample variance, and the mean's own uncertainty.
Prediction predict_mean(const std::vector<double>& y, std::int64_t horizon) {
  const double n = static_cast<double>(y.size());
  double mean = 0;
  for (double v : y) mean += v / n;
  double ss = 0;
  for (double v : y) ss += (v - mean) * (v - mean);
  const double var = y.size() > 1 ? ss / (n - 1) : 0.0;
  const double h = static_cast<double>(horizon);
  return {std::max(mean, 0.0) * h, var * (h + h * h / n), 0.0};
}

// y_t = f_t·(ā + b·(t − t̄)) + f_t·e_t with e_t independent, variance σ² (errors proportional to the
// weekday factor, i.e. homoscedastic in the deseasonalised series). For the remaining total
// Σ_h f_h·(ā + b·(t_h − t̄)) + Σ_h f_h·e_h the prediction variance is
//   σ²·(Σ f_h² + F²/m + G²/Sxx),  F = Σ f_h,  G = Σ f_h·(t_h − t̄)
// (Var ā = σ²/m, Var b = σ²/Sxx, Cov(ā, b) = 0 with centred t: any OLS text, e.g. Montgomery,
// Peck & Vining, "Introduction to Linear Regression Analysis", §2.4). The clamp at 0 is ignored.
Prediction predict_trend(const std::vector<double>& y, Day first, const Factors& f, bool weekly,
                         std::int64_t horizon_from, std::int64_t horizon) {
  auto factor = [&](std::int64_t t) { return f[weekday(static_cast<Day>(first + t))]; };
  double m = 0, tbar = 0, dbar = 0;
  for (std::size_t t = 0; t < y.size(); ++t) {
    const double ft = factor(static_cast<std::int64_t>(t));
    if (ft < kMinFactor) continue;
    m += 1;
    tbar += static_cast<double>(t);
    dbar += y[t] / ft;
  }
  if (m == 0) return {};
  tbar /= m;
  dbar /= m;
  double sxx = 0, sxy = 0;
  for (std::size_t t = 0; t < y.size(); ++t) {
    const double ft = factor(static_cast<std::int64_t>(t));
    if (ft < kMinFactor) continue;
    const double dt = static_cast<double>(t) - tbar;
    sxx += dt * dt;
    sxy += dt * (y[t] / ft - dbar);
  }
  const double b = sxx > 0 ? sxy / sxx : 0.0;
  double ss = 0;
  for (std::size_t t = 0; t < y.size(); ++t) {
    const double ft = factor(static_cast<std::int64_t>(t));
    if (ft < kMinFactor) continue;
    const double r = y[t] / ft - (dbar + b * (static_cast<double>(t) - tbar));
    ss += r * r;
  }
  // Parameters: level and slope, plus 6 free weekday factors (7 normalised to average 1).
  const double params = 2 + (weekly ? 6 : 0);
  const double sigma2 = ss / std::max(1.0, m - params);

  Prediction p;
  p.slope = b;
  double f2 = 0, F = 0, G = 0;
  for (std::int64_t h = horizon_from; h < horizon_from + horizon; ++h) {
    const double fh = factor(h);
    const double dt = static_cast<double>(h) - tbar;
    p.remaining += std::max(0.0, fh * (dbar + b * dt));
    f2 += fh * fh;
    F += fh;
    G += fh * dt;
  }
  p.variance = sigma2 * (f2 + F * F / m + (sxx > 0 ? G * G / sxx : 0.0));
  return p;
}

// Days of level before a change that the old level is read from (the detector's default window).
constexpr std::size_t kLevelDays = 28;

// The old level of a change at `c`, weekday by weekday: the mean of y on each weekday over the
// kLevelDays before c, skipping `skip`ped days (a weekday with none gets the mean of the others).
Factors level_before(const std::vector<double>& y, const std::vector<char>& skip, Day first,
                     std::size_t c) {
  Factors sum{}, level{};
  std::array<int, 7> count{};
  double all = 0;
  int all_count = 0;
  for (std::size_t t = c > kLevelDays ? c - kLevelDays : 0; t < c; ++t) {
    if (skip[t]) continue;
    const int w = weekday(static_cast<Day>(first + static_cast<std::int64_t>(t)));
    sum[w] += y[t];
    ++count[w];
    all += y[t];
    ++all_count;
  }
  for (int w = 0; w < 7; ++w)
    level[w] = count[w] > 0 ? sum[w] / count[w] : all_count > 0 ? all / all_count : 0.0;
  return level;
}

// Σ y / Σ old level over the days of [from, to) not marked in `skip`: what a change multiplied the
// spend by; nullopt when the old level sums to <= 0 there (a ratio to nothing).
std::optional<double> ratio(const std::vector<double>& y, const std::vector<char>& skip,
                            const Factors& old, Day first, std::size_t from, std::size_t to) {
  double actual = 0, expected = 0;
  for (std::size_t t = from; t < to; ++t) {
    if (skip[t]) continue;
    actual += y[t];
    expected += old[weekday(static_cast<Day>(first + static_cast<std::int64_t>(t)))];
  }
  if (expected <= 0 || actual < 0) return std::nullopt;
  return actual / expected;
}

// The daily spend of [first, today) as the robust fit reads it (forecast.h): the anomalous days
// of one-off episodes replaced by the detector's baseline, days before a lasting shift brought to
// the level after it. Returns the values and what it changed; `shifts` counts those after
// fit_start.
struct Cleaned {
  std::vector<double> y;  // first .. today − 1
  std::vector<char> replaced;
  int shifts = 0;
};

// One pass of the cleaning over c.y (the passes: clean_history). Days marked in `spikes` are left
// out of the level after a change.
void clean_pass(Cleaned& c, Day first, Day fit_start, const ForecastOptions& o, bool with_shifts,
                const std::vector<char>& spikes) {
  const std::size_t n = c.y.size();
  DailySeries full;
  full.reserve(n);
  for (std::size_t t = 0; t < n; ++t)
    full.push_back({static_cast<Day>(first + static_cast<std::int64_t>(t)), c.y[t]});
  const std::vector<DayCheck> checks = check_days(full, o.anomaly);
  std::vector<char> anomalous(n, 0);
  for (const DayCheck& k : checks)
    anomalous[static_cast<std::size_t>(std::int64_t{k.day} - first)] = k.anomalous;
  const std::size_t shift_days = static_cast<std::size_t>(std::max(o.shift_days, 1));
  auto index = [&](Day d) { return static_cast<std::size_t>(std::int64_t{d} - first); };

  // One-offs first, so that the levels around a lasting change are read without spikes.
  std::vector<std::size_t> changes;
  std::vector<int> one_off(n,
                           0);  // +1 / −1: an anomalous day of a one-off above / below its baseline
  for (const Anomaly& e : detect_anomalies(full, o.anomaly)) {
    const std::size_t from = index(e.first_day), last = index(e.last_day);
    std::size_t days = 0;
    for (std::size_t t = from; t <= last; ++t) days += anomalous[t] ? 1 : 0;
    bool lasting = days >= shift_days;
    if (lasting && last + 1 < n) {
      // Ended: lasting only if the spend did not go back, i.e. the days after it are nearer the
      // episode's level than the old one. The detector cannot say: its baseline drifts to a new
      // level through days it did not flag (a weekend under a shift), and then stops flagging.
      const Factors old = level_before(c.y, anomalous, first, from);
      const auto during = ratio(c.y, spikes, old, first, from, last + 1);
      const auto after = ratio(c.y, spikes, old, first, last + 1, n);
      lasting = during && after && std::abs(*after - 1) >= std::abs(*after - *during);
    }
    if (lasting) {
      if (with_shifts) changes.push_back(from);
      continue;
    }
    for (std::size_t t = from; t <= last; ++t) {
      if (!anomalous[t]) continue;
      const DayCheck& k = checks[t - (n - checks.size())];  // checks start min_history days in
      one_off[t] = k.actual > k.expected ? 1 : -1;
    }
  }
  // A one-off day with another one-off of the same sign a week before or after is a weekly
  // pattern the detector has not learned (a job every Sunday from some day on): kept.
  for (std::size_t t = 0; t < n; ++t) {
    if (one_off[t] == 0) continue;
    if ((t >= 7 && one_off[t - 7] == one_off[t]) || (t + 7 < n && one_off[t + 7] == one_off[t]))
      continue;
    c.y[t] = checks[t - (n - checks.size())].expected;
    c.replaced[t] = 1;
  }
  // Then each lasting change, oldest first: each day before it gets what the change added to its
  // weekday (the mean on that weekday after it, up to the next change, less the mean before it),
  // so that every day reads at the newest level. Additive, not a ratio: a training run adds its
  // cost to a small base, and a ratio would multiply the base's own trend by as much. A weekday not
  // seen since the change gets the change's overall ratio times its old mean. Clamped at 0.
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const std::size_t at = changes[i], next = i + 1 < changes.size() ? changes[i + 1] : n;
    const std::vector<char> none(n, 0);
    const Factors old = level_before(c.y, none, first, at);
    const double r = ratio(c.y, spikes, old, first, at, next).value_or(1.0);
    Factors sum{};
    std::array<int, 7> count{};
    for (std::size_t t = at; t < next; ++t) {
      if (spikes[t]) continue;
      const int w = weekday(static_cast<Day>(first + static_cast<std::int64_t>(t)));
      sum[w] += c.y[t];
      ++count[w];
    }
    Factors delta{};
    for (int w = 0; w < 7; ++w)
      delta[w] = count[w] > 0 ? sum[w] / count[w] - old[w] : old[w] * (r - 1);
    for (std::size_t t = 0; t < at; ++t)
      c.y[t] = std::max(
          0.0, c.y[t] + delta[weekday(static_cast<Day>(first + static_cast<std::int64_t>(t)))]);
    if (first + static_cast<std::int64_t>(at) > fit_start) ++c.shifts;
  }
}

Cleaned clean_history(const DailySeries& history, Day first, Day fit_start, Day today,
                      const ForecastOptions& o) {
  Cleaned raw;
  for (const DayAmount& p : dense(history, first, today - 1)) raw.y.push_back(p.amount);
  const std::size_t n = raw.y.size();
  raw.replaced.assign(n, 0);
  const std::vector<char> none(n, 0);
  Cleaned c = raw;
  clean_pass(c, first, fit_start, o, true, none);
  // Again on the cleaned days, one-offs only: a spike inside a shift's episode (the detector
  // merges them) stands out once the shift is gone. If there is one, it lifted the level the
  // shift added: start over with it left out of that level.
  std::vector<char> before = c.replaced;
  clean_pass(c, first, fit_start, o, false, none);
  std::vector<char> hidden(n, 0);
  bool any = false;
  for (std::size_t t = 0; t < n; ++t) any |= (hidden[t] = c.replaced[t] && !before[t]) != 0;
  if (!any) return c;
  c = raw;
  clean_pass(c, first, fit_start, o, true, hidden);
  clean_pass(c, first, fit_start, o, false, none);
  return c;
}

}  // namespace

Forecast forecast_period(const DailySeries& history, Day period_start, Day period_end, Day today,
                         const ForecastOptions& options, std::optional<Day> data_through) {
  // Days the data does not cover yet are unknown, not zero: the fit ends where the data does and
  // those days are forecast with the rest (a late export read as zeros would become a shift to 0).
  const Day known_end = data_through ? std::min(today, static_cast<Day>(*data_through + 1)) : today;
  Forecast f;
  f.spent = spent_in(history, period_start, std::min(known_end, period_end));
  f.expected = f.low = f.high = f.spent;
  f.predicted_from = std::min(std::max(known_end, period_start), period_end);
  if (known_end >= period_end || period_end <= period_start) {
    f.method = "actual";
    return f;
  }
  std::optional<Day> first_data;
  for (const DayAmount& p : history)
    if (p.day < known_end && (!first_data || p.day < *first_data)) first_data = p.day;
  if (!first_data) {
    f.method = "none";
    return f;
  }
  const std::int64_t lookback = std::max(options.history_days, 1);
  const Day start =
      static_cast<Day>(std::max<std::int64_t>(*first_data, std::int64_t{known_end} - lookback));
  std::vector<double> y;
  for (const DayAmount& p : dense(history, start, known_end - 1)) y.push_back(p.amount);
  const std::int64_t n = static_cast<std::int64_t>(y.size());
  if (options.robust && n >= 7) {
    const Cleaned c = clean_history(history, *first_data, start, known_end, options);
    const std::size_t skip = c.y.size() - y.size();
    y.assign(c.y.begin() + static_cast<std::ptrdiff_t>(skip), c.y.end());
    f.replaced_days = static_cast<int>(
        std::count(c.replaced.begin() + static_cast<std::ptrdiff_t>(skip), c.replaced.end(), 1));
    f.level_shifts = c.shifts;
  }
  const Day from = std::max(known_end, period_start);
  const std::int64_t horizon = std::int64_t{period_end} - from;

  Prediction p;
  if (n < 7) {
    p = predict_mean(y, horizon);
    f.method = "mean";
  } else {
    const bool weekly = options.weekly && n >= 14;
    const Factors factors = weekly ? weekday_factors(y, start) : kNoFactors;
    p = predict_trend(y, start, factors, weekly, std::int64_t{from} - start, horizon);
    f.method = weekly ? "trend+weekly" : "trend";
    f.trend_per_day = p.slope;
  }
  f.history_days_used = static_cast<int>(n);
  f.remaining = p.remaining;
  f.expected = f.spent + f.remaining;
  const double half = z_for(options.interval) * std::sqrt(std::max(p.variance, 0.0));
  f.low = std::max(f.spent, f.expected - half);
  f.high = f.expected + half;
  return f;
}

Forecast plan_forecast(const DailySeries& history, Day period_start, Day period_end, Day today,
                       double plan_remaining, double plan_uncertainty_fraction) {
  Forecast f;
  f.method = "plan";
  f.spent = spent_in(history, period_start, std::min(today, period_end));
  f.remaining = today >= period_end ? 0.0 : std::max(plan_remaining, 0.0);
  f.predicted_from = std::min(std::max(today, period_start), period_end);
  const double fraction = std::max(plan_uncertainty_fraction, 0.0);
  f.expected = f.spent + f.remaining;
  f.low = f.spent + std::max(0.0, f.remaining * (1 - fraction));
  f.high = f.spent + f.remaining * (1 + fraction);
  return f;
}

}  // namespace aicost::governance
