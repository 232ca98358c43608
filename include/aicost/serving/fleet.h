// What a serving plan costs a month: the cheapest deployment that meets the SLA at the plan's
// rate (capacity.h), run the way the plan runs its fleet: with a traffic profile, the plan's
// scaling policy (serving.autoscaling.policy, default static-peak) simulated over it
// (traffic.h); without one, the deployment's replicas around the clock. Plus the response
// cache's own cost when the plan gives one. `aicost estimate` prints this total and `aicost
// optimize` compares plans by it, so both take it from here. Pure; thread-safe.
#pragma once

#include <optional>
#include <vector>

#include "aicost/serving/plan.h"

namespace aicost::serving {

struct Fleet {
  std::vector<std::optional<Deployment>> per_option;  // the cheapest deployment of each option
  std::optional<Deployment> best;  // the cheapest of all; nullopt when none meets the SLA
  // All requests (response-cache hits included) one replica of `best` covers within the SLA.
  core::PerSecond replica_capacity{0};
  core::UsdPerSecond replica_price{0};  // all GPUs of one replica of `best`
  std::optional<PolicyResult> run;      // the plan's policy over its traffic profile
  core::Usd cache_monthly{0};
  // The plan's monthly cost (730 h): the policy's (or the deployment's) + the cache's; 0 when no
  // deployment meets the SLA.
  core::Usd monthly{0};
};

// `series`: the traffic profile (empty: none).
Fleet estimate_fleet(const PlanSpec& plan, const TrafficSeries& series);

// The spare capacity the fleet is sized with, as a share of the load it is sized for (the
// optimiser's "capacity buffer" red line). Without a traffic profile: the replicas' capacity
// within the SLA over the plan's rate, less one. With one: what the plan's policy sizes above
// the load it plans for, (1 + headroom) / utilisation target - 1 (the target is 100 % for the
// static and scheduled policies, which size for a known peak). 0 without a deployment.
double capacity_buffer(const PlanSpec& plan, const Fleet& fleet);

}  // namespace aicost::serving
