// Rate cards (YAML): what a GPU-hour of usage without a bill costs (Slurm accounting), per GPU
// type, as a rate (`h100: 2.10USD/h`) or as the owned-GPU TCO of the catalog's servers
// (costing/owned.h, the same keys as a plan's `pricing: {mode: owned}`). docs/LEDGER.md, "Usage
// without a bill", describes the format.
//
//   gpus:
//     h100: 2.10USD/h                                # every rate carries its currency
//     a100: {owned: {server: dgx-a100, utilisation: 70%}}   # USD; data/owned.yaml fills the rest
//   untyped: 1.50USD/h                               # GPUs AllocTRES gives no type (optional)
//   cpu: 0.031611USD/core-hour                       # OpenShift pods (optional)
//   memory: 0.004237USD/GiB-hour
//   storage: 0.04USD/GiB-month                       # or per storage class: {gp3-csi:
//   0.08USD/GiB-month, ...}
//
// Every rate of a card is in one currency. Errors name file:line:column.
#pragma once

#include <string>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/ledger/rate_card.h"

namespace aicost::config {

// `catalog` prices the owned entries (servers, owned_defaults); it is not used otherwise.
core::Result<ledger::RateCard> load_rate_card(const std::string& path,
                                              const catalog::Catalog& catalog);
core::Result<ledger::RateCard> parse_rate_card(const std::string& text, const std::string& origin,
                                               const catalog::Catalog& catalog);

}  // namespace aicost::config
