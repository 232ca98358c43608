#include "aicost/governance/forecast.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>

#include "aicost/core/stats.h"
#include "forecast_clean.h"

namespace aicost::governance {
namespace {

using ledger::Day;

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

// The predicted spend of the first k + 1 remaining days, k = 0 .. horizon − 1, and the variance
// of each of those partial totals: the last is the whole remaining total's.
struct Prediction {
  std::vector<double> cumulative;
  std::vector<double> variance;
  double slope = 0;
};

// Fewer than 7 days: the mean day, its sample variance, and the mean's own uncertainty; over k
// days the total is k·mean with variance var·(k + k²/n).
Prediction predict_mean(const std::vector<double>& y, std::int64_t horizon) {
  const double n = static_cast<double>(y.size());
  double mean = 0;
  for (double v : y) mean += v / n;
  double ss = 0;
  for (double v : y) ss += (v - mean) * (v - mean);
  const double var = y.size() > 1 ? ss / (n - 1) : 0.0;
  Prediction p;
  for (std::int64_t k = 1; k <= horizon; ++k) {
    const double h = static_cast<double>(k);
    p.cumulative.push_back(std::max(mean, 0.0) * h);
    p.variance.push_back(var * (h + h * h / n));
  }
  return p;
}

// y_t = f_t·(ā + b·(t − t̄)) + f_t·e_t with e_t independent, variance σ² (errors proportional to the
// weekday factor, i.e. homoscedastic in the deseasonalised series). For the remaining total
// Σ_h f_h·(ā + b·(t_h − t̄)) + Σ_h f_h·e_h the prediction variance is
//   σ²·(Σ f_h² + F²/m + G²/Sxx),  F = Σ f_h,  G = Σ f_h·(t_h − t̄)
// (Var ā = σ²/m, Var b = σ²/Sxx, Cov(ā, b) = 0 with centred t: any OLS text, e.g. Montgomery,
// Peck & Vining, "Introduction to Linear Regression Analysis", §2.4). The clamp at 0 is ignored.
// The partial total of the first k remaining days is the same sum over those days only.
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
  if (m == 0) {
    const auto days = static_cast<std::size_t>(std::max<std::int64_t>(horizon, 0));
    return {std::vector<double>(days, 0.0), std::vector<double>(days, 0.0), 0.0};
  }
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
  double sum = 0, f2 = 0, F = 0, G = 0;
  for (std::int64_t h = horizon_from; h < horizon_from + horizon; ++h) {
    const double fh = factor(h);
    const double dt = static_cast<double>(h) - tbar;
    sum += std::max(0.0, fh * (dbar + b * dt));
    f2 += fh * fh;
    F += fh;
    G += fh * dt;
    p.cumulative.push_back(sum);
    p.variance.push_back(sigma2 * (f2 + F * F / m + (sxx > 0 ? G * G / sxx : 0.0)));
  }
  return p;
}

// The period's total up to the end of day `d`: `spent` and `predicted` with its interval.
ForecastDay path_day(Day d, double spent, double predicted, double variance, double z) {
  const double expected = spent + predicted;
  const double half = z * std::sqrt(std::max(variance, 0.0));
  return {d, expected, std::max(spent, expected - half), expected + half};
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
    for (Day d = f.predicted_from; d < period_end; ++d)
      f.path.push_back({d, f.spent, f.spent, f.spent});
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
  // The period's figures are the path's last day: one computation, so they cannot disagree.
  const double z = z_for(options.interval);
  for (std::size_t k = 0; k < p.cumulative.size(); ++k)
    f.path.push_back(path_day(static_cast<Day>(from + static_cast<std::int64_t>(k)), f.spent,
                              p.cumulative[k], p.variance[k], z));
  if (f.path.empty()) return f;
  f.remaining = p.cumulative.back();
  f.expected = f.path.back().expected;
  f.low = f.path.back().low;
  f.high = f.path.back().high;
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
  const auto at = [&](double predicted) {
    return ForecastDay{0, f.spent + predicted, f.spent + std::max(0.0, predicted * (1 - fraction)),
                       f.spent + predicted * (1 + fraction)};
  };
  // Spread evenly: the first k of H days carry k/H of it (exactly all of it on day H).
  const std::int64_t days = today >= period_end ? 0 : std::int64_t{period_end} - f.predicted_from;
  for (std::int64_t k = 1; k <= days; ++k) {
    f.path.push_back(at(f.remaining * (static_cast<double>(k) / static_cast<double>(days))));
    f.path.back().day = static_cast<Day>(f.predicted_from + k - 1);
  }
  const ForecastDay total = at(f.remaining);
  f.expected = total.expected;
  f.low = total.low;
  f.high = total.high;
  return f;
}

}  // namespace aicost::governance
