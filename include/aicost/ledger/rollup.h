// The daily rollup: charges summed per day, rollup dimensions and tag set as they are loaded, so
// reports that need no resource-level dimension read thousands of rows instead of millions. The
// stores build it (src/store/id_rollup.h); this names what it keeps.
#pragma once

#include <array>
#include <cstdint>

#include "aicost/ledger/query.h"

namespace aicost::ledger {

// The dimensions a rollup row keeps, in this order (see in_rollup).
inline constexpr Dimension kRollupDims[] = {
    Dimension::kProvider,        Dimension::kBillingAccount,   Dimension::kSubAccount,
    Dimension::kService,         Dimension::kServiceCategory,  Dimension::kRegion,
    Dimension::kResourceType,    Dimension::kChargeCategory,   Dimension::kChargeFrequency,
    Dimension::kPricingCategory, Dimension::kCommitmentStatus, Dimension::kCurrency,
    Dimension::kConsumedUnit,  // schema 8, with the sum of ConsumedQuantity
};
inline constexpr std::size_t kRollupDimCount = sizeof(kRollupDims) / sizeof(kRollupDims[0]);

// The resource-day rollup (docs/LEDGER.md, Scale): charges summed per day, these dimensions, tag
// set and currency, kept for a source whose charges fold well (a cloud export billing each
// resource hourly), so that a query by resource (the waste scan's) reads a row per resource and
// day instead of one per charge. In this order (see in_resource_rollup).
inline constexpr Dimension kResourceRollupDims[] = {
    Dimension::kResource,         Dimension::kResourceName,   Dimension::kService,
    Dimension::kServiceCategory,  Dimension::kResourceType,   Dimension::kRegion,
    Dimension::kConsumedUnit,     Dimension::kChargeCategory, Dimension::kCommitment,
    Dimension::kCommitmentStatus,
};
inline constexpr std::size_t kResourceRollupDimCount =
    sizeof(kResourceRollupDims) / sizeof(kResourceRollupDims[0]);
// Whether the resource-day rollup keeps `d` (kResourceRollupDims, or the currency).
constexpr bool in_resource_rollup(Dimension d) {
  if (d == Dimension::kCurrency) return true;
  for (auto r : kResourceRollupDims)
    if (r == d) return true;
  return false;
}

}  // namespace aicost::ledger
