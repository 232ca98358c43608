#include "aicost/serving/fleet.h"

namespace aicost::serving {

Fleet estimate_fleet(const PlanSpec& plan, const TrafficSeries& series) {
  Fleet f;
  f.per_option = per_option(plan.options, plan.batches, plan.traffic, plan.sla);
  // The first of equally cheap options, in the plan's order (as `aicost estimate` always chose).
  for (const auto& d : f.per_option) {
    if (d && (!f.best || d->monthly < f.best->monthly)) f.best = d;
  }
  if (!f.best) return f;
  const auto& o = plan.options[f.best->option];
  f.replica_capacity = replica_capacity(o, *f.best, plan.traffic, plan.sla);
  f.replica_price = o.price_per_gpu * o.replica.tensor_parallel;
  f.cache_monthly = plan.response_cache_cost * core::seconds(core::kSecondsPerMonth);
  core::Usd fleet = f.best->monthly;
  if (!series.rps.empty()) {
    f.run = simulate_policy(series, f.replica_capacity, f.replica_price, plan.policy);
    fleet = f.run->monthly;
  }
  f.monthly = fleet + f.cache_monthly;
  return f;
}

double capacity_buffer(const PlanSpec& plan, const Fleet& f) {
  if (!f.best) return 0;
  if (f.run) {
    const bool reacts =
        plan.policy.kind == PolicyKind::kReactive || plan.policy.kind == PolicyKind::kPredictive;
    return (1 + plan.policy.headroom) / (reacts ? plan.policy.target_utilization : 1.0) - 1;
  }
  if (plan.traffic.request_rate <= core::PerSecond(0)) return 0;
  return f.best->replicas * f.replica_capacity / plan.traffic.request_rate - 1;
}

}  // namespace aicost::serving
