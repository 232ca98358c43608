// The daily rollup: charges summed per day, rollup dimensions and tag set as they are loaded, so
// reports that need no resource-level dimension read thousands of rows instead of millions.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "aicost/ledger/charge.h"
#include "aicost/ledger/query.h"

namespace aicost::ledger {

// The dimensions a rollup row keeps, in this order (see in_rollup).
inline constexpr Dimension kRollupDims[] = {
    Dimension::kProvider,       Dimension::kBillingAccount,  Dimension::kSubAccount,
    Dimension::kService,        Dimension::kServiceCategory, Dimension::kRegion,
    Dimension::kResourceType,   Dimension::kChargeCategory,  Dimension::kChargeFrequency,
    Dimension::kPricingCategory, Dimension::kCommitmentStatus, Dimension::kCurrency,
};
inline constexpr std::size_t kRollupDimCount = sizeof(kRollupDims) / sizeof(kRollupDims[0]);

// The value of a plain dimension on a charge.
const std::string& dimension_value(const Charge& c, Dimension d);

struct RollupRow {
  Day day = 0;
  std::vector<std::string> values;  // kRollupDims order
  std::int64_t tagset = 0;
  Sums sums;
};

class DailyRollup {
 public:
  void add(const Charge& c, std::int64_t tagset);
  std::vector<RollupRow> rows() const;  // sorted by day, then values, then tag set
  void clear() { groups_.clear(); }

 private:
  struct Key {
    Day day = 0;
    std::int64_t tagset = 0;
    std::array<std::string, kRollupDimCount> values;
  };
  // A charge looked up without copying its strings (heterogeneous lookup).
  struct Probe {
    Day day;
    std::int64_t tagset;
    const Charge* charge;
  };
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(const Key& k) const;
    std::size_t operator()(const Probe& p) const;
  };
  struct Eq {
    using is_transparent = void;
    bool operator()(const Key& a, const Key& b) const;
    bool operator()(const Probe& p, const Key& k) const;
    bool operator()(const Key& k, const Probe& p) const { return (*this)(p, k); }
  };
  std::unordered_map<Key, Sums, Hash, Eq> groups_;
};

}  // namespace aicost::ledger
