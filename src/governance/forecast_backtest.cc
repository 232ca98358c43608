#include "aicost/governance/forecast_backtest.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "aicost/core/rng.h"
#include "aicost/ledger/query.h"

namespace aicost::governance {
namespace {

using ledger::Day;

constexpr int kQuietDays = 7;       // between two planted events, and a shift's "new" age
constexpr int kFirstEventDay = 28;  // the detector's default window of history before any event

Day month_end(Day start) {
  return ledger::period_start(ledger::Period::kMonth, static_cast<Day>(start + 31));
}

}  // namespace

std::vector<NamedPattern> backtest_patterns() {
  SyntheticSpend weekly;
  weekly.weekend_factor = 0.4;
  SyntheticSpend growth = weekly;
  growth.growth_per_30_days = 0.1;
  SyntheticSpend spikes = weekly;
  spikes.spikes_per_30_days = 1;
  SyntheticSpend shifts = weekly;
  shifts.shifts_per_30_days = 0.5;
  SyntheticSpend mixed = weekly;
  mixed.growth_per_30_days = 0.05;
  mixed.spikes_per_30_days = 1;
  mixed.shifts_per_30_days = 0.5;
  return {{"flat", {}},       {"weekly", weekly}, {"growth", growth},
          {"spikes", spikes}, {"shifts", shifts}, {"mixed", mixed}};
}

SyntheticSeries synthetic_spend(const SyntheticSpend& spec, Day first_day, int days,
                                std::uint64_t seed) {
  core::Rng rng(seed);
  core::Rng events = rng.split(1);
  SyntheticSeries out;
  double shift = 1;
  int quiet_until = kFirstEventDay;
  int spike_left = 0;
  for (int t = 0; t < days; ++t) {
    const Day day = static_cast<Day>(first_day + t);
    // Events first, from their own stream, so that the noise is the same with and without them.
    if (spike_left == 0 && t >= quiet_until) {
      const double u = events.uniform();
      const double spike_p = spec.spikes_per_30_days / 30, shift_p = spec.shifts_per_30_days / 30;
      if (u < spike_p) {
        const int length = 1 + static_cast<int>(events.uniform() * 3);
        spike_left = std::min(length, days - t);
        out.events.push_back({PlantedKind::kSpike, day, static_cast<Day>(day + spike_left - 1)});
        quiet_until = t + spike_left + kQuietDays;
      } else if (u < spike_p + shift_p) {
        const double v = events.uniform();
        shift *= events.uniform() < 0.5 ? 0.5 + 0.3 * v : 1.25 + 0.75 * v;
        out.events.push_back({PlantedKind::kShift, day, day});
        quiet_until = t + kQuietDays;
      }
    }
    const bool weekend = weekday(day) >= 5;
    double base = spec.level * (1 + spec.growth_per_30_days * t / 30.0) * shift *
                  (weekend ? spec.weekend_factor : 1);
    if (spike_left > 0) {
      base *= 2 + 2 * events.uniform();
      --spike_left;
    }
    out.series.push_back({day, std::max(0.0, base * (1 + spec.noise * rng.normal()))});
  }
  return out;
}

OriginKind classify_origin(const std::vector<PlantedEvent>& events, Day origin, Day period_end) {
  OriginKind kind = OriginKind::kHolds;
  for (const PlantedEvent& e : events) {
    const Day last = e.kind == PlantedKind::kShift ? e.first_day : e.last_day;
    if (e.first_day < period_end && last >= origin) return OriginKind::kAhead;
    if (e.kind == PlantedKind::kShift && e.first_day < origin && e.first_day >= origin - kQuietDays)
      kind = OriginKind::kNewShift;
  }
  return kind;
}

std::string origin_kind_name(OriginKind k) {
  switch (k) {
    case OriginKind::kHolds: return "holds";
    case OriginKind::kNewShift: return "new shift";
    case OriginKind::kAhead: return "event ahead";
  }
  return "?";
}

double BacktestPoint::error() const {
  if (truth == 0)
    return forecast == 0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), forecast);
  return (forecast - truth) / std::abs(truth);
}

std::vector<BacktestPoint> backtest_month_end(const DailySeries& dense_series,
                                              const ForecastOptions& o, int min_history_days,
                                              bool partial_last_month) {
  std::vector<BacktestPoint> out;
  if (dense_series.empty()) return out;
  const Day first = dense_series.front().day, last = dense_series.back().day;
  const std::int64_t lookback =
      std::max(o.history_days, 1) + (o.robust ? std::max(o.anomaly.window_days, 1) : 0);
  auto at = [&](Day d) {
    return dense_series[static_cast<std::size_t>(std::int64_t{d} - first)].amount;
  };
  for (Day start = ledger::period_start(ledger::Period::kMonth, first); start <= last;
       start = month_end(start)) {
    const Day end = partial_last_month ? std::min(month_end(start), static_cast<Day>(last + 1))
                                       : month_end(start);
    if (start < first || end - 1 > last) continue;
    double truth = 0;
    for (Day d = start; d < end; ++d) truth += at(d);
    for (Day origin = static_cast<Day>(start + 1); origin < end; ++origin) {
      if (std::int64_t{origin} - first < min_history_days) continue;
      const Day from =
          static_cast<Day>(std::max<std::int64_t>(first, std::int64_t{origin} - lookback));
      const DailySeries history(dense_series.begin() + (from - first),
                                dense_series.begin() + (origin - first));
      const Forecast f = forecast_period(history, start, end, origin, o);
      out.push_back({origin, start, end, truth, f.expected});
    }
  }
  return out;
}

double abs_error_quantile(const std::vector<BacktestPoint>& points, double q) {
  if (points.empty()) return 0;
  std::vector<double> e;
  e.reserve(points.size());
  for (const BacktestPoint& p : points) e.push_back(std::abs(p.error()));
  std::sort(e.begin(), e.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(e.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, e.size() - 1);
  return e[lo] + (pos - static_cast<double>(lo)) * (e[hi] - e[lo]);
}

}  // namespace aicost::governance
