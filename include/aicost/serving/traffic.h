// Traffic over time and the scaling policies simulated over it, one-minute resolution.
// A replica serves up to `capacity` requests per second within the SLA (capacity.h:
// max_rate_within_sla); load above the ready replicas' capacity is counted as requests over the
// SLA; replicas that are starting (cold start) are paid but serve nothing. Seeded where random
// (spot interruptions).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/core/quantity.h"

namespace aicost::serving {

// Requests per second for each minute.
struct TrafficSeries {
  std::vector<double> rps;
};

struct SyntheticTraffic {
  int days = 30;
  core::PerSecond mean_rate{10};  // requests, averaged over a weekday
  double peak_to_trough = 3;      // diurnal: busiest hour / quietest hour
  double peak_hour = 14;          // hour of day of the peak (UTC)
  double weekend_factor = 0.7;    // Saturday and Sunday relative to weekdays
  double growth_per_month = 0;    // e.g. 0.1 = +10 % over 30 days, compounding per day
  struct Spike {
    int day = 0;
    double factor = 5;  // multiplier for the whole day
  };
  std::vector<Spike> spikes;
};

TrafficSeries synthetic(const SyntheticTraffic& t);

enum class PolicyKind { kStaticPeak, kReactive, kScheduled, kPredictive };
const char* to_string(PolicyKind k);  // "static-peak", "reactive", "scheduled", "predictive"
std::optional<PolicyKind> policy_kind_from_string(std::string_view name);

struct Policy {
  PolicyKind kind = PolicyKind::kReactive;
  std::string name;
  double headroom = 0.15;           // capacity kept above demand (the 10-20 % buffer)
  double target_utilization = 0.8;  // reactive: scale so load / capacity stays at this
  int cooldown_min = 10;            // reactive: minutes after a change before scaling down
  int cold_start_min = 5;           // minutes before a new replica serves
  int min_replicas = 1, max_replicas = 1 << 20;
  // Spot mix: this share of replicas at `spot_price_ratio` of the on-demand price; each spot
  // replica is reclaimed at `spot_interruptions_per_hour` and replaced after a cold start.
  // Both come from data/reliability.yaml (`serving_spot`) through the plan reader; 0 until then.
  double spot_share = 0;
  double spot_price_ratio = 0;
  double spot_interruptions_per_hour = 0;
  uint64_t seed = 1;
};

struct PolicyResult {
  std::string name;
  core::Usd monthly{0};       // scaled to 730 hours
  double idle_share = 0;      // 1 - served load / paid capacity
  double over_sla_share = 0;  // requests beyond ready capacity / all requests
  double mean_replicas = 0;
  int peak_replicas = 0;
  std::vector<int> replicas;  // paid replicas per minute
};

// `replica_price`: all GPUs of one replica at on-demand price.
PolicyResult simulate_policy(const TrafficSeries& traffic, core::PerSecond capacity,
                             core::UsdPerSecond replica_price, const Policy& policy);

// The default set: static peak, reactive, scheduled (each hour of the day sized for the 90th
// percentile of that hour's daily peaks), predictive (same minute one week earlier), and
// reactive with a 50 % spot share.
std::vector<Policy> default_policies();

}  // namespace aicost::serving
