#include "aicost/serving/fleet.h"

namespace aicost::serving {

Fleet estimate_fleet(const PlanSpec& plan, const TrafficSeries& series) {
  Fleet f;
  f.per_option = per_option(plan.options, plan.batches, plan.traffic, plan.sla);
  // The first of equally cheap options, in the plan's order (as `aicost estimate` always chose).
  for (const auto& d : f.per_option) {
    if (d && (!f.best || d->monthly_usd < f.best->monthly_usd)) f.best = d;
  }
  if (!f.best) return f;
  const auto& o = plan.options[f.best->option];
  f.replica_capacity_rps = replica_capacity_rps(o, *f.best, plan.traffic, plan.sla);
  f.replica_usd_per_hour = o.price_per_gpu_hour * o.replica.tensor_parallel;
  f.cache_monthly_usd = plan.response_cache_cost.value() * core::kSecondsPerMonth;
  double fleet_usd = f.best->monthly_usd;
  if (!series.rps.empty()) {
    f.run = simulate_policy(series, f.replica_capacity_rps, f.replica_usd_per_hour, plan.policy);
    fleet_usd = f.run->monthly_usd;
  }
  f.monthly_usd = fleet_usd + f.cache_monthly_usd;
  return f;
}

double capacity_buffer(const PlanSpec& plan, const Fleet& f) {
  if (!f.best) return 0;
  if (f.run) {
    const bool reacts =
        plan.policy.kind == PolicyKind::kReactive || plan.policy.kind == PolicyKind::kPredictive;
    return (1 + plan.policy.headroom) / (reacts ? plan.policy.target_utilization : 1.0) - 1;
  }
  if (plan.traffic.requests_per_s <= 0) return 0;
  return f.best->replicas * f.replica_capacity_rps / plan.traffic.requests_per_s - 1;
}

}  // namespace aicost::serving
