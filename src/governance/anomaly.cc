#include "aicost/governance/anomaly.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

namespace aicost::governance {
namespace {

using ledger::Day;

constexpr double kSigmaFloorFraction = 0.01;
constexpr double kMinSigma = 1e-9;

struct Baseline {
  double expected = 0;
  double sigma = 0;
};

// The baseline of a day of weekday `wd` from series days [from, to) whose `normal` flag is set.
Baseline baseline(const DailySeries& s, const std::vector<char>& normal, std::size_t from,
                  std::size_t to, bool weekly, int wd) {
  std::vector<std::size_t> days;
  for (std::size_t j = from; j < to; ++j)
    if (normal[j]) days.push_back(j);
  if (days.size() < 2) {
    days.clear();
    for (std::size_t j = from; j < to; ++j) days.push_back(j);
  }
  if (days.empty()) return {0.0, kMinSigma};

  std::array<double, 7> sum{};
  std::array<int, 7> count{};
  double total = 0;
  for (std::size_t j : days) {
    const int w = weekday(s[j].day);
    sum[w] += s[j].amount;
    ++count[w];
    total += s[j].amount;
  }
  const double m = static_cast<double>(days.size());
  const bool by_weekday =
      weekly && std::all_of(count.begin(), count.end(), [](int c) { return c >= 2; });
  // With weekday factors the prediction for weekday w is level·f_w = mean_w, where level is the
  // mean of the weekday means and f_w = mean_w / level averages to 1.
  std::array<double, 7> predicted{};
  for (int w = 0; w < 7; ++w) predicted[w] = by_weekday ? sum[w] / count[w] : total / m;
  double level = 0;
  for (double p : predicted) level += p / 7;

  double ss = 0;
  for (std::size_t j : days) {
    const double r = s[j].amount - predicted[weekday(s[j].day)];
    ss += r * r;
  }
  const double fitted = by_weekday ? 7.0 : 1.0;
  const double residual_sd = m > fitted ? std::sqrt(ss / (m - fitted)) : 0.0;
  const double k = by_weekday ? count[wd] : m;
  const double sigma = residual_sd * std::sqrt(1 + 1 / k);
  return {predicted[wd], std::max({sigma, kSigmaFloorFraction * std::abs(level), kMinSigma})};
}

}  // namespace

std::vector<DayCheck> check_days(const DailySeries& dense_series, const AnomalyOptions& o) {
  std::vector<DayCheck> out;
  if (dense_series.empty()) return out;
  Day lo = dense_series.front().day, hi = lo;
  for (const DayAmount& p : dense_series) {
    lo = std::min(lo, p.day);
    hi = std::max(hi, p.day);
  }
  const DailySeries s = dense(dense_series, lo, hi);
  const std::size_t n = s.size();
  const std::size_t window = static_cast<std::size_t>(std::max(o.window_days, 1));
  const std::size_t min_history = static_cast<std::size_t>(std::max(o.min_history_days, 1));
  const int accept = std::max(1, o.window_days / 2);
  const std::size_t gap = static_cast<std::size_t>(std::max(o.merge_gap_days, 0));

  std::vector<char> normal(n, 1);
  // The open episode, as detect_anomalies will group it: its direction, last anomalous day, how
  // many anomalous days it has, whether it has become the new normal, and its days still left out.
  struct Episode {
    bool open = false, increase = true, accepted = false;
    std::size_t last = 0;
    int days = 0;
    std::vector<std::size_t> excluded;
  } ep;

  for (std::size_t i = min_history; i < n; ++i) {
    const std::size_t from = i > window ? i - window : 0;
    const Baseline b = baseline(s, normal, from, i, o.weekly, weekday(s[i].day));
    DayCheck c{s[i].day, s[i].amount, b.expected, b.sigma, false};
    const double dev = c.actual - c.expected;
    const double a = std::abs(dev);
    c.anomalous = a > o.relative_threshold * std::abs(c.expected) && a > o.k_sigma * c.sigma &&
                  a >= o.min_impact;
    if (c.anomalous) {
      const bool increase = dev > 0;
      if (!(ep.open && ep.increase == increase && i - ep.last - 1 <= gap)) {
        ep = Episode{};
        ep.open = true;
        ep.increase = increase;
      }
      ep.last = i;
      ++ep.days;
      if (!ep.accepted && ep.days >= accept) {
        ep.accepted = true;
        for (std::size_t j : ep.excluded) normal[j] = 1;
        ep.excluded.clear();
      }
      if (!ep.accepted) {
        normal[i] = 0;
        ep.excluded.push_back(i);
      }
    }
    out.push_back(c);
  }
  return out;
}

std::vector<Anomaly> detect_anomalies(const DailySeries& dense_series, const AnomalyOptions& o) {
  const std::vector<DayCheck> checks = check_days(dense_series, o);
  const std::size_t gap = static_cast<std::size_t>(std::max(o.merge_gap_days, 0));
  auto increase_of = [](const DayCheck& c) { return c.actual > c.expected; };
  std::vector<Anomaly> out;
  std::size_t i = 0;
  while (i < checks.size()) {
    if (!checks[i].anomalous) {
      ++i;
      continue;
    }
    const bool increase = increase_of(checks[i]);
    std::size_t last = i;
    for (std::size_t k = i + 1; k < checks.size() && k - last - 1 <= gap; ++k) {
      if (!checks[k].anomalous) continue;
      if (increase_of(checks[k]) != increase) break;
      last = k;
    }
    Anomaly a;
    a.first_day = checks[i].day;
    a.last_day = checks[last].day;
    a.increase = increase;
    double peak = -1;
    for (std::size_t k = i; k <= last; ++k) {
      const DayCheck& c = checks[k];
      a.actual += c.actual;
      a.expected += c.expected;
      const double dev = std::abs(c.actual - c.expected);
      if (c.anomalous && dev > peak) {
        peak = dev;
        a.peak_day = c.day;
        a.peak_deviation_sigma = dev / c.sigma;
        a.peak_relative =
            c.expected != 0 ? dev / std::abs(c.expected) : std::numeric_limits<double>::infinity();
      }
    }
    a.impact = a.actual - a.expected;
    out.push_back(a);
    i = last + 1;
  }
  return out;
}

std::vector<Contribution> rank_root_causes(const std::map<std::string, DailySeries>& by_value,
                                           Day first_day, Day last_day, const AnomalyOptions& o) {
  Day start = first_day;
  for (const auto& [value, series] : by_value)
    for (const DayAmount& p : series) start = std::min(start, p.day);

  std::vector<Contribution> out;
  double total_delta = 0;
  for (const auto& [value, series] : by_value) {
    Contribution c;
    c.value = value;
    const DailySeries s = dense(series, start, last_day);
    for (const DayAmount& p : s)
      if (p.day >= first_day) c.actual += p.amount;
    double checked_actual = 0;
    for (const DayCheck& check : check_days(s, o)) {
      if (check.day < first_day) continue;
      c.expected += check.expected;
      checked_actual += check.actual;
    }
    c.expected += c.actual - checked_actual;  // days without a baseline: expected = actual
    c.delta = c.actual - c.expected;
    total_delta += c.delta;
    out.push_back(std::move(c));
  }
  for (Contribution& c : out) c.share = total_delta != 0 ? c.delta / total_delta : 0.0;
  std::sort(out.begin(), out.end(), [](const Contribution& a, const Contribution& b) {
    const double da = std::abs(a.delta), db = std::abs(b.delta);
    return da != db ? da > db : a.value < b.value;
  });
  return out;
}

}  // namespace aicost::governance
