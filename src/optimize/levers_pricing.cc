// Pricing levers: a reservation paid for its whole term, spot capacity with its preemptions
// (owned GPUs: levers_owned.cc).
#include <cmath>

#include "aicost/core/text.h"
#include "aicost/reliability/analysis.h"
#include "levers.h"

namespace aicost::optimize::detail {

using catalog::PricingMode;

namespace {

// The catalogued instance the plan is priced at, or nullptr (a plain gpu_hour price).
const catalog::Instance* plan_instance(const LeverContext& ctx) {
  const auto& id = ctx.plan.inputs.compute.instance;
  if (id.empty()) return nullptr;
  auto i = ctx.catalog.instance(id);
  return i ? *i : nullptr;
}

int nodes(const workload::TrainingJob& job) {
  return (job.cluster.gpus + job.cluster.gpus_per_node - 1) / job.cluster.gpus_per_node;
}

}  // namespace

Proposal pricing_reserved(const LeverContext& ctx) {
  const auto* inst = plan_instance(ctx);
  if (!inst) {
    return not_priced(
        "the plan's price is pricing.gpu_hour, a plain rate with no reserved "
        "price; name a catalogued instance (pricing.instance) to price a reservation");
  }
  const auto& now = ctx.plan.inputs.compute;
  const bool reserved = now.term.value() > 0;
  std::vector<PricingMode> options;
  for (PricingMode m : {PricingMode::kReserved1y, PricingMode::kReserved3y}) {
    if (m != now.mode && inst->price(m)) options.push_back(m);
  }
  // A plan already on a reservation may be better off without it.
  if (reserved && inst->price(PricingMode::kOnDemand)) options.push_back(PricingMode::kOnDemand);
  if (options.empty()) {
    if (reserved) {
      return not_priced("no other term for " + inst->id + ": the catalog has no " +
                        (now.mode == PricingMode::kReserved1y ? "reserved-3y" : "reserved-1y") +
                        " or on-demand price");
    }
    return not_priced("no reserved price for " + inst->id + " in the catalog");
  }
  // Each option estimated as a whole plan; the cheapest is proposed.
  PricingMode best = options.front();
  double best_usd = 0, reuse = 0;
  bool found = false;
  for (PricingMode m : options) {
    auto e = ctx.evaluate(merge(ctx.applied, {{"pricing.mode", catalog::to_string(m)}}));
    if (!e) continue;
    if (!found || e->total_usd() < best_usd) {
      best = m;
      best_usd = e->total_usd();
      reuse = e->inputs.compute.term_reuse;
      found = true;
    }
  }
  if (!found) return not_priced("no reserved option of " + inst->id + " makes a valid plan");
  const double wall_h = core::in_hours(ctx.plan.cost.wall_time);
  const auto on_demand = inst->price(PricingMode::kOnDemand);
  Proposal p;
  if (best == PricingMode::kOnDemand) {
    Risk risk{RiskLevel::kMedium,
              {"availability"},
              core::sprintf("%d GPUs on demand for %.0f h: large on-demand fleets may not be "
                            "available at once; the reservation guaranteed them",
                            ctx.plan.job.cluster.gpus, wall_h)};
    Rollout r{
        "confirm with the provider that the on-demand capacity is available for the run's "
        "start before letting the reservation lapse",
        "GPU-hours obtained against requested (ledger), cost per 1M tokens",
        "keep the reservation if the capacity cannot be secured on demand"};
    p = change({{"pricing.mode", "on-demand"}}, risk, r);
  } else {
    const double term_h =
        best == PricingMode::kReserved1y ? core::kHoursPerYear : 3 * core::kHoursPerYear;
    Risk risk{RiskLevel::kMedium,
              {"cost-commitment"},
              core::sprintf("commits to %s h x %d GPUs whatever happens to the run; the run itself "
                            "uses %.1f %% of the term",
                            core::group_digits(term_h).c_str(), ctx.plan.job.cluster.gpus,
                            100 * wall_h / term_h)};
    Rollout r{
        "list the work that will use the reserved capacity after this run and its hours "
        "(pricing.reservation_reuse), before committing",
        "utilisation of the reserved hours (ledger: effective against billed cost)",
        "buy no further term and exchange or resell the reservation if its utilisation "
        "falls below the break-even"};
    p = change({{"pricing.mode", catalog::to_string(best)}}, risk, r);
  }
  for (PricingMode m : {PricingMode::kReserved1y, PricingMode::kReserved3y}) {
    if (!inst->price(m) || !on_demand) continue;
    p.notes.push_back(core::sprintf(
        "%s break-even: the reserved fleet must be busy %.0f %% of the term (%s / %s USD/h) to "
        "beat "
        "on-demand; this run alone fills %.1f %% of one term",
        catalog::to_string(m), 100 * (*inst->price(m) / *on_demand),
        core::sprintf("%.2f", core::per_hour(*inst->price(m))).c_str(),
        core::sprintf("%.2f", core::per_hour(*on_demand)).c_str(),
        100 * wall_h /
            (m == PricingMode::kReserved1y ? core::kHoursPerYear : 3 * core::kHoursPerYear)));
  }
  if (best != PricingMode::kOnDemand) {
    p.notes.push_back(
        core::sprintf("the rest of the term is charged to this run unless "
                      "pricing.reservation_reuse says other work uses it (the "
                      "plan says %.0f %%)",
                      100 * reuse));
  }
  return p;
}

Proposal pricing_spot(const LeverContext& ctx) {
  const auto* inst = plan_instance(ctx);
  if (!inst) {
    return not_priced(
        "the plan's price is pricing.gpu_hour, a plain rate with no spot price; "
        "name a catalogued instance (pricing.instance) to price spot capacity");
  }
  const auto& now = ctx.plan.inputs.compute;
  if (now.mode == PricingMode::kSpot) return not_applicable("the plan is already on spot capacity");
  if (!inst->price(PricingMode::kSpot)) {
    return not_priced("no spot price for " + inst->id + " in the catalog");
  }
  Change c = {{"pricing.mode", "spot"}};
  if (now.term_reuse > 0) c.push_back({"pricing.reservation_reuse", std::nullopt});
  auto spot = ctx.evaluate(merge(ctx.applied, c));
  if (!spot) return not_priced("the spot plan is not valid: " + spot.error().message);
  Proposal p;
  std::vector<std::string> notes;
  // The interval a plan fixes was chosen for its old interrupt rate: re-optimise it for spot.
  if (ctx.plan.inputs.storage.checkpoint_interval.value() > 0) {
    const auto a = reliability::analyze(
        costing::reliability_inputs(spot->job, spot->perf, spot->inputs), false);
    c.push_back({"storage.checkpoint_interval", minutes(a.cost_optimal)});
    notes.push_back(
        core::sprintf("checkpoint interval re-optimised for the spot interrupt rate: "
                      "%.0f min (the plan fixed %.0f min)",
                      std::round(a.cost_optimal.value() / 60),
                      ctx.plan.inputs.storage.checkpoint_interval.value() / 60));
  } else {
    notes.push_back(
        core::sprintf("the estimate re-optimises the checkpoint interval for the spot "
                      "interrupt rate: %.0f min",
                      spot->cost.failures.checkpoint_interval.value() / 60));
  }
  const int n = nodes(ctx.plan.job);
  double preempt_per_gpu_hour = 0;
  for (const auto& cause : spot->inputs.reliability.failures.causes) {
    if (cause.name == "spot-preemption") preempt_per_gpu_hour = cause.per_gpu_hour;
  }
  const double job_preempt_h =
      preempt_per_gpu_hour > 0 ? 1 / (preempt_per_gpu_hour * ctx.plan.job.cluster.gpus) : 0;
  const double per_day =
      spot->cost.failures.expected_interruptions / std::max(spot->wall_days(), 1e-9);
  Risk risk{n > 2 ? RiskLevel::kHigh : RiskLevel::kMedium,
            {"availability", "recovery", "schedule"},
            core::sprintf("%d spot nodes: a reclaim somewhere every %.1f h stops the whole job "
                          "(%.1f expected interruptions in all, from %.1f); %d nodes of one spot "
                          "type at once, in one fabric, are often not to be had",
                          n, job_preempt_h, spot->cost.failures.expected_interruptions,
                          ctx.plan.cost.failures.expected_interruptions, n)};
  Rollout r{
      "run one day of the job on spot with automatic restart and count reclaims and the "
      "time to get capacity back",
      "interruptions per day and ETTR (wall time against compute time), cost per 1M tokens",
      core::sprintf("go back to %s if interruptions exceed %.1f per day (1.5x the %.1f "
                    "expected) or ETTR falls more than 5 pp below the estimate's %.1f %%",
                    catalog::to_string(now.mode), 1.5 * per_day, per_day,
                    100 * spot->cost.failures.goodput)};
  p = change(std::move(c), risk, r);
  p.notes = std::move(notes);
  p.notes.push_back(
      "spot reclaim rate: reliability.spot_preemption_mtbf, default data/reliability.yaml "
      "(AWS Spot Instance Advisor band; weak)");
  return p;
}

}  // namespace aicost::optimize::detail
