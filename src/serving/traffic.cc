#include "aicost/serving/traffic.h"

#include <algorithm>
#include <cmath>

#include "aicost/core/quantity.h"
#include "aicost/core/rng.h"

namespace aicost::serving {

namespace {
constexpr int kMinutesPerDay = 1440;
constexpr int kMinutesPerWeek = 7 * kMinutesPerDay;
constexpr double kPi = 3.14159265358979323846;
}  // namespace

const char* to_string(PolicyKind k) {
  switch (k) {
    case PolicyKind::kStaticPeak: return "static-peak";
    case PolicyKind::kReactive: return "reactive";
    case PolicyKind::kScheduled: return "scheduled";
    case PolicyKind::kPredictive: return "predictive";
  }
  return "?";
}

std::optional<PolicyKind> policy_kind_from_string(std::string_view name) {
  for (PolicyKind k : {PolicyKind::kStaticPeak, PolicyKind::kReactive, PolicyKind::kScheduled,
                       PolicyKind::kPredictive}) {
    if (name == to_string(k)) return k;
  }
  return std::nullopt;
}

TrafficSeries synthetic(const SyntheticTraffic& t) {
  TrafficSeries s;
  const int minutes = t.days * kMinutesPerDay;
  s.rps.resize(minutes);
  // A cosine day: mean 1, peak / trough = ratio.
  const double amplitude = (t.peak_to_trough - 1) / (t.peak_to_trough + 1);
  for (int m = 0; m < minutes; ++m) {
    const int day = m / kMinutesPerDay;
    const double hour = (m % kMinutesPerDay) / 60.0;
    double rate =
        t.mean_rate.value() * (1 + amplitude * std::cos(2 * kPi * (hour - t.peak_hour) / 24));
    if (day % 7 >= 5) rate *= t.weekend_factor;  // day 0 is a Monday
    rate *= std::pow(1 + t.growth_per_month, day / 30.0);
    for (const auto& spike : t.spikes) {
      if (spike.day == day) rate *= spike.factor;
    }
    s.rps[m] = rate;
  }
  return s;
}

PolicyResult simulate_policy(const TrafficSeries& traffic, core::PerSecond capacity_rate,
                             core::UsdPerSecond replica_price, const Policy& p) {
  PolicyResult r;
  r.name = p.name.empty() ? to_string(p.kind) : p.name;
  const int n = static_cast<int>(traffic.rps.size());
  // Minute by minute on plain requests per second and USD per hour.
  const double capacity = capacity_rate.value();
  const double usd_per_hour = core::per_hour(replica_price);
  if (n == 0 || capacity <= 0) return r;
  auto needed = [&](double rps, double utilization) {
    const int k = static_cast<int>(std::ceil(rps * (1 + p.headroom) / (capacity * utilization)));
    return std::clamp(k, p.min_replicas, p.max_replicas);
  };
  // Plans that do not react: static peak and the hour-of-day schedule.
  const double peak = *std::max_element(traffic.rps.begin(), traffic.rps.end());
  // The schedule plans each hour of the day for the 90th percentile of that hour's daily peaks:
  // the regular pattern, not one-off spikes (which it leaves to whatever else reacts).
  const int days = std::max(1, n / kMinutesPerDay);
  std::vector<std::vector<double>> daily_peaks(24, std::vector<double>(days, 0.0));
  for (int m = 0; m < days * kMinutesPerDay && m < n; ++m) {
    auto& h = daily_peaks[(m % kMinutesPerDay) / 60][m / kMinutesPerDay];
    h = std::max(h, traffic.rps[m]);
  }
  std::vector<double> hourly_max(24, 0.0);
  for (int h = 0; h < 24; ++h) {
    auto& v = daily_peaks[h];
    std::sort(v.begin(), v.end());
    hourly_max[h] =
        v[std::min<size_t>(v.size() - 1, static_cast<size_t>(std::ceil(0.9 * v.size())) - 1)];
  }
  core::Rng rng(p.seed);
  // Replicas by the minute they become ready; `starting` counts those paid but not yet serving.
  std::vector<int> ready_at(n + p.cold_start_min + 1, 0);
  int ready = 0, starting = 0, last_change = -p.cooldown_min;
  int spot = 0;
  double served = 0, demanded = 0, over = 0, paid_capacity = 0, replica_minutes = 0, usd = 0;
  for (int m = 0; m < n; ++m) {
    ready += ready_at[m];
    starting -= ready_at[m];
    int want = ready + starting;
    if (m == 0) ready = -1;  // marker: the service is already running at the start
    switch (p.kind) {
      case PolicyKind::kStaticPeak: want = needed(peak, 1.0); break;
      case PolicyKind::kScheduled: {
        // The hour's busiest minute of the profile, staged a cold start ahead.
        const int ahead = (m + p.cold_start_min) % kMinutesPerDay / 60;
        want = needed(hourly_max[ahead], 1.0);
        break;
      }
      case PolicyKind::kReactive: want = needed(traffic.rps[m], p.target_utilization); break;
      case PolicyKind::kPredictive: {
        // Seasonal naive forecast: the same minute a week earlier, a cold start ahead; the first
        // week falls back to reacting.
        const int ahead = m + p.cold_start_min;
        const double forecast = ahead >= kMinutesPerWeek && ahead < n
                                    ? std::max(traffic.rps[ahead - kMinutesPerWeek], traffic.rps[m])
                                    : traffic.rps[m];
        want = needed(forecast, p.target_utilization);
        break;
      }
    }
    if (ready < 0) {  // the fleet the policy wants at minute 0 is warm already
      ready = want;
      last_change = -p.cooldown_min;
    }
    const int have = ready + starting;
    if (want > have) {
      const int add = want - have;
      starting += add;
      ready_at[m + p.cold_start_min] += add;
      last_change = m;
    } else if (want < have &&
               (m - last_change >= p.cooldown_min || p.kind == PolicyKind::kStaticPeak)) {
      // Scale down ready replicas first (starting ones are already paid for).
      const int drop = std::min(have - want, ready);
      ready -= drop;
      last_change = m;
    }
    // Spot replicas: a share of the fleet; each may be reclaimed this minute.
    spot = static_cast<int>(std::round((ready + starting) * p.spot_share));
    if (p.spot_share > 0) {
      const double q = p.spot_interruptions_per_hour / 60;
      int lost = 0;
      for (int i = 0; i < std::min(spot, ready); ++i) {
        if (rng.uniform() < q) ++lost;
      }
      if (lost > 0) {
        ready -= lost;
        starting += lost;
        ready_at[m + p.cold_start_min] += lost;
      }
    }
    const int paid = ready + starting;
    const double cap = ready * capacity;
    const double load = traffic.rps[m];
    demanded += load;
    served += std::min(load, cap);
    over += std::max(0.0, load - cap);
    paid_capacity += paid * capacity;
    replica_minutes += paid;
    const double spot_replicas = std::round(paid * p.spot_share);
    usd += ((paid - spot_replicas) + spot_replicas * p.spot_price_ratio) * usd_per_hour / 60;
    r.replicas.push_back(paid);
    r.peak_replicas = std::max(r.peak_replicas, paid);
  }
  r.monthly = core::usd(usd * (core::kHoursPerMonth * 60 / n));
  r.idle_share = paid_capacity > 0 ? 1 - served / paid_capacity : 0;
  r.over_sla_share = demanded > 0 ? over / demanded : 0;
  r.mean_replicas = replica_minutes / n;
  return r;
}

std::vector<Policy> default_policies() {
  std::vector<Policy> out;
  Policy p;
  p.kind = PolicyKind::kStaticPeak;
  out.push_back(p);
  p.kind = PolicyKind::kReactive;
  out.push_back(p);
  p.kind = PolicyKind::kScheduled;
  out.push_back(p);
  p.kind = PolicyKind::kPredictive;
  out.push_back(p);
  p.kind = PolicyKind::kReactive;
  p.name = "reactive + 50% spot";
  p.spot_share = 0.5;
  out.push_back(p);
  return out;
}

}  // namespace aicost::serving
