#include "aicost/governance/forecast.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>

#include "aicost/core/stats.h"

namespace aicost::governance {
namespace {

using ledger::Day;
using Factors = std::array<double, 7>;

constexpr Factors kNoFactors = {1, 1, 1, 1, 1, 1, 1};
// Days whose weekday factor is below this (e.g. no spend at weekends) are left out of the trend
// fit: dividing by a near-zero factor would blow their noise up. They are still predicted as f·trend.
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

}  // namespace

Forecast forecast_period(const DailySeries& history, Day period_start, Day period_end, Day today,
                         const ForecastOptions& options) {
  Forecast f;
  f.spent = spent_in(history, period_start, std::min(today, period_end));
  f.expected = f.low = f.high = f.spent;
  if (today >= period_end || period_end <= period_start) {
    f.method = "actual";
    return f;
  }
  std::optional<Day> first_data;
  for (const DayAmount& p : history)
    if (p.day < today && (!first_data || p.day < *first_data)) first_data = p.day;
  if (!first_data) {
    f.method = "none";
    return f;
  }
  const std::int64_t lookback = std::max(options.history_days, 1);
  const Day start = static_cast<Day>(std::max<std::int64_t>(*first_data, std::int64_t{today} - lookback));
  std::vector<double> y;
  for (const DayAmount& p : dense(history, start, today - 1)) y.push_back(p.amount);
  const std::int64_t n = static_cast<std::int64_t>(y.size());
  const Day from = std::max(today, period_start);
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
  const double fraction = std::max(plan_uncertainty_fraction, 0.0);
  f.expected = f.spent + f.remaining;
  f.low = f.spent + std::max(0.0, f.remaining * (1 - fraction));
  f.high = f.spent + f.remaining * (1 + fraction);
  return f;
}

}  // namespace aicost::governance
