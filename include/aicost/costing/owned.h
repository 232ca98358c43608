// Owned GPUs (buy instead of rent): the effective price of a busy GPU-hour on a cluster the team
// buys, its parts, the fixed vs elastic split, and the break-even against renting the same GPU.
// Formulas: ../shared/reference/tco.md, "How to combine" (cited per function). Pure functions,
// thread-safe; no input is read here (config fills OwnedInputs from the plan and data/owned.yaml).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/core/quantity.h"

namespace aicost::costing {

// One owned cluster: `servers` alike, bought together, used `utilisation` of their life.
struct OwnedInputs {
  std::string server;       // catalog id, for texts
  int gpus_per_server = 8;  // 72 for a GB200 NVL72 rack
  int servers = 1;          // in the cluster
  core::Usd server_price;   // per server
  core::Usd fabric;         // per server: scale-out switches and cables
  core::Seconds life;       // amortisation period, straight line
  double residual = 0;      // share of the server price fetched at the end of life (fabric: none)
  double utilisation = 1;   // share of the life the cluster's GPUs are busy, in (0, 1]
  double pue = 1;           // facility power / IT power
  core::UsdPerJoule electricity;
  core::UsdPerJoule colocation;  // per W of contracted capacity per second (USD/kW-month)
  core::Watts capacity;          // contracted per server (its nameplate power)
  core::Watts training_power;    // per server, average while busy
  core::Watts idle_power;        // per server, average while idle
  double support_per_year = 0;   // maintenance contract, share of the server price a year
  core::UsdPerSecond staff;      // people running the cluster, for the whole cluster
};

struct OwnedPart {
  std::string name;  // servers | fabric | support | colocation | staff | idle power | power
  core::UsdPerSecond per_gpu;  // per busy GPU-second
  bool fixed = true;   // paid whether or not the GPUs work (all but the power of busy hours)
  std::string driver;  // the figures, in words
};

struct OwnedRate {
  std::vector<OwnedPart> parts;
  core::UsdPerSecond per_gpu;  // per busy GPU-second: the sum of the parts
  core::UsdPerSecond fixed, elastic;
  core::Usd upfront;           // servers + fabric, paid before the first hour
  core::UsdPerSecond running;  // the whole cluster per wall-clock second, capital excluded
};

// $/GPU-h = [(server - residual) + fabric] / (life x u x G) + support + colocation + staff +
// power, each per wall-clock hour / (G x u): tco.md "How to combine"; the idle hours' power is
// split out (P_idle x (1 - u) / u), so that power x u is the only elastic part.
OwnedRate owned_rate(const OwnedInputs& in);

// A rented GPU the owned one is compared with: one instance's price under one mode.
struct Rental {
  std::string instance;  // catalog id
  catalog::PricingMode mode = catalog::PricingMode::kOnDemand;
  core::UsdPerSecond per_gpu;
};

// The cheapest catalogued on-demand price for `gpu` and the cheapest reserved one (1 or 3 years),
// per GPU; either is missing when no instance has it.
std::vector<Rental> cheapest_rentals(const catalog::Catalog& catalog, const std::string& gpu);

struct BreakEven {
  Rental rental;
  // Months until buying (servers and fabric up front, then running costs) has cost less than
  // renting the same: `upfront / (rent - running)` per month of 730 h; nullopt when renting costs
  // no more than running the owned cluster (never breaks even). The residual value is left out
  // (it comes at the end of the life): the simple payback period.
  std::optional<double> months;
  // On-demand (and spot) rentals only: the utilisation at which a busy owned GPU-hour costs the
  // rental price; nullopt for reservations (paid whether used or not, like an owned cluster) and
  // when no utilisation up to 100 % gets there.
  std::optional<double> utilisation;
};

// Renting the same capacity: on demand, only the busy hours (servers x G x u GPU-hours a wall
// hour); reserved, every hour of every GPU (a reservation is paid whether used or not).
BreakEven break_even(const OwnedInputs& in, const OwnedRate& rate, const Rental& rental);

// Everything an estimate shows about an owned price: the inputs, where each came from, the rate
// and its break-evens.
struct OwnedPricing {
  struct Source {
    std::string input;   // "server price", "utilisation", ... (docs/PLAN_FORMAT.md names the keys)
    std::string value;   // as shown: "310,000 USD per 8 GPUs", "70 %"
    std::string from;    // "plan", or "data/owned.yaml (<kind>, <date>)"
    std::string source;  // the data entry's source; empty for the plan's own values
    bool weak = false;
  };
  OwnedInputs inputs;
  OwnedRate rate;
  std::vector<BreakEven> break_even;
  std::vector<Source> sources;
  std::vector<std::string> notes;  // weak figures, assumptions, what is left out
};

}  // namespace aicost::costing
