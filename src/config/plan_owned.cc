// `pricing: {mode: owned, ...}`: the plan's owned-cluster keys, each defaulted from
// data/owned.yaml (with its source) when left out, and the owned price once the cluster's size
// (the job's GPUs and spares) is known.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "aicost/core/text.h"
#include "plan_sections.h"

namespace aicost::config {

using core::UnitKind;
using Source_ = costing::OwnedPricing::Source;

namespace {

// A source entry for a figure of data/owned.yaml.
Source_ from_data(std::string input, std::string value, const catalog::Sourcing& s) {
  return {std::move(input), std::move(value),
          "data/owned.yaml (" + s.kind +
              (s.provenance.date.empty() ? "" : ", " + s.provenance.date) + ")",
          s.provenance.source, s.weak};
}

Source_ from_plan(std::string input, std::string value) {
  return {std::move(input), std::move(value), "plan", "", false};
}

std::string money(double usd) { return core::group_digits(usd) + " USD"; }
std::string pct(double share) { return core::sprintf("%.4g %%", 100 * share); }
std::string kw(core::Watts w) { return core::sprintf("%.4g kW", w.value() / 1e3); }

// Reads one owned key: the plan's value, else the data default; records where it came from.
class OwnedReader {
 public:
  OwnedReader(MapReader& r, std::vector<Source_>& sources) : r_(r), sources_(sources) {}

  // `fallback` null: the key has no default (out stays as it is).
  template <class T, class Show>
  core::Status quantity(const char* key, UnitKind kind, T& out,
                        std::type_identity_t<const catalog::Sourced<T>*> fallback,
                        const char* input, Show show) {
    auto v = r_.quantity(key, kind);
    if (!v) return v.error();
    if (*v) {
      out = T(**v);
      sources_.push_back(from_plan(input, show(out)));
    } else if (fallback) {
      out = fallback->value;
      sources_.push_back(from_data(input, show(out), fallback->sourcing));
    }
    return {};
  }

  bool given(const char* key) { return r_.has(key); }
  core::Error error(const char* key, const std::string& message) {
    return r_.source().error(r_.node(key).Mark(), message);
  }

