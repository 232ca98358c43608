// Owned GPUs: the effective price of a busy GPU-hour and the break-even against renting.
#include "aicost/costing/owned.h"

#include <algorithm>

#include "aicost/core/text.h"

namespace aicost::costing {

using core::UsdPerSecond;

namespace {

std::string usd(double x) { return core::group_digits(x) + " USD"; }
std::string kw(core::Watts w) { return core::sprintf("%.4g kW", w.value() / 1e3); }

}  // namespace

OwnedRate owned_rate(const OwnedInputs& in) {
  OwnedRate r;
  const double n = in.servers;
  const double g = in.gpus_per_server;
  const double u = in.utilisation;
  // Busy GPU-seconds per wall-clock second of the whole cluster: every cost of a wall-clock
  // second is spread over these (tco.md "How to combine": the 1/u of every term).
  const double busy = n * g * u;
  const double life_y = in.life / core::Seconds(core::kSecondsPerYear);
  const double energy_per_j = in.pue * in.electricity.value();  // USD per joule at the IT load
  auto add = [&](std::string name, UsdPerSecond cluster, bool fixed, std::string driver) {
    r.parts.push_back({std::move(name), cluster / busy, fixed, std::move(driver)});
  };
  // (server - residual) / life, per server (tco.md: capital items over the hours they can sell).
  const core::Usd depreciable = in.server_price * (1 - in.residual);
  add("servers", depreciable * n / in.life, true,
      core::sprintf("%s x %.0f servers less %.0f %% residual over %.3g y",
                    usd(in.server_price.value()).c_str(), n, 100 * in.residual, life_y));
  add("fabric", in.fabric * n / in.life, true,
      core::sprintf("%s per server x %.0f over %.3g y, no residual", usd(in.fabric.value()).c_str(),
                    n, life_y));
  add("support", in.server_price * (in.support_per_year * n) / core::Seconds(core::kSecondsPerYear),
      true, core::sprintf("%.0f %% of the server price a year", 100 * in.support_per_year));
  // Colocation is contracted per kW of capacity (nameplate), busy or not (tco.md caution (a)).
  add("colocation", in.capacity * in.colocation * n, true,
      core::sprintf("%s x %.0f servers x %.2f USD/kW-month", kw(in.capacity).c_str(), n,
                    in.colocation.value() * 1e3 * core::kSecondsPerMonth));
  add("staff", in.staff, true,
      core::sprintf("%s/month for the cluster",
                    usd(in.staff.value() * core::kSecondsPerMonth).c_str()));
  // Power x PUE x price: the idle hours' draw is paid whatever the load (fixed), the busy hours'
  // draw only when the GPUs work (elastic).
  add("idle power", UsdPerSecond(in.idle_power.value() * energy_per_j * n * (1 - u)), true,
      core::sprintf("%s x %.0f %% of the hours x PUE %.2f x %.4f USD/kWh",
                    kw(in.idle_power).c_str(), 100 * (1 - u), in.pue,
                    in.electricity.value() * 3.6e6));
  add("power", UsdPerSecond(in.training_power.value() * energy_per_j * n * u), false,
      core::sprintf("%s x %.0f %% of the hours x PUE %.2f x %.4f USD/kWh",
                    kw(in.training_power).c_str(), 100 * u, in.pue,
                    in.electricity.value() * 3.6e6));
  for (const auto& p : r.parts) {
    r.per_gpu += p.per_gpu;
    (p.fixed ? r.fixed : r.elastic) += p.per_gpu;
    if (p.name != "servers" && p.name != "fabric") r.running += p.per_gpu * busy;
  }
  r.upfront = (in.server_price + in.fabric) * n;
  return r;
}

std::vector<Rental> cheapest_rentals(const catalog::Catalog& catalog, const std::string& gpu) {
  using catalog::PricingMode;
  std::optional<Rental> on_demand, reserved;
  const std::string want = catalog::normalize_name(gpu);
  for (const auto& i : catalog.instances()) {
    if (catalog::normalize_name(i.gpu) != want) continue;
    for (PricingMode m :
         {PricingMode::kOnDemand, PricingMode::kReserved1y, PricingMode::kReserved3y}) {
      const auto p = i.price(m);
      if (!p) continue;
      auto& best = m == PricingMode::kOnDemand ? on_demand : reserved;
      const UsdPerSecond per_gpu = *p / i.gpus;
      if (!best || per_gpu < best->per_gpu) best = Rental{i.id, m, per_gpu};
    }
  }
  std::vector<Rental> out;
  if (on_demand) out.push_back(*on_demand);
  if (reserved) out.push_back(*reserved);
  return out;
}

BreakEven break_even(const OwnedInputs& in, const OwnedRate& rate, const Rental& rental) {
  BreakEven b{rental, std::nullopt, std::nullopt};
  const bool reserved = rental.mode == catalog::PricingMode::kReserved1y ||
                        rental.mode == catalog::PricingMode::kReserved3y;
  const double gpus = static_cast<double>(in.servers) * in.gpus_per_server;
  // Renting the same capacity, per wall-clock second.
  const UsdPerSecond rent = rental.per_gpu * (gpus * (reserved ? 1.0 : in.utilisation));
  const UsdPerSecond gain = rent - rate.running;
  if (gain.value() > 0) b.months = (rate.upfront / gain).value() / core::kSecondsPerMonth;
  if (!reserved) {
    // per busy GPU-second = F / u + E, with F the fixed costs of a GPU's wall-clock second
    // (idle power counted as if every hour were idle) and E the power of a busy second beyond
    // idle; equal to the rental price at u = F / (price - E).
    const double energy_per_j = in.pue * in.electricity.value();
    const double idle = in.idle_power.value() * energy_per_j / in.gpus_per_server;
    const double busy = in.training_power.value() * energy_per_j / in.gpus_per_server;
    double fixed_wall = idle;
    for (const auto& p : rate.parts) {
      if (p.fixed && p.name != "idle power") fixed_wall += p.per_gpu.value() * in.utilisation;
    }
    const double margin = rental.per_gpu.value() - (busy - idle);
    if (margin > 0 && fixed_wall / margin <= 1) b.utilisation = fixed_wall / margin;
  }
  return b;
}

}  // namespace aicost::costing
