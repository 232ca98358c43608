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

}  // namespace aicost::ledger
