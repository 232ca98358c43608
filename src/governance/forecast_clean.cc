// The robust fit's cleaning of the daily history (forecast_clean.h): one-off episodes replaced,
// lasting changes carried back.
#include "forecast_clean.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>

#include "aicost/governance/anomaly.h"

namespace aicost::governance {
namespace {

using ledger::Day;

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

}  // namespace

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

}  // namespace aicost::governance