 private:
  MapReader& r_;
  std::vector<Source_>& sources_;
};

}  // namespace

const std::vector<std::string>& owned_keys() {
  static const std::vector<std::string> keys = {
      "server", "server_price", "amortisation", "residual", "utilisation",
      "pue",    "electricity",  "colocation",   "fabric",   "support",
      "staff",  "power",        "idle_power",   "capacity"};
  return keys;
}

core::Status read_owned(MapReader& r, const catalog::Catalog& cat, const workload::TrainingJob& job,
                        OwnedRequest& req, std::vector<std::string>& warnings) {
  const catalog::OwnedDefaults& d = cat.owned_defaults();
  if (!d.loaded) {
    return core::make_error(core::ErrorCode::kInternal,
                            "the catalog has no owned_defaults section (data/owned.yaml)");
  }
  auto& p = req.pricing;
  auto& in = p.inputs;
  OwnedReader o(r, p.sources);
  const std::string& gpu = job.cluster.gpu.id;
  std::optional<std::string> name;
  TRY_ASSIGN(name, r.string("server"));
  const catalog::Server* server = nullptr;
  if (name) {
    auto s = cat.server(*name);
    if (!s) return o.error("server", s.error().message);
    server = *s;
    if (catalog::normalize_name(server->gpu) != catalog::normalize_name(gpu)) {
      return o.error("server", "server " + server->id + " has " + server->gpu +
                                   " GPUs but cluster.gpu is " + gpu);
    }
  } else {
    server = cat.server_for(gpu);
    if (!server) {
      return r.source().error(r.self().Mark(),
                              "no catalogued server has " + gpu +
                                  " GPUs (data/owned.yaml); add one to a catalog file (servers:) "
                                  "and name it in pricing.server");
    }
    warnings.push_back("pricing.server not given: using the cheapest catalogued server with " +
                       gpu + ", " + server->id);
  }
  req.server = server;
  in.server = server->id;
  in.gpus_per_server = server->gpus;
  const auto& ps = server->price_sourcing;
  if (o.given("server_price")) {
    AICOST_TRY_STATUS(o.quantity("server_price", UnitKind::kMoney, in.server_price, nullptr,
                                 "server price", [](core::Usd x) { return money(x.value()); }));
  } else if (auto price = server->priced()) {
    in.server_price = *price;
    p.sources.push_back(
        from_data("server price",
                  money(price->value()) + " per " + std::to_string(server->gpus) + " GPUs", ps));
  } else {
    return o.error("server",
                   "server " + server->id + " has no price in the catalog: " + ps.provenance.note);
  }
  if (in.server_price.value() <= 0)
    return o.error("server_price", "pricing.server_price must be above 0");

  AICOST_TRY_STATUS(o.quantity(
      "amortisation", UnitKind::kDuration, in.life, &d.amortisation, "amortisation",
      [](core::Seconds s) { return core::sprintf("%.4g y", s.value() / core::kSecondsPerYear); }));
  if (in.life.value() <= 0) return o.error("amortisation", "pricing.amortisation must be above 0");
  auto share = [&](const char* key, double& out, const catalog::Sourced<double>& fallback,
                   const char* input, UnitKind kind = UnitKind::kPercent) -> core::Status {
    return o.quantity(key, kind, out, &fallback, input, [kind](double x) {
      return pct(x) + (kind == UnitKind::kPercentPerYear ? " a year" : "");
    });
  };
  AICOST_TRY_STATUS(share("residual", in.residual, d.residual, "residual"));
  if (in.residual > 1)
    return o.error("residual", "pricing.residual is a share of the server price, at most 100%");
  AICOST_TRY_STATUS(share("utilisation", in.utilisation, d.utilisation, "utilisation"));
  if (in.utilisation <= 0 || in.utilisation > 1) {
    return o.error("utilisation",
                   "pricing.utilisation is the share of the cluster's life its GPUs "
                   "are busy: above 0% and at most 100%");
  }
  AICOST_TRY_STATUS(share("support", in.support_per_year, d.support_per_year, "support",
                          UnitKind::kPercentPerYear));
  if (auto pue = r.ratio("pue", "1.3"); !pue) {
    return pue.error();
  } else if (*pue) {
    in.pue = **pue;
    p.sources.push_back(from_plan("PUE", core::sprintf("%.3g", in.pue)));
  } else {
    in.pue = d.pue.value;
    p.sources.push_back(from_data("PUE", core::sprintf("%.3g", in.pue), d.pue.sourcing));
  }
  if (in.pue < 1) return o.error("pue", "pricing.pue is facility power over IT power, at least 1");
  AICOST_TRY_STATUS(o.quantity(
      "electricity", UnitKind::kEnergyPrice, in.electricity, &d.electricity, "electricity",
      [](core::UsdPerJoule e) { return core::sprintf("%.4g USD/kWh", e.value() * 3.6e6); }));
  AICOST_TRY_STATUS(o.quantity("colocation", UnitKind::kPowerPrice, in.colocation, &d.colocation,
                               "colocation", [](core::UsdPerJoule c) {
                                 return core::sprintf("%.2f USD/kW-month",
                                                      c.value() * 1e3 * core::kSecondsPerMonth);
                               }));
  req.fabric_given = o.given("fabric");
  AICOST_TRY_STATUS(o.quantity("fabric", UnitKind::kMoney, in.fabric, nullptr, "fabric",
                               [](core::Usd x) { return money(x.value()) + " per server"; }));
  AICOST_TRY_STATUS(o.quantity(
      "staff", UnitKind::kMoneyRate, in.staff, nullptr, "staff",
      [](core::UsdPerSecond s) { return money(s.value() * core::kSecondsPerMonth) + "/month"; }));
  if (!o.given("staff")) {
    p.notes.push_back(
        "no staff cost for running the cluster (pricing.staff); the colocation fee "
        "pays the facility's own staff");
  }
  // Power: the plan's, else the server's (its sourcing shared by the three figures).
  const auto& pw = server->power_sourcing;
  auto power = [&](const char* key, core::Watts& out, core::Watts catalogued,
                   const char* input) -> core::Status {
    if (o.given(key)) {
      AICOST_TRY_STATUS(r.read(key, UnitKind::kPower, out, true));
      p.sources.push_back(from_plan(input, kw(out)));
    } else if (catalogued.value() > 0) {
      out = catalogued;
      p.sources.push_back(from_data(input, kw(out), pw));
    }
    return {};
  };
  AICOST_TRY_STATUS(
      power("power", in.training_power, server->training_power, "power while training"));
  if (in.training_power.value() <= 0) {
    return o.error("server", "server " + server->id +
                                 " has no power figures: give pricing.power "
                                 "(per server, average while training), e.g. 8kW");
  }
  AICOST_TRY_STATUS(power("capacity", in.capacity, server->max_power, "contracted capacity"));
  if (in.capacity.value() <= 0) {
    return o.error(
        "server",
        "server " + server->id +
            " has no nameplate power: give "
            "pricing.capacity (per server, what colocation is contracted for), e.g. 10.2kW");
  }
  AICOST_TRY_STATUS(power("idle_power", in.idle_power, server->idle_power, "power while idle"));
  if (!o.given("idle_power") && server->idle_power.value() <= 0) {
    in.idle_power = in.training_power;
    p.sources.push_back({"power while idle", kw(in.idle_power), "assumed",
                         "no idle figure for " + server->id +
                             ": idle hours are charged at the "
                             "training draw (an upper bound)",
                         false});
  }
  return {};
}

costing::ComputePricing price_owned(OwnedRequest req, int cluster_gpus,
                                    const catalog::Catalog& cat) {
  auto& p = req.pricing;
  auto& in = p.inputs;
  in.servers = (cluster_gpus + in.gpus_per_server - 1) / in.gpus_per_server;
  const int gpus = in.servers * in.gpus_per_server;
  if (!req.fabric_given) {
    for (const auto& t : cat.owned_defaults().fabric) {
      if (t.max_gpus != 0 && gpus > t.max_gpus) continue;
      in.fabric = t.per_gpu * static_cast<double>(in.gpus_per_server);
      p.sources.push_back(from_data(
          "fabric",
          money(in.fabric.value()) + " per server (" + money(t.per_gpu.value()) + " per GPU)",
          t.sourcing));
      break;
    }
  }
  if (gpus > cluster_gpus) {
    p.notes.push_back(
        core::sprintf("%d servers of %d GPUs hold %d GPUs, %d more than the run's %d "
                      "(spares included): other work must use them",
                      in.servers, in.gpus_per_server, gpus, gpus - cluster_gpus, cluster_gpus));
  }
  for (const auto& s : p.sources) {
    if (s.weak)
      p.notes.push_back("weak: " + s.input + " " + s.value + " (" + s.from + ": " + s.source + ")");
    if (s.from == "assumed") p.notes.push_back(s.source);
  }
  p.rate = costing::owned_rate(in);
  auto rentals = costing::cheapest_rentals(cat, req.server->gpu);
  if (req.rented) {
    for (catalog::PricingMode m :
         {catalog::PricingMode::kOnDemand, catalog::PricingMode::kReserved1y,
          catalog::PricingMode::kReserved3y}) {
      const auto price = req.rented->price(m);
      if (!price) continue;
      const costing::Rental own{req.rented->id, m, *price / req.rented->gpus};
      // The named instance stands for the cheapest of its mode when it costs as little.
      auto same = std::find_if(rentals.begin(), rentals.end(), [&](const auto& x) {
        return x.mode == m && std::abs(core::per_hour(x.per_gpu - own.per_gpu)) < 0.005;
      });
      if (same != rentals.end())
        *same = own;
      else
        rentals.push_back(own);
    }
  }
  for (const auto& rent : rentals) p.break_even.push_back(costing::break_even(in, p.rate, rent));
  if (rentals.empty()) {
    p.notes.push_back("no catalogued instance rents " + req.server->gpu + ": no break-even");
  }
  return costing::owned_pricing(std::move(p), req.rented);
}

}  // namespace aicost::config
