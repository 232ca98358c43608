// Synthetic traffic and the scaling policies simulated over it.
#include <gtest/gtest.h>

#include <numeric>

#include "aicost/serving/traffic.h"

namespace aicost::serving {
namespace {

double mean(const std::vector<double>& v, size_t from, size_t to) {
  return std::accumulate(v.begin() + from, v.begin() + to, 0.0) / (to - from);
}

TEST(Synthetic, DiurnalWeekendSpikeAndGrowth) {
  SyntheticTraffic t;
  t.days = 14;
  t.mean_rate = core::per_second(10);
  t.peak_to_trough = 3;
  t.spikes = {{9, 5.0}};
  const auto s = synthetic(t);
  ASSERT_EQ(s.rps.size(), 14u * 1440);
  // A weekday averages the mean; the cosine's peak/trough is 3 (15 and 5 rps).
  EXPECT_NEAR(mean(s.rps, 0, 1440), 10, 1e-6);
  const auto [lo, hi] = std::minmax_element(s.rps.begin(), s.rps.begin() + 1440);
  EXPECT_NEAR(*hi / *lo, 3, 1e-3);
  // Saturday (day 5) at 70 %; day 9 (a Wednesday) five times a normal weekday.
  EXPECT_NEAR(mean(s.rps, 5 * 1440, 6 * 1440), 7, 1e-6);
  EXPECT_NEAR(mean(s.rps, 9 * 1440, 10 * 1440), 50, 1e-6);
}

// A replica serving 2 requests/s within the SLA, at 10 USD/h.
constexpr core::PerSecond kCapacity = core::per_second(2);
constexpr core::UsdPerSecond kReplicaPrice = core::usd_per_hour(10);

TrafficSeries diurnal() {
  SyntheticTraffic t;
  t.mean_rate = core::per_second(20);
  t.peak_to_trough = 4;
  return synthetic(t);
}

TEST(Policy, StaticPeakNeverMissesButIdles) {
  Policy p;
  p.kind = PolicyKind::kStaticPeak;
  const auto r = simulate_policy(diurnal(), kCapacity, kReplicaPrice, p);
  EXPECT_EQ(r.over_sla_share, 0);
  EXPECT_GT(r.idle_share, 0.4);  // sized for the peak all day
  // 32 rps peak x 1.15 / 2 rps per replica = 18.4 -> 19 replicas, all month at 10 USD/h.
  EXPECT_EQ(r.peak_replicas, 19);
  EXPECT_NEAR(r.monthly.value(), 19 * 10.0 * 730, 1e-6);
}

TEST(Policy, ReactiveIsCheaperThanStaticOnDiurnalTraffic) {
  Policy stat;
  stat.kind = PolicyKind::kStaticPeak;
  Policy reactive;
  const auto s = simulate_policy(diurnal(), kCapacity, kReplicaPrice, stat);
  const auto r = simulate_policy(diurnal(), kCapacity, kReplicaPrice, reactive);
  EXPECT_LT(r.monthly.value(), s.monthly.value());
  EXPECT_LT(r.idle_share, s.idle_share);
  EXPECT_LT(r.over_sla_share, 0.01);  // a smooth curve with headroom: hardly any misses
}

// A x5 spike with a 10-minute cold start: a reactive fleet misses requests while it scales.
TEST(Policy, ColdStartsMakeReactiveMissSpikes) {
  SyntheticTraffic t;
  t.mean_rate = core::per_second(20);
  t.spikes = {{2, 5.0}};
  Policy p;
  p.cold_start_min = 10;
  const auto r = simulate_policy(synthetic(t), kCapacity, kReplicaPrice, p);
  EXPECT_GT(r.over_sla_share, 0);
}

TEST(Policy, SpotMixIsCheaperAndSeeded) {
  Policy p;
  p.spot_share = 0.5;
  p.spot_price_ratio =
      0.4;  // data/reliability.yaml serving_spot, set here as the plan reader would
  p.spot_interruptions_per_hour = 0.05;
  const auto a = simulate_policy(diurnal(), kCapacity, kReplicaPrice, p);
  const auto b = simulate_policy(diurnal(), kCapacity, kReplicaPrice, p);
  EXPECT_EQ(a.monthly.value(), b.monthly.value());
  EXPECT_EQ(a.replicas, b.replicas);
  Policy on_demand;
  EXPECT_LT(a.monthly.value(),
            simulate_policy(diurnal(), kCapacity, kReplicaPrice, on_demand).monthly.value());
}

}  // namespace
}  // namespace aicost::serving
