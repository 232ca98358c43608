// Serving levers that change how the fleet runs over the traffic profile: the scaling policy and
// a share of spot replicas. Each candidate is simulated over the month (serving/traffic.h) and
// the cheapest that stays inside the red lines (the share of requests over the SLA above all)
// is proposed; the others are listed in the notes.
#include "aicost/core/text.h"
#include "serving_levers.h"

namespace aicost::optimize::detail {

namespace {

using serving::PolicyKind;

// Shares of the fleet on spot the spot-mix lever weighs.
constexpr double kSpotShares[] = {0.25, 0.5, 0.75};

std::string fleet_text(const Evaluation& e) {
  const auto& run = *e.serving->fleet.run;
  return core::sprintf(
      "%s: %s USD/month, %.2f %% of requests over the SLA, %.1f %% idle, %.1f "
      "replicas on average",
      e.serving->plan.policy.name.c_str(), core::group_digits(e.total_usd()).c_str(),
      100 * run.over_sla_share, 100 * run.idle_share, run.mean_replicas);
}

// The instance the deployment is priced at when it has spot and on-demand prices (one provider's
// ratio), else the catalogued instance of `gpu` with the cheapest spot price per GPU that has
// both; nullptr when none has.
const catalog::Instance* spot_instance(const catalog::Catalog& cat,
                                       const serving::DeploymentOption& o) {
  const std::string& gpu = o.replica.gpu.id;
  if (auto own = cat.instance(o.instance); !o.instance.empty() && own &&
                                           (*own)->price(catalog::PricingMode::kSpot) &&
                                           (*own)->price(catalog::PricingMode::kOnDemand)) {
    return *own;
  }
  const catalog::Instance* best = nullptr;
  for (const auto& i : cat.instances()) {
    if (catalog::normalize_name(i.gpu) != catalog::normalize_name(gpu)) continue;
    if (!i.price(catalog::PricingMode::kSpot) || !i.price(catalog::PricingMode::kOnDemand))
      continue;
    if (!best || *i.price(catalog::PricingMode::kSpot) / i.gpus <
                     *best->price(catalog::PricingMode::kSpot) / best->gpus) {
      best = &i;
    }
  }
  return best;
}

}  // namespace

Proposal autoscaling(const LeverContext& ctx) {
  const auto& s = *ctx.plan.serving;
  if (!s.fleet.run) {
    return not_applicable(
        "the plan has no traffic profile (serving.traffic_profile): a fleet "
        "sized for one constant rate has nothing to scale with");
  }
  const auto& policy = s.plan.policy;
  std::vector<std::pair<Change, Risk>> candidates;
  for (PolicyKind k : {PolicyKind::kReactive, PolicyKind::kScheduled, PolicyKind::kPredictive}) {
    if (k == policy.kind) continue;
    const char* name = serving::to_string(k);
    std::string why;
    switch (k) {
      case PolicyKind::kReactive:
        why = core::sprintf("replicas follow the load one cold start (%d min) late",
                            policy.cold_start_min);
        break;
      case PolicyKind::kScheduled:
        why =
            "replicas follow each hour's usual peak; a day unlike the others (a spike) finds too "
            "few";
        break;
      default:
        why = core::sprintf(
            "replicas follow last week's load one cold start (%d min) ahead; a "
            "change of pattern finds too few until the fleet reacts",
            policy.cold_start_min);
        break;
    }
    candidates.push_back({{{"serving.autoscaling.policy", name}},
                          Risk{RiskLevel::kMedium, {"availability", "latency"}, why}});
  }
  const auto priced = price_each(ctx, std::move(candidates));
  const auto best = cheapest_within_lines(ctx, priced);
  if (!best) return nothing_to_do("no scaling policy makes a valid plan");
  const auto& run = *best->eval.serving->fleet.run;
  Risk risk = best->risk;
  risk.why += core::sprintf(": %.2f %% of requests over the SLA against %.2f %% now",
                            100 * run.over_sla_share, 100 * s.fleet.run->over_sla_share);
  const double limit = over_sla_limit(ctx.plan, ctx.guardrails);
  Rollout roll{
      "run the policy in shadow for a week (log the replica count it would set next to "
      "the live fleet), then let it drive one route",
      "share of requests over the SLA, idle share of paid GPU-hours (aicost ledger)",
      core::sprintf("go back to %s if more than %.2f %% of a day's requests miss the SLA",
                    policy.name.c_str(), 100 * limit)};
  auto p = change(best->change, risk, roll);
  p.notes.push_back("now " + fleet_text(ctx.plan));
  for (const auto& c : priced) p.notes.push_back("weighed " + fleet_text(c.eval));
  return p;
}

Proposal spot_mix(const LeverContext& ctx) {
  const auto& s = *ctx.plan.serving;
  if (!s.fleet.run) {
    return not_priced(
        "spot reclaims are simulated over the traffic profile "
        "(serving.traffic_profile); without one the model has no fleet over time to "
        "take replicas from");
  }
  if (s.plan.mode == catalog::PricingMode::kSpot) {
    return not_applicable("the whole fleet is on spot already (pricing.mode: spot)");
  }
  if (s.plan.mode != catalog::PricingMode::kOnDemand) {
    return not_priced(std::string("the fleet is reserved (pricing.mode: ") +
                      catalog::to_string(s.plan.mode) +
                      "): a spot share is priced against on-demand, and what happens to the "
                      "reservation's unused term is not modelled for serving");
  }
  const auto& policy = s.plan.policy;
  const std::string& gpu = s.option().replica.gpu.id;
  Change price;
  std::string basis;
  if (s.plan.spot_price_given) {
    basis = core::sprintf("spot at %.0f %% of the on-demand price (serving.autoscaling.spot_price)",
                          100 * policy.spot_price_ratio);
  } else {
    const auto* inst = spot_instance(ctx.catalog, s.option());
    if (!inst) {
      return not_priced("no catalogued spot price for " + gpu +
                        " (data/instances.yaml); give serving.autoscaling.spot_price");
    }
    const double ratio =
        *inst->price(catalog::PricingMode::kSpot) / *inst->price(catalog::PricingMode::kOnDemand);
    price = {{"serving.autoscaling.spot_price", percent(ratio)}};
    basis = core::sprintf(
        "spot at %s of the on-demand price: %s, %.2f against %.2f USD/h "
        "(data/instances.yaml)%s",
        percent(ratio).c_str(), inst->id.c_str(),
        core::per_hour(*inst->price(catalog::PricingMode::kSpot)),
        core::per_hour(*inst->price(catalog::PricingMode::kOnDemand)),
        inst->id == s.option().instance
            ? ""
            : "; the instance the plan is priced at has no spot price, so the "
              "ratio comes from another provider's");
  }
  std::vector<std::pair<Change, Risk>> candidates;
  for (double share : kSpotShares) {
    if (share == policy.spot_share) continue;
    Risk risk{share > 0.5 ? RiskLevel::kHigh : RiskLevel::kMedium,
              {"availability"},
              core::sprintf("%.0f %% of replicas on spot: each reclaim takes one away for a cold "
                            "start (%d min), and reclaims of one type in one region come together",
                            100 * share, policy.cold_start_min)};
    candidates.push_back({merge({{"pricing.spot_share", percent(share)}}, price), risk});
  }
  const auto priced = price_each(ctx, std::move(candidates));
  const auto best = cheapest_within_lines(ctx, priced);
  if (!best) return nothing_to_do("no spot share makes a valid plan");
  Risk risk = best->risk;
  risk.why += core::sprintf(": %.2f %% of requests over the SLA against %.2f %% now",
                            100 * best->eval.serving->fleet.run->over_sla_share,
                            100 * s.fleet.run->over_sla_share);
  Rollout roll{
      "move one replica group to spot with automatic replacement and count reclaims and "
      "the time to a ready replacement for a week",
      "reclaims per replica-hour, share of requests over the SLA, cost per 1M tokens",
      core::sprintf("go back to on-demand if reclaims exceed %.2f per replica-hour (twice "
                    "the simulated rate) or more than %.2f %% of a day's requests miss "
                    "the SLA",
                    2 * policy.spot_interruptions_per_hour,
                    100 * over_sla_limit(ctx.plan, ctx.guardrails))};
  auto p = change(best->change, risk, roll);
  p.notes.push_back(basis);
  p.notes.push_back(
      core::sprintf("reclaims: %.2f per spot replica-hour (data/reliability.yaml "
                    "serving_spot, an assumed rate: measure yours)",
                    policy.spot_interruptions_per_hour));
  p.notes.push_back("now " + fleet_text(ctx.plan));
  for (const auto& c : priced) p.notes.push_back("weighed " + fleet_text(c.eval));
  return p;
}

}  // namespace aicost::optimize::detail
