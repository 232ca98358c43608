// The pricing-owned lever: buy the cluster instead of renting it. The plan is estimated with
// `pricing.mode: owned` on the catalog's cheapest server for its GPU (costing/owned.h: capital
// over the life and the utilisation, support, colocation, staff, power), and the lever says how
// long the purchase takes to pay back against the plan's own price and what it commits to.
#include <cmath>

#include "aicost/core/text.h"
#include "levers.h"

namespace aicost::optimize::detail {

namespace {

std::string months_text(const std::optional<double>& months, double life_months) {
  if (!months) return "never (renting costs less than running the cluster)";
  if (*months > life_months) {
    return core::sprintf("%.1f months, after the %.0f-month life: never within it", *months,
                         life_months);
  }
  return core::sprintf("%.1f months", *months);
}

}  // namespace

Proposal pricing_owned(const LeverContext& ctx) {
  const auto& now = ctx.plan.inputs.compute;
  if (now.owned) return not_applicable("the plan is already on owned GPUs (pricing.mode owned)");
  const std::string& gpu = ctx.plan.job.cluster.gpu.id;
  const catalog::Server* server = ctx.catalog.server_for(gpu);
  if (!server) {
    return not_priced("no server price for " + gpu +
                      " in the catalog (data/owned.yaml servers): "
                      "buying needs one, with its power");
  }
  if (!server->priced()) {
    return not_priced("no server price for " + gpu + ": " + server->price_sourcing.provenance.note);
  }
  Change c = {{"pricing.mode", "owned"}, {"pricing.server", server->id}};
  if (now.instance.empty()) c.push_back({"pricing.gpu_hour", std::nullopt});
  if (now.term_reuse > 0) c.push_back({"pricing.reservation_reuse", std::nullopt});
  auto owned = ctx.evaluate(merge(ctx.applied, c));
  if (!owned) return not_priced("the owned plan is not valid: " + owned.error().message);
  if (!owned->inputs.compute.owned) return not_priced("the owned plan has no owned price");
  const costing::OwnedPricing& o = *owned->inputs.compute.owned;
  const auto& in = o.inputs;
  const double life_months = in.life.value() / core::kSecondsPerMonth;
  const double run_share = owned->cost.wall_time / in.life;

  // Against what the plan pays now: months with its own kind of price (a reservation is paid
  // every hour), and the utilisation at which a busy owned hour costs its hourly price.
  const std::string rented = now.instance.empty() ? std::string("pricing.gpu_hour") : now.instance;
  const auto be = costing::break_even(in, o.rate, {rented, now.mode, now.per_gpu});
  const auto hour =
      costing::break_even(in, o.rate, {rented, catalog::PricingMode::kOnDemand, now.per_gpu});
  const std::string needed = hour.utilisation ? core::sprintf("%.0f %%", 100 * *hour.utilisation)
                                              : std::string("more than 100 %");

  const double gpus = static_cast<double>(in.servers) * in.gpus_per_server;
  const bool relies_on_other_work = run_share < in.utilisation;
  Risk risk{
      relies_on_other_work ? RiskLevel::kHigh : RiskLevel::kMedium,
      {"cost-commitment", "utilisation", "obsolescence"},
      core::sprintf("buys %d x %s (%s GPUs) for %s USD up front, written off over %.3g y; "
                    "the owned price assumes the cluster busy %.0f %% of its life and this "
                    "run fills %.1f %%%s; against the plan's %.2f USD/GPU-h it pays only "
                    "above %s utilisation; newer GPUs lower what these fetch and earn",
                    in.servers, in.server.c_str(), core::group_digits(gpus).c_str(),
                    core::group_digits(o.rate.upfront.value()).c_str(),
                    in.life.value() / core::kSecondsPerYear, 100 * in.utilisation, 100 * run_share,
                    relies_on_other_work ? ": other work must fill the rest" : "",
                    core::per_hour(now.per_gpu), needed.c_str())};
  Rollout r{core::sprintf("get a quote for %d x %s with a delivery date and a colocation offer "
                          "(kW, energy metered or included), and list the work that will use the "
                          "cluster after this run with its GPU-hours before committing",
                          in.servers, in.server.c_str()),
            "cluster utilisation (busy GPU-hours over available, from telemetry: aicost ledger) "
            "and the effective USD per busy GPU-hour",
            "do not buy if the committed work fills less than " + needed +
                " of the cluster's life; once bought, rent out or resell capacity if utilisation "
                "stays below it for a quarter"};
  Proposal p = change(std::move(c), risk, r);
  p.notes.push_back(core::sprintf(
      "owned %s: %.2f USD per busy GPU-hour at %.0f %% utilisation (%.2f fixed, %.2f elastic) "
      "against the plan's %.2f (%s)",
      in.server.c_str(), core::per_hour(o.rate.per_gpu), 100 * in.utilisation,
      core::per_hour(o.rate.fixed), core::per_hour(o.rate.elastic), core::per_hour(now.per_gpu),
      now.basis.c_str()));
  p.notes.push_back("break-even against the plan's price: " + months_text(be.months, life_months) +
                    "; a busy owned hour costs the plan's price at " + needed + " utilisation");
  for (const auto& b : o.break_even) {
    if (b.rental.instance == now.instance && b.rental.mode == now.mode) continue;  // said above
    p.notes.push_back(
        core::sprintf("break-even against %s %s at %.2f USD/GPU-h: ", b.rental.instance.c_str(),
                      catalog::to_string(b.rental.mode), core::per_hour(b.rental.per_gpu)) +
        months_text(b.months, life_months));
  }
  std::string weak;
  for (const auto& s : o.sources) {
    if (s.weak) weak += (weak.empty() ? "" : ", ") + s.input;
    if (s.input == "utilisation" && s.from != "plan") {
      p.notes.push_back("utilisation " + s.value +
                        " is the default of data/owned.yaml (an "
                        "assumption): set pricing.utilisation to the share of the cluster's life "
                        "your work will fill");
    }
  }
  if (!weak.empty()) p.notes.push_back("weak figures in the owned price: " + weak);
  return p;
}

}  // namespace aicost::optimize::detail
