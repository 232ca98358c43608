// Owned GPU servers (bought, not rented): the price of one server or rack, its GPUs and its power,
// and the defaults of an owned-pricing plan (life, residual value, utilisation, PUE, electricity,
// colocation, support, fabric). Filled from data/owned.yaml; every figure keeps its source, date,
// kind ("list", "street", "spec", "survey", "est: <who>", "derived") and whether it is weak (a
// single secondary source, undated, or a vendor/marketing page: output says so).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/catalog/provenance.h"
#include "aicost/core/quantity.h"

namespace aicost::catalog {

// Where one figure comes from, and how far to trust it.
struct Sourcing {
  std::string kind;  // list | street | spec | survey | est: <who> | derived | assumption
  bool weak = false;
  Provenance provenance;
};

struct Server {
  std::string id;  // "hgx-h100"
  std::string name;
  std::vector<std::string> aliases;
  std::string gpu;  // GpuSpec id
  int gpus = 0;     // per server (72 for a GB200 NVL72 rack)
  core::Usd
      price;  // per server; 0 where no price was found (price_sourcing.provenance.note says why)
  Sourcing price_sourcing;
  core::Watts max_power;       // nameplate: the capacity a colocation contract is sized to
  core::Watts training_power;  // average draw while training
  core::Watts idle_power;      // average draw while idle; 0 = not known
  Sourcing power_sourcing;

  std::optional<core::Usd> priced() const {
    if (price.value() <= 0) return std::nullopt;
    return price;
  }
};

template <class T>
struct Sourced {
  T value{};
  Sourcing sourcing;
};

// The scale-out fabric (switches and cables; NICs are in the server price) per GPU, by cluster
// size: the first tier whose max_gpus covers the cluster (0 = no limit).
struct FabricTier {
  int max_gpus = 0;
  core::Usd per_gpu;
  Sourcing sourcing;
};

// Values an owned-pricing plan gets for the keys it leaves out (docs/PLAN_FORMAT.md).
struct OwnedDefaults {
  Sourced<core::Seconds> amortisation;  // service life, straight line
  Sourced<double> residual;             // share of the server price fetched at the end of life
  Sourced<double> utilisation;          // share of the life the cluster's GPUs are busy
  Sourced<double> pue;                  // facility power / IT power
  Sourced<core::UsdPerJoule> electricity;
  Sourced<core::UsdPerJoule> colocation;  // per W of contracted capacity per second (USD/kW-month)
  Sourced<double> support_per_year;       // maintenance contract, share of the server price a year
  std::vector<FabricTier> fabric;
  bool loaded = false;
};

}  // namespace aicost::catalog
